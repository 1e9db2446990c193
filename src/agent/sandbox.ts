// The pod's sandbox as the runtime makes it (name, host name, DNS, sysctls, host ports, cgroup,
// namespaces and security), and the hosts file its containers get.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentPod } from './objects.js';
import { podDns, type DnsSettings } from './dns.js';
import { sandboxSecurity } from './security.js';
import type { PortMapping, SandboxConfig } from './runtime/types.js';

export function podLogDirectory(rootDir: string, pod: AgentPod): string {
  return join(rootDir, 'logs', 'pods', `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`);
}

/** the host ports the pod's containers ask for */
export function portMappings(pod: AgentPod): PortMapping[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].flatMap((c) => (c.ports ?? [])
    .filter((p) => (p.hostPort ?? 0) > 0)
    .map((p) => ({ protocol: p.protocol ?? 'TCP', containerPort: p.containerPort, hostPort: p.hostPort!, hostIp: p.hostIP ?? '' })));
}

export interface SandboxSettings {
  rootDir: string;
  dns?: DnsSettings;
  seccompDefault: boolean;
}

export function sandboxConfig(pod: AgentPod, attempt: number, cgroupParent: string, s: SandboxSettings): SandboxConfig {
  const m = pod.metadata;
  const hostNetwork = !!pod.spec.hostNetwork;
  return {
    name: m.name, namespace: m.namespace, uid: m.uid, attempt, hostNetwork,
    // a host-network pod shares the host's UTS namespace and must not set a host name
    hostname: hostNetwork ? undefined : pod.spec.hostname ?? m.name,
    ...(s.dns ? { dns: podDns(pod, s.dns) } : {}),
    sysctls: Object.fromEntries((pod.spec.securityContext?.sysctls ?? []).map((x) => [x.name, String(x.value)])),
    logDirectory: podLogDirectory(s.rootDir, pod),
    labels: { ...(m.labels ?? {}) },
    annotations: { ...(m.annotations ?? {}) },
    portMappings: portMappings(pod),
    cgroupParent,
    security: sandboxSecurity(pod, s.seccompDefault),
  };
}

/**
 * The pod's /etc/hosts: localhost, the pod's own addresses with its host name (and its name in its
 * subdomain) and the pod's hostAliases. A host-network pod gets the node's file plus its aliases.
 * Written into the pod's folder; undefined when the runtime's own file serves.
 */
export async function writeHostsFile(pod: AgentPod, podDir: string, ips: string[], clusterDomain?: string): Promise<string | undefined> {
  const aliases = pod.spec.hostAliases ?? [];
  let text: string;
  if (pod.spec.hostNetwork) {
    if (!aliases.length) return undefined;
    text = await readFile('/etc/hosts', 'utf8').catch(() => '127.0.0.1\tlocalhost\n');
    if (!text.endsWith('\n')) text += '\n';
  } else {
    const hostname = pod.spec.hostname ?? pod.metadata.name;
    const fqdn = pod.spec.subdomain && clusterDomain ? `${hostname}.${pod.spec.subdomain}.${pod.metadata.namespace}.svc.${clusterDomain}` : undefined;
    text = '# Hosts file of the pod, written by the node agent.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n';
    for (const ip of ips) text += fqdn ? `${ip}\t${fqdn}\t${hostname}\n` : `${ip}\t${hostname}\n`;
  }
  if (aliases.length) {
    text += '\n# Entries of the pod\'s hostAliases.\n';
    for (const a of aliases) text += `${a.ip}\t${(a.hostnames ?? []).join('\t')}\n`;
  }
  const file = join(podDir, 'etc-hosts');
  await writeFile(file, text, { mode: 0o644 });
  return file;
}
