// Pod sysctls the agent admits: the safe set of the reference release 1.27, plus the unsafe ones
// (or patterns ending in *) allowed by --allowed-unsafe-sysctls.

import type { AgentPod } from './objects.js';

export const safeSysctls = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes',
];

const matches = (name: string, pattern: string) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** The sysctls of the pod that are neither safe nor allowed. */
export function forbiddenSysctls(pod: AgentPod, allowedUnsafe: readonly string[]): string[] {
  const names = (pod.spec.securityContext?.sysctls ?? []).map((s) => s.name.replaceAll('/', '.'));
  return names.filter((n) => !safeSysctls.includes(n) && !allowedUnsafe.some((p) => matches(n, p.replaceAll('/', '.'))));
}
