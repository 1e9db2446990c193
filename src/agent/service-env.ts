// The service environment variables of containers, as the reference's agent sets them: for the API server's own
// Service (`<vendor>` in `default`, whatever the pod's enableServiceLinks says) and, with enableServiceLinks, for
// every Service of the pod's namespace that has a cluster IP, `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT` (and
// one per named port) and the Docker-link variables `<NAME>_PORT`, `<NAME>_PORT_<port>_<PROTO>[_PROTO|_PORT|_ADDR]`.
// In-cluster clients find the API server through KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT.
// One watch of all Services serves every node the process runs.

import type { Client } from '../client/rest-client.js';
import { startInformer } from '../client/informer.js';
import type { Service } from './objects.js';

/** what the variables are made of: a Service without the rest */
export interface ServiceFacts {
  name: string;
  namespace: string;
  clusterIP: string;
  ports: Array<{ name: string; port: number; protocol: string }>;
}

export interface ServiceWatch {
  /** whether the first list of Services has arrived */
  synced(): boolean;
  /** the Services of a namespace, by name */
  inNamespace(namespace: string): ReadonlyMap<string, ServiceFacts>;
  stop(): void;
}

const servicesRef = { group: '', version: 'v1', resource: 'services' };

/** the facts of a Service with a cluster IP (not headless, not ExternalName), else undefined */
export function serviceFacts(s: Service): ServiceFacts | undefined {
  const ip = s.spec?.clusterIP;
  if (!ip || ip === 'None' || !s.metadata?.name || !s.metadata.namespace) return undefined;
  return {
    name: s.metadata.name, namespace: s.metadata.namespace, clusterIP: ip,
    ports: (s.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol || 'TCP' })),
  };
}

export function watchServices(client: Client, warn: (message: string) => void): ServiceWatch & { ready: Promise<void> } {
  const byNamespace = new Map<string, Map<string, ServiceFacts>>();
  let synced = false;
  const put = (s: Service) => {
    const ns = s.metadata?.namespace ?? '', name = s.metadata?.name ?? '';
    const facts = serviceFacts(s);
    if (facts) {
      let m = byNamespace.get(ns);
      if (!m) byNamespace.set(ns, m = new Map());
      m.set(name, facts);
    } else remove(s);
  };
  const remove = (s: Service) => {
    const m = byNamespace.get(s.metadata?.namespace ?? '');
    m?.delete(s.metadata?.name ?? '');
    if (m && !m.size) byNamespace.delete(s.metadata?.namespace ?? '');
  };
  const informer = startInformer(client.resource<Service>(servicesRef), (e) => {
    if (e.type === 'sync') {
      byNamespace.clear();
      for (const s of e.items) put(s);
      synced = true;
    } else if (e.type === 'deleted') remove(e.object);
    else put(e.object);
  }, { keepStore: false, onError: (err) => warn(`service watch: ${(err as Error).message}`) });
  const empty: ReadonlyMap<string, ServiceFacts> = new Map();
  return {
    ready: informer.synced,
    synced: () => synced,
    inNamespace: (namespace) => byNamespace.get(namespace) ?? empty,
    stop: () => informer.stop(),
  };
}

/** a Service's name as a variable's prefix: upper case, dashes as underscores */
const variableName = (name: string) => name.toUpperCase().replace(/-/g, '_');

/** the variables of some Services, in the reference's order for each */
export function serviceVariables(services: Iterable<ServiceFacts>): Map<string, string> {
  const env = new Map<string, string>();
  for (const s of services) {
    if (!s.ports.length) continue;
    const prefix = variableName(s.name);
    env.set(`${prefix}_SERVICE_HOST`, s.clusterIP);
    env.set(`${prefix}_SERVICE_PORT`, String(s.ports[0].port));
    for (const p of s.ports) if (p.name) env.set(`${prefix}_SERVICE_PORT_${variableName(p.name)}`, String(p.port));
    const host = s.clusterIP.includes(':') ? `[${s.clusterIP}]` : s.clusterIP;
    s.ports.forEach((p, i) => {
      const proto = p.protocol.toLowerCase();
      const url = `${proto}://${host}:${p.port}`;
      if (i === 0) env.set(`${prefix}_PORT`, url);
      const portPrefix = `${prefix}_PORT_${p.port}_${p.protocol.toUpperCase()}`;
      env.set(portPrefix, url);
      env.set(`${portPrefix}_PROTO`, proto);
      env.set(`${portPrefix}_PORT`, String(p.port));
      env.set(`${portPrefix}_ADDR`, s.clusterIP);
    });
  }
  return env;
}

/**
 * The service variables of a pod's containers: the API server's Service (`apiServiceName` in `default`) always, the
 * Services of the pod's namespace with enableServiceLinks (one of them of the same name wins over the API server's).
 */
export function podServiceVariables(watch: Pick<ServiceWatch, 'inNamespace'>, apiServiceName: string, namespace: string, enableServiceLinks: boolean): Map<string, string> {
  const chosen = new Map<string, ServiceFacts>();
  const api = watch.inNamespace('default').get(apiServiceName);
  if (api) chosen.set(api.name, api);
  if (enableServiceLinks) for (const s of watch.inNamespace(namespace).values()) chosen.set(s.name, s);
  return serviceVariables(chosen.values());
}
