// The `<vendor>` Service in `default`: the API server's own address inside the cluster. Each API server keeps
// a short Lease of its own in the system namespace saying where it answers (the reference's lease endpoint
// reconciler, which keeps its leases in storage); the Endpoints and EndpointSlice of the Service list the
// addresses of the live leases, so several API servers on one store all appear, and one that stops (or
// stops renewing) leaves them; its lease, run out, is deleted by the others, as the reference's expire from
// storage. Written through the stores of the registry, as the server's own hooks are.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import { nowTimestamp } from '../api/meta.js';
import type { Backends } from '../registry/backends.js';
import { noAdmission } from '../registry/store.js';
import { ipAt, parseCidr } from '../registry/resources/core/services/allocator.js';
import type { Logger } from '../http/server.js';

export type EndpointReconciler = 'lease' | 'none';

/** the Service's cluster IP: the first address of the first service range */
const serviceIp = (ranges: readonly string[]) => ipAt(parseCidr(ranges[0]!), 1);

/**
 * What in-cluster clients reach the API server by, which a serving certificate the server makes itself covers (as the
 * reference's does): the Service's cluster IP (KUBERNETES_SERVICE_HOST) and `<vendor>.default.svc`, `<vendor>.default`, `<vendor>`.
 */
export const inClusterNames = (names: Naming, serviceClusterIpRanges: readonly string[]): string[] =>
  [`${names.vendor}.default.svc`, `${names.vendor}.default`, names.vendor, serviceIp(serviceClusterIpRanges)];

export interface KubernetesServiceOptions {
  backends: Backends;
  names: Naming;
  /** the address and port this server advertises */
  address(): { ip: string; port: number };
  serviceClusterIpRanges: readonly string[];
  reconciler: EndpointReconciler;
  /** > 0: the Service is of type NodePort, its https port on this node port (--kubernetes-service-node-port) */
  nodePort?: number;
  /** how often the lease is renewed and the endpoints checked (the reference: 10 s) */
  intervalMs?: number;
  /** a lease not renewed for this long no longer counts (the reference: 15 s) */
  leaseTtlSeconds?: number;
  log: Logger;
}

const write = { dryRun: false };
const firstAttempts = 8;
const servicePort = 443;
const portName = 'https';

export function startKubernetesService(o: KubernetesServiceOptions): { ready: Promise<void>; stop(): Promise<void> } {
  const { names, backends } = o;
  const serviceName = names.vendor;
  const intervalMs = o.intervalMs ?? 10_000;
  const ttlSeconds = o.leaseTtlSeconds ?? 15;
  // --runtime-config can switch off what it writes: then there is nothing to keep, as without the core group upstream
  const needed: [string, string][] = [['', 'services'], ['', 'endpoints'], [names.group('discovery'), 'endpointslices'], [names.group('coordination'), 'leases']];
  const missing = needed.filter(([g, r]) => !backends.preferred(g, r)).map(([g, r]) => g ? `${r}.${g}` : r);
  if (missing.length) {
    o.log.warn(`${serviceName} service: not kept, as ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not served`);
    return { ready: Promise.resolve(), async stop() {} };
  }
  const addressKey = `apiserver.${names.labelDomain}/advertise-address`;
  const portKey = `apiserver.${names.labelDomain}/port`;
  const endpointLabel = `apiserver.${names.labelDomain}/endpoint`;
  const store = (group: string, resource: string) => backends.preferred(group, resource)!.store;
  const leases = () => store(names.group('coordination'), 'leases');
  const leaseName = () => {
    const { ip, port } = o.address();
    return `apiserver-endpoint-${createHash('sha256').update(`${ip}:${port}`).digest('hex').slice(0, 16)}`;
  };

  /** the Service, created if missing, and its type and port put right when they differ from the flags' */
  async function ensureService() {
    const { port } = o.address();
    const clusterIP = serviceIp(o.serviceClusterIpRanges);
    const nodePort = o.nodePort && o.nodePort > 0 ? o.nodePort : undefined;
    const type = nodePort ? 'NodePort' : 'ClusterIP';
    const ports = [{ name: portName, protocol: 'TCP', port: servicePort, targetPort: port, ...(nodePort ? { nodePort } : {}) }];
    const services = store('', 'services');
    let existing: ApiObject | undefined;
    try {
      existing = await services.get('default', serviceName);
    } catch { /* created below */ }
    if (existing) {
      const spec = (existing as unknown as { spec?: { type?: string; ports?: Array<{ nodePort?: number }> } }).spec;
      if (spec?.type === type && (spec.ports?.length === 1 && spec.ports[0]!.nodePort === nodePort)) return;
      await services.guaranteedUpdate('default', serviceName, '', (cur) =>
        ({ ...cur!, spec: { ...(cur as unknown as { spec: object }).spec, type, ports } }) as ApiObject, noAdmission, write);
      return;
    }
    await services.create('default', {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: serviceName, namespace: 'default', labels: { component: 'apiserver', provider: names.vendor } },
      spec: { type, clusterIP, ports, sessionAffinity: 'None' },
    } as ApiObject, noAdmission, write).catch(async (e) => {
      // another API server on the same store created it first: its address is then taken, by that very Service
      if ((e as { code?: number }).code === 409) return;
      if (!await services.get('default', serviceName).then(() => true, () => false)) throw e;
    });
  }

  async function renewLease() {
    const { ip, port } = o.address();
    const name = leaseName();
    const spec = { holderIdentity: `${ip}:${port}`, leaseDurationSeconds: ttlSeconds, renewTime: nowTimestamp().replace('Z', '.000000Z') };
    await leases().guaranteedUpdate(names.systemNamespace, name, '', (cur) => ({
      ...(cur ?? { apiVersion: `${names.group('coordination')}/v1`, kind: 'Lease' }),
      metadata: { ...(cur?.metadata ?? { name, namespace: names.systemNamespace }), labels: { ...cur?.metadata.labels, [endpointLabel]: '' }, annotations: { ...cur?.metadata.annotations, [addressKey]: ip, [portKey]: String(port) } },
      spec,
    }) as ApiObject, noAdmission, { ...write, allowCreate: true });
  }

  type EndpointLease = ApiObject & { spec?: { renewTime?: string; leaseDurationSeconds?: number } };
  const endpointLeases = async () => (await backends.listers.list(names.group('coordination'), 'leases', names.systemNamespace) as EndpointLease[])
    .filter((l) => l.metadata.labels?.[endpointLabel] !== undefined && !l.metadata.deletionTimestamp);
  const expired = (l: EndpointLease, now: number) =>
    !(Date.parse(l.spec?.renewTime ?? '') + (l.spec?.leaseDurationSeconds ?? ttlSeconds) * 1000 > now);

  /**
   * the leases of servers gone without a word (killed, or moved to another address) are deleted once they ran out,
   * as the reference's expire from storage; one renewed meanwhile is kept (the delete's precondition fails)
   */
  async function forgetExpired() {
    const now = Date.now();
    for (const l of await endpointLeases()) {
      if (l.metadata.name === leaseName() || !expired(l, now)) continue;
      await leases().delete(names.systemNamespace, l.metadata.name!, { preconditions: { resourceVersion: l.metadata.resourceVersion } }, noAdmission).catch(() => {});
    }
  }

  /** the addresses of the leases still live, this server's own included or left out as asked */
  async function liveAddresses(self: boolean): Promise<Array<{ ip: string; port: number }>> {
    const me = o.address();
    const now = Date.now();
    const out: Array<{ ip: string; port: number }> = [];
    for (const l of await endpointLeases()) {
      if (expired(l, now)) continue;
      const ip = l.metadata.annotations?.[addressKey];
      const port = Number(l.metadata.annotations?.[portKey]);
      if (ip && port && (ip !== me.ip || port !== me.port)) out.push({ ip, port });
    }
    if (self) out.push(me);
    return out.sort((a, b) => a.ip.localeCompare(b.ip) || a.port - b.port);
  }

  /** the Endpoints and EndpointSlices of the Service: the live servers, one subset and slice per port */
  async function writeEndpoints(addresses: Array<{ ip: string; port: number }>) {
    const byPort = new Map<number, string[]>();
    for (const a of addresses) (byPort.get(a.port) ?? byPort.set(a.port, []).get(a.port)!).push(a.ip);
    const subsets = [...byPort].map(([port, ips]) => ({ addresses: ips.map((ip) => ({ ip })), ports: [{ name: portName, port, protocol: 'TCP' }] }));
    const endpoints = store('', 'endpoints');
    await endpoints.guaranteedUpdate('default', serviceName, '', (cur) => {
      const next = {
        apiVersion: 'v1', kind: 'Endpoints',
        metadata: { ...(cur?.metadata ?? { name: serviceName, namespace: 'default' }), labels: { ...cur?.metadata.labels, [`endpointslice.${names.labelDomain}/skip-mirror`]: 'true' } },
        subsets,
      } as ApiObject;
      return next;
    }, noAdmission, { ...write, allowCreate: true });
    const slices = store(names.group('discovery'), 'endpointslices');
    const wanted = new Set<string>();
    // with no server left, one empty slice
    const groups: Array<[number | undefined, string[]]> = byPort.size ? [...byPort] : [[undefined, []]];
    for (const [i, [port, ips]] of groups.entries()) {
      const name = i === 0 ? serviceName : `${serviceName}-${port}`;
      wanted.add(name);
      await slices.guaranteedUpdate('default', name, '', (cur) => ({
        apiVersion: `${names.group('discovery')}/v1`, kind: 'EndpointSlice',
        metadata: { ...(cur?.metadata ?? { name, namespace: 'default' }), labels: { ...cur?.metadata.labels, [names.label('service-name')]: serviceName } },
        addressType: ips[0]?.includes(':') ? 'IPv6' : 'IPv4',
        endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports: port ? [{ name: portName, port, protocol: 'TCP' }] : [],
      }) as ApiObject, noAdmission, { ...write, allowCreate: true });
    }
    // slices of ports no server has any more
    const others = await backends.listers.list(names.group('discovery'), 'endpointslices', 'default');
    for (const s of others) {
      const n = s.metadata.name!;
      if (s.metadata.labels?.[names.label('service-name')] === serviceName && (n === serviceName || n.startsWith(`${serviceName}-`))
        && !s.metadata.ownerReferences?.length && !wanted.has(n)) {
        await slices.delete('default', n, {}, noAdmission).catch(() => {});
      }
    }
  }

  let last = '';
  async function reconcile() {
    await ensureService();
    if (o.reconciler === 'none') return;
    await renewLease();
    await forgetExpired();
    const live = await liveAddresses(true);
    const key = JSON.stringify(live);
    if (key === last) return;
    await writeEndpoints(live);
    last = key;
  }

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = () => {
    timer = setTimeout(() => {
      reconcile().catch((e) => o.log.warn(`${serviceName} service: ${(e as Error).message}`)).finally(() => { if (!stopped) tick(); });
    }, intervalMs);
    timer.unref();
  };
  // the first pass may meet another API server's start on the same store half done (the Service's address allocated,
  // the Service not yet written): it is tried again a few times before the start fails
  const first = async () => {
    for (let attempt = 1, delay = 100; ; attempt++, delay = Math.min(delay * 2, 2000)) {
      try { return await reconcile(); } catch (e) {
        if (stopped || attempt === firstAttempts) throw e;
        o.log.warn(`${serviceName} service: ${(e as Error).message}; trying again`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };
  const ready = first().then(() => { if (!stopped) tick(); });
  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (o.reconciler === 'none') return;
      // leave the endpoints now rather than when the lease runs out, as the reference does on a graceful stop
      try {
        await leases().delete(names.systemNamespace, leaseName(), {}, noAdmission);
        await writeEndpoints(await liveAddresses(false));
      } catch (e) {
        o.log.warn(`${serviceName} service: leaving the endpoints: ${(e as Error).message}`);
      }
    },
  };
}
