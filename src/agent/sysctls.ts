// Pod sysctls the agent admits: the safe set of the reference release 1.27, plus the unsafe ones
// (or patterns ending in *) allowed by --allowed-unsafe-sysctls. Only sysctls the kernel keeps per
// network or IPC namespace can be allowed at all, and none of a namespace the pod shares with the host.

import type { AgentPod } from './objects.js';

export const safeSysctls = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports',
];

type SysctlNamespace = 'ipc' | 'net';

/** the name with dots as separators: a name whose first separator is a slash (`net/ipv4/conf/eth0.1/...`)
 *  has its slashes and dots swapped, so a dot inside a segment survives */
const dotted = (name: string) => (/[./]/.exec(name)?.[0] === '/' ? name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.')) : name);

/** the namespace the kernel keeps the sysctl (or the sysctls of a prefix) in, or undefined when it is the host's */
export function sysctlNamespace(name: string): SysctlNamespace | undefined {
  const n = dotted(name);
  if (n === 'kernel.sem' || ['kernel.shm', 'kernel.msg', 'fs.mqueue.'].some((p) => n.startsWith(p))) return 'ipc';
  if (n.startsWith('net.')) return 'net';
  return undefined;
}

/** why an --allowed-unsafe-sysctls entry cannot be allowed, or undefined */
export function unsafeSysctlProblem(pattern: string): string | undefined {
  if (!/^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*(\*|[a-z0-9]([-_a-z0-9]*[a-z0-9])?\*?)$/.test(pattern) || pattern.length > 253)
    return `${JSON.stringify(pattern)} is not a sysctl name or pattern`;
  const name = dotted(pattern);
  if (!sysctlNamespace(name.endsWith('*') ? name.slice(0, -1) : name)) return `the sysctl ${JSON.stringify(pattern)} is not known to be namespaced`;
  return undefined;
}

const matches = (name: string, pattern: string) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern);

/** The first of the pod's sysctls the node refuses, with the reason; undefined when all are allowed. */
export function forbiddenSysctl(pod: AgentPod, allowedUnsafe: readonly string[]): string | undefined {
  for (const s of pod.spec.securityContext?.sysctls ?? []) {
    const name = dotted(s.name);
    if (!safeSysctls.includes(name) && !allowedUnsafe.some((p) => matches(name, dotted(p)))) return `"${name}" not allowlisted`;
    const ns = sysctlNamespace(name);
    if ((ns === 'net' && pod.spec.hostNetwork) || (ns === 'ipc' && pod.spec.hostIPC)) return `"${name}" not allowed with host ${ns} enabled`;
  }
  return undefined;
}
