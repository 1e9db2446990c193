// The DNS settings a pod's sandbox gets, by its dnsPolicy (the reference agent's rules):
// ClusterFirst uses --cluster-dns with the cluster's search path and ndots:5; Default (and
// ClusterFirst on the host network, or without --cluster-dns) inherits --resolv-conf; None takes
// only spec.dnsConfig, which the other policies append to.

import { readFileSync } from 'node:fs';
import type { AgentPod } from './objects.js';

export interface DnsConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export interface DnsSettings {
  clusterDns: string[];
  clusterDomain?: string;
  /** path of the resolver file pods inherit; empty: none */
  resolvConf: string;
}

export function parseResolvConf(text: string): DnsConfig {
  const out: DnsConfig = { servers: [], searches: [], options: [] };
  for (const raw of text.split('\n')) {
    const [key, ...rest] = raw.replace(/[#;].*$/, '').trim().split(/\s+/);
    if (key === 'nameserver' && rest[0]) out.servers.push(rest[0]);
    else if (key === 'search' || key === 'domain') out.searches = rest;
    else if (key === 'options') out.options.push(...rest);
  }
  return out;
}

const unique = (xs: string[]) => [...new Set(xs)];

export function podDns(pod: AgentPod, s: DnsSettings, readResolv: (path: string) => string = (p) => readFileSync(p, 'utf8')): DnsConfig {
  let policy: string = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  const hostNetwork = !!pod.spec?.hostNetwork;
  if (policy === 'ClusterFirstWithHostNet') policy = 'ClusterFirst';
  else if (policy === 'ClusterFirst' && hostNetwork) policy = 'Default';
  if (policy === 'ClusterFirst' && !s.clusterDns.length) policy = 'Default';

  const host = () => {
    if (!s.resolvConf) return { servers: [], searches: [], options: [] };
    try {
      return parseResolvConf(readResolv(s.resolvConf));
    } catch {
      return { servers: [], searches: [], options: [] };
    }
  };
  let base: DnsConfig = { servers: [], searches: [], options: [] };
  if (policy === 'Default') base = host();
  else if (policy === 'ClusterFirst') {
    const domain = s.clusterDomain;
    const ns = pod.metadata?.namespace ?? 'default';
    base = {
      servers: [...s.clusterDns],
      searches: [...(domain ? [`${ns}.svc.${domain}`, `svc.${domain}`, domain] : []), ...host().searches],
      options: ['ndots:5'],
    };
  }
  const extra = pod.spec?.dnsConfig ?? {};
  const options = new Map<string, string>();
  for (const o of base.options) options.set(o.split(':')[0]!, o);
  for (const o of extra.options ?? []) if (o.name) options.set(o.name, o.value !== undefined ? `${o.name}:${o.value}` : o.name);
  return {
    servers: unique([...base.servers, ...(extra.nameservers ?? [])]),
    searches: unique([...base.searches, ...(extra.searches ?? [])]).slice(0, 32),
    options: [...options.values()],
  };
}
