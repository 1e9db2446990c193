// The EndpointSlice controller: every Service with a selector has EndpointSlices, owned by it and labelled
// with its name, holding the selected pods' endpoints with their ready, serving and terminating conditions,
// one address family per slice (the Service's families), the pods that expose the same ports together, at
// most --max-endpoints-per-slice to a slice. An endpoint stays in the slice it is in while it can, so a change
// to one pod rewrites one slice; a Service with no endpoints keeps one empty slice, as the reference does.
import { isAlreadyExists, isConflict, isNotFound } from '../client/rest-client.js';
import type { SharedInformer } from '../client/informer.js';
import type { SyncResult } from '../client/workqueue.js';
import { canonicalJson, ignoreNotFound, splitKey } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import { headlessLabel, triggerTimeAnnotation } from './endpoints.js';
import { triggerTimes } from './trigger-time.js';
import { endpointConditions, endpointHostname, headless, managedService, podAddresses, podHasEndpoint, targetPort, watchServicePods } from './service-pods.js';
import type { EndpointSlice, Node, OwnerReference, Pod, Service, SliceEndpoint, SlicePort } from './types.js';
import { compareStrings } from '../util/order.js';

export type Family = 'IPv4' | 'IPv6';

export const endpointSliceController: Controller = {
  name: 'endpointslice',
  component: 'endpoint-slice-controller',
  serviceAccount: 'endpointslice-controller',
  start(ctx) {
    const serviceNameLabel = ctx.names.label('service-name');
    const managedBy = `endpointslice-controller.${ctx.names.domain}`;
    const slices = ctx.informers.informer(ctx.refs.endpointSlices);
    const nodes = ctx.informers.informer(ctx.refs.nodes);
    const writer = sliceWriter(ctx, slices, managedBy);
    const triggers = triggerTimes();

    const { services, selected, queue } = watchServicePods(ctx, async (key) => {
      if (!writer.caughtUp(key)) return { requeueAfterMs: 50 };
      const service = services.get(key);
      if (!service) triggers.forget(key);
      const owned = writer.owned(key).filter((s) => !service || s.metadata.ownerReferences?.some((r) => r.uid === service.metadata.uid));
      // the garbage collector removes what a deleted Service owned; a Service that lost its selector keeps none
      if (!service) return;
      if (!managedService(service)) return writer.write(key, { create: [], update: [], remove: owned });
      const labels = sliceLabels(ctx, service, serviceNameLabel, writer.managedByLabel, managedBy);
      const pods = selected(service);
      const { families, groups } = podGroups(service, pods, (n) => nodes.get(n), ctx);
      const plan = planSlices(groups, owned, { labels }, ctx.settings.maxEndpointsPerSlice, ctx, families[0]);
      stampTriggerTime(plan, triggerTimeAnnotation(ctx), triggers.compute(key, service, pods));
      return writer.write(key, plan, { apiVersion: 'v1', kind: 'Service', name: service.metadata.name!, uid: service.metadata.uid!, controller: true, blockOwnerDeletion: true });
    });
    writer.onForeignChange((k) => queue.add(k));
    // a node's zone is part of its endpoints
    nodes.addHandler({
      updated: (old, cur) => {
        if (zoneOf(old, ctx) === zoneOf(cur, ctx)) return;
        for (const s of services.list()) queue.add(`${s.metadata.namespace}/${s.metadata.name}`);
      },
    });
  },
};

/**
 * The slices one controller manages (by its managed-by label), indexed by the Service they serve, and their
 * writes: a key whose last writes the informer does not show yet waits, so a stale cache never doubles a slice.
 */
export function sliceWriter(ctx: ControllerContext, slices: SharedInformer<EndpointSlice>, managedBy: string) {
  const serviceNameLabel = ctx.names.label('service-name');
  const managedByLabel = `endpointslice.${ctx.names.labelDomain}/managed-by`;
  const serviceKey = (s: EndpointSlice) => {
    const name = s.metadata.labels?.[serviceNameLabel];
    return name && s.metadata.labels?.[managedByLabel] === managedBy ? [`${s.metadata.namespace}/${name}`] : [];
  };
  const index = `service:${managedBy}`;
  slices.addIndex(index, serviceKey);
  // what was written and the informer may not show yet: key → slice name → generation, or 0 for deleted
  const written = new Map<string, Map<string, number>>();
  const remember = (key: string, name: string, generation: number) => {
    let mine = written.get(key);
    if (!mine) written.set(key, mine = new Map());
    mine.set(name, generation);
  };
  return {
    managedByLabel,
    owned: (key: string) => slices.byIndex(index, key),
    caughtUp(key: string) {
      const mine = written.get(key);
      if (!mine) return true;
      const [namespace] = splitKey(key);
      for (const [name, generation] of mine) {
        const seen = slices.get(`${namespace}/${name}`);
        if (generation === 0 ? !seen : (seen?.metadata.generation ?? 0) >= generation) mine.delete(name);
      }
      if (!mine.size) written.delete(key);
      return !mine.size;
    },
    /** a change by someone else (or a deletion) to a managed slice is put right */
    onForeignChange(enqueue: (key: string) => void) {
      slices.addHandler({
        updated: (_, s) => { for (const k of serviceKey(s)) enqueue(k); },
        deleted: (s) => { for (const k of serviceKey(s)) enqueue(k); },
      });
    },
    /** carries out a plan; new slices are named after the owner and owned by it */
    async write(key: string, plan: Plan, owner?: OwnerReference): Promise<SyncResult | void> {
      const [namespace] = splitKey(key);
      const client = ctx.client.resource(ctx.refs.endpointSlices, namespace);
      try {
        for (const s of plan.remove) {
          await client.delete(s.metadata.name!, { preconditions: { uid: s.metadata.uid } }).catch(ignoreNotFound);
          remember(key, s.metadata.name!, 0);
        }
        for (const s of plan.update) {
          const done = await client.update(s);
          remember(key, done.metadata.name!, done.metadata.generation ?? 0);
        }
        for (const s of plan.create) {
          const done = await client.create({ ...s, metadata: { ...s.metadata, generateName: `${owner!.name}-`, namespace, ownerReferences: [owner!] } });
          remember(key, done.metadata.name!, done.metadata.generation ?? 0);
        }
      } catch (e) {
        if (isConflict(e) || isAlreadyExists(e)) return { requeueAfterMs: 100 };
        if (isNotFound(e)) return;   // the namespace is going away
        throw e;
      }
    },
  };
}

/** the slices a plan writes say when the change that made them happened (or nothing, when no change is known) */
function stampTriggerTime(plan: Plan, annotation: string, trigger: string | undefined) {
  for (const s of [...plan.create, ...plan.update]) {
    const { [annotation]: _, ...rest } = s.metadata.annotations ?? {};
    const annotations = trigger ? { ...rest, [annotation]: trigger } : rest;
    s.metadata = { ...s.metadata, annotations: Object.keys(annotations).length ? annotations : undefined };
  }
}

const zoneOf = (n: Node | undefined, ctx: Pick<ControllerContext, 'names'>) => n?.metadata.labels?.[`topology.${ctx.names.labelDomain}/zone`];

function sliceLabels(ctx: ControllerContext, service: Service, serviceNameLabel: string, managedByLabel: string, managedBy: string) {
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}), [serviceNameLabel]: service.metadata.name!, [managedByLabel]: managedBy };
  if (headless(service)) labels[headlessLabel(ctx)] = '';
  else delete labels[headlessLabel(ctx)];
  return labels;
}

/** the labels every slice of an owner carries, and its annotations when the controller sets them */
export interface SliceMeta { labels: Record<string, string>; annotations?: Record<string, string> }

export interface Plan { create: EndpointSlice[]; update: EndpointSlice[]; remove: EndpointSlice[] }

/** endpoints that share an address family and ports, keyed by endpointKey */
export interface SliceGroup { family: Family; ports: SlicePort[]; endpoints: Map<string, SliceEndpoint> }

/** what an endpoint is, across rewrites: the object it stands for and its address */
export const endpointKey = (e: SliceEndpoint) => `${e.targetRef?.uid ?? ''}/${e.addresses[0] ?? ''}`;

export const sortPorts = (ports: SlicePort[]) =>
  ports.map((p) => ({ ...p, name: p.name ?? '' })).sort((a, b) => compareStrings(a.name, b.name) || (a.port ?? 0) - (b.port ?? 0));

/** adds an endpoint to the group of its family and ports (in any order; the group keeps the order of its first) */
export function addToGroup(groups: Map<string, SliceGroup>, family: Family, ports: SlicePort[], endpoint: SliceEndpoint) {
  const k = `${family}/${canonicalJson(sortPorts(ports))}`;
  let g = groups.get(k);
  if (!g) groups.set(k, g = { family, ports, endpoints: new Map() });
  g.endpoints.set(endpointKey(endpoint), endpoint);
}

/** the endpoints of a Service's pods, grouped */
export function podGroups(service: Service, pods: Pod[], nodeOf: (name: string) => Node | undefined, ctx: Pick<ControllerContext, 'names'>) {
  const families = (service.spec?.ipFamilies?.length ? service.spec.ipFamilies : ['IPv4']) as Family[];
  const groups = new Map<string, SliceGroup>();
  for (const pod of pods) {
    if (!podHasEndpoint(pod, true)) continue;
    const ports: SlicePort[] = [];
    for (const sp of service.spec?.ports ?? []) {
      const port = targetPort(pod, sp);
      if (port === undefined) continue;
      ports.push({ name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
    }
    // a pod none of whose ports resolve (a named targetPort it lacks) still has its endpoint, in a slice with no
    // ports, as the reference's reconciler places it
    const hostname = endpointHostname(service, pod);
    const zone = pod.spec.nodeName ? zoneOf(nodeOf(pod.spec.nodeName), ctx) : undefined;
    for (const family of families) {
      const addresses = podAddresses(pod, family);
      if (!addresses.length) continue;
      // the slice lists the ports in the Service's order, as the reference's do
      addToGroup(groups, family, ports, {
        addresses: [addresses[0]!], conditions: endpointConditions(service, pod),
        ...(hostname ? { hostname } : {}),
        targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
        ...(pod.spec.nodeName ? { nodeName: pod.spec.nodeName } : {}),
        ...(zone ? { zone } : {}),
      });
    }
  }
  return { families, groups };
}

const groupKey = (s: EndpointSlice) => `${s.addressType}/${canonicalJson(sortPorts(s.ports ?? []))}`;

/**
 * What to create, update and delete: endpoints stay in the slice they are in where that slice still fits
 * their group; new ones fill slices with room before new slices are made; slices left empty go. With a
 * placeholder family, an owner without endpoints keeps one empty slice of that family.
 */
export function planSlices(groups: Map<string, SliceGroup>, existing: EndpointSlice[], meta: SliceMeta, max: number,
  ctx: Pick<ControllerContext, 'names'>, placeholderFamily?: Family): Plan {
  const plan: Plan = { create: [], update: [], remove: [] };
  const byGroup = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    const k = groupKey(s);
    if (!groups.has(k)) { plan.remove.push(s); continue; }
    (byGroup.get(k) ?? byGroup.set(k, []).get(k)!).push(s);
  }
  for (const [k, g] of groups) {
    const placed = new Set<string>();
    const slots: Array<{ slice?: EndpointSlice; endpoints: SliceEndpoint[] }> = [];
    for (const s of byGroup.get(k) ?? []) {
      const kept: SliceEndpoint[] = [];
      for (const e of s.endpoints ?? []) {
        const id = endpointKey(e);
        const want = g.endpoints.get(id);
        if (want && !placed.has(id) && kept.length < max) { kept.push(want); placed.add(id); }
      }
      slots.push({ slice: s, endpoints: kept });
    }
    const rest = [...g.endpoints.entries()].filter(([id]) => !placed.has(id)).map(([, e]) => e);
    for (const slot of slots) while (rest.length && slot.endpoints.length < max) slot.endpoints.push(rest.shift()!);
    while (rest.length) slots.push({ endpoints: rest.splice(0, max) });
    for (const slot of slots) {
      if (!slot.endpoints.length) { plan.remove.push(slot.slice!); continue; }
      const content = { addressType: g.family, endpoints: slot.endpoints, ports: g.ports };
      if (!slot.slice) plan.create.push({ apiVersion: `${ctx.names.group('discovery')}/v1`, kind: 'EndpointSlice', metadata: { ...meta }, ...content });
      else if (!sameSlice(slot.slice, content, meta)) plan.update.push({ ...slot.slice, metadata: { ...slot.slice.metadata, ...meta }, ...content });
    }
  }
  if (!groups.size && placeholderFamily) {
    const placeholder = { addressType: placeholderFamily, endpoints: [], ports: [] as SlicePort[] };
    const keep = existing.find((s) => !s.endpoints?.length && !s.ports?.length && s.addressType === placeholder.addressType);
    plan.remove = existing.filter((s) => s !== keep);
    if (!keep) plan.create.push({ apiVersion: `${ctx.names.group('discovery')}/v1`, kind: 'EndpointSlice', metadata: { ...meta }, ...placeholder });
    else if (!sameSlice(keep, placeholder, meta)) plan.update.push({ ...keep, metadata: { ...keep.metadata, ...meta }, ...placeholder });
  }
  return plan;
}

function sameSlice(s: EndpointSlice, want: { endpoints: SliceEndpoint[]; ports: SlicePort[] }, meta: SliceMeta) {
  const norm = (eps: SliceEndpoint[]) => canonicalJson(eps.map((e) => ({ ...e, conditions: { ready: !!e.conditions?.ready, serving: !!e.conditions?.serving, terminating: !!e.conditions?.terminating } }))
    .sort((a, b) => compareStrings(endpointKey(a), endpointKey(b))));
  return norm(s.endpoints ?? []) === norm(want.endpoints)
    && canonicalJson(sortPorts(s.ports ?? [])) === canonicalJson(sortPorts(want.ports))
    && canonicalJson(s.metadata.labels ?? {}) === canonicalJson(meta.labels)
    && (!meta.annotations || canonicalJson(s.metadata.annotations ?? {}) === canonicalJson(meta.annotations));
}
