// The Endpoints controller: every Service with a selector has an Endpoints object of its name listing the
// selected pods' addresses, ready ones under `addresses` and the others under `notReadyAddresses` (all under
// `addresses` when the Service publishes not-ready addresses), grouped into subsets of pods that expose the
// same ports (named target ports resolve per pod). The Endpoints of a deleted Service go with it.
import { isAlreadyExists, isConflict, isNotFound } from '../client/rest-client.js';
import { canonicalJson, ignoreNotFound, podReady, splitKey } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import { endpointHostname, headless, managedService, podAddresses, podHasEndpoint, targetPort, watchServicePods } from './service-pods.js';
import type { EndpointAddress, EndpointSubset, Endpoints, Pod, Service } from './types.js';
import { compareStrings } from '../util/order.js';
import { triggerTimes } from './trigger-time.js';

/** at most this many addresses in one Endpoints object; the rest are left out and the object says so */
const maxAddresses = 1000;

export const endpointsController: Controller = {
  name: 'endpoint',
  component: 'endpoint-controller',
  start(ctx) {
    const endpoints = ctx.informers.informer(ctx.refs.endpoints);
    const triggers = triggerTimes();
    const { services, selected, queue } = watchServicePods(ctx, async (key) => {
      const [namespace, name] = splitKey(key);
      const service = services.get(key);
      const client = ctx.client.resource(ctx.refs.endpoints, namespace);
      if (!service) {
        triggers.forget(key);
        // the Service is gone; Endpoints of a Service that never had a selector are someone else's, but
        // without a Service they describe nothing, as the reference does
        if (endpoints.get(key)) await client.delete(name).catch(ignoreNotFound);
        return;
      }
      if (!managedService(service)) return;
      const current = endpoints.get(key);
      const pods = selected(service);
      const trigger = triggers.compute(key, service, pods);
      const desired = desiredEndpoints(ctx, service, pods, current?.metadata.annotations, trigger);
      if (current && same(ctx, current, desired)) return;
      try {
        if (current) await client.update({ ...desired, metadata: { ...current.metadata, labels: desired.metadata.labels, annotations: desired.metadata.annotations } });
        else await client.create(desired);
      } catch (e) {
        // a stale cache: the informer brings the newer object and with it another pass
        if (isConflict(e) || isAlreadyExists(e)) { queue.addAfter(key, 100); return; }
        if (isNotFound(e)) return;   // the namespace is going away
        throw e;
      }
    });
    endpoints.addHandler({
      // someone else's change to a managed object is put right
      updated: (_, ep) => { if (services.get(`${ep.metadata.namespace}/${ep.metadata.name}`)) queue.add(`${ep.metadata.namespace}/${ep.metadata.name}`); },
      deleted: (ep) => queue.add(`${ep.metadata.namespace}/${ep.metadata.name}`),
    });
  },
};

const overCapacityAnnotation = (ctx: ControllerContext) => `endpoints.${ctx.names.labelDomain}/over-capacity`;
/** when the change that made the endpoints what they are happened; a change of it alone is no reason to write */
export const triggerTimeAnnotation = (ctx: Pick<ControllerContext, 'names'>) => `endpoints.${ctx.names.labelDomain}/last-change-trigger-time`;
export const headlessLabel = (ctx: Pick<ControllerContext, 'names'>) => `service.${ctx.names.labelDomain}/headless`;

function desiredEndpoints(ctx: ControllerContext, service: Service, pods: Pod[], annotations: Record<string, string> = {}, trigger?: string): Endpoints {
  const byAddress = new Map<string, { address: EndpointAddress; ready: boolean; ports: Map<string, { name?: string; port: number; protocol: 'TCP' | 'UDP' | 'SCTP'; appProtocol?: string }> }>();
  const family = service.spec?.ipFamilies?.[0] ?? 'IPv4';
  const include = !!service.spec?.publishNotReadyAddresses;
  for (const pod of pods) {
    if (!podHasEndpoint(pod, include)) continue;
    const ip = podAddresses(pod, family)[0];
    if (!ip) continue;
    const hostname = endpointHostname(service, pod);
    const address: EndpointAddress = {
      ip, ...(hostname ? { hostname } : {}), ...(pod.spec.nodeName ? { nodeName: pod.spec.nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
    };
    const entry = { address, ready: include || podReady(pod), ports: new Map() };
    for (const sp of service.spec?.ports ?? []) {
      const port = targetPort(pod, sp);
      if (port === undefined) continue;
      const p = { ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) };
      entry.ports.set(canonicalJson(p), p);
    }
    // a pod none of whose ports resolves has no endpoint, except behind a headless Service without ports
    if (entry.ports.size === 0 && (service.spec?.ports?.length || !headless(service))) continue;
    byAddress.set(`${ip}/${pod.metadata.uid}`, entry);
  }
  // addresses with the same ports share a subset
  const subsets = new Map<string, EndpointSubset>();
  let count = 0;
  const sorted = [...byAddress.values()].sort((a, b) => (a.ready === b.ready ? compareStrings(a.address.ip, b.address.ip) : a.ready ? -1 : 1));
  for (const e of sorted) {
    if (count++ >= maxAddresses) break;
    const ports = [...e.ports.values()].sort((a, b) => compareStrings(a.name ?? '', b.name ?? '') || a.port - b.port);
    const k = canonicalJson(ports);
    let subset = subsets.get(k);
    if (!subset) subsets.set(k, subset = { ...(ports.length ? { ports } : {}) });
    const list = e.ready ? (subset.addresses ??= []) : (subset.notReadyAddresses ??= []);
    list.push(e.address);
  }
  for (const s of subsets.values()) for (const l of [s.addresses, s.notReadyAddresses]) l?.sort((a, b) => compareStrings(a.ip, b.ip) || compareStrings(a.targetRef?.uid ?? '', b.targetRef?.uid ?? ''));
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  if (headless(service)) labels[headlessLabel(ctx)] = '';
  else delete labels[headlessLabel(ctx)];
  // others' annotations stay; ours say whether addresses were left out and when the change that made them happened
  const { [overCapacityAnnotation(ctx)]: _, [triggerTimeAnnotation(ctx)]: __, ...others } = annotations;
  const kept = trigger ? { ...others, [triggerTimeAnnotation(ctx)]: trigger } : others;
  return {
    apiVersion: 'v1', kind: 'Endpoints',
    metadata: {
      name: service.metadata.name, namespace: service.metadata.namespace, labels,
      annotations: byAddress.size > maxAddresses ? { ...kept, [overCapacityAnnotation(ctx)]: 'truncated' } : kept,
    },
    subsets: [...subsets.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, s]) => s),
  };
}

function same(ctx: ControllerContext, current: Endpoints, desired: Endpoints): boolean {
  const annotations = (e: Endpoints) => { const { [triggerTimeAnnotation(ctx)]: _, ...rest } = e.metadata.annotations ?? {}; return canonicalJson(rest); };
  const strip = (subsets: EndpointSubset[] | undefined) => canonicalJson((subsets ?? []).map((s) => ({
    addresses: s.addresses?.length ? s.addresses : undefined, notReadyAddresses: s.notReadyAddresses?.length ? s.notReadyAddresses : undefined,
    ports: s.ports?.length ? s.ports : undefined,
  })));
  return strip(current.subsets) === strip(desired.subsets)
    && canonicalJson(current.metadata.labels ?? {}) === canonicalJson(desired.metadata.labels ?? {})
    && annotations(current) === annotations(desired);
}
