// The EndpointSlice mirroring controller: the Endpoints of a Service without a selector (written by someone
// else than the Endpoints controller) are mirrored to EndpointSlices, so that consumers of slices see them too.
// The slices are owned by the Endpoints, labelled with the Service's name and managed by
// `endpointslicemirroring-controller.<domain>`; they carry the Endpoints' labels and annotations. Each subset's
// addresses become endpoints (ready or not, as listed), grouped by address family and ports, at most
// --mirroring-max-endpoints-per-subset of each subset and to a slice. Endpoints labelled
// `endpointslice.<domain>/skip-mirror: "true"` (the server's own) are left alone, as in the reference.
import { isIP } from 'node:net';
import { keyOf, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import { addToGroup, planSlices, sliceWriter, type Family, type SliceGroup } from './endpointslice.js';
import type { Endpoints, Service } from './types.js';

/** annotations of the Endpoints that say something of that object only: the last applied configuration and the time of its last change */
const notMirroredAnnotations = (ctx: Pick<ControllerContext, 'names'>) =>
  [...ctx.names.lastAppliedAnnotations, `endpoints.${ctx.names.labelDomain}/last-change-trigger-time`];

/** mirrored: the Service exists, selects nothing, and the Endpoints do not ask to be skipped */
const mirrored = (ep: Endpoints | undefined, svc: Service | undefined, skipLabel: string): ep is Endpoints =>
  !!ep && !!svc && !Object.keys(svc.spec?.selector ?? {}).length && ep.metadata.labels?.[skipLabel] !== 'true';

/** every subset's addresses, grouped by family and ports; at most `max` of each subset */
export function endpointsGroups(ep: Endpoints, max: number): Map<string, SliceGroup> {
  const groups = new Map<string, SliceGroup>();
  for (const subset of ep.subsets ?? []) {
    // in the order the Endpoints list them, as the reference mirrors them
    const ports = (subset.ports ?? []).map((p) => ({
      name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}),
    }));
    const listed = [...(subset.addresses ?? []).map((a) => ({ a, ready: true })), ...(subset.notReadyAddresses ?? []).map((a) => ({ a, ready: false }))];
    for (const { a, ready } of listed.slice(0, max)) {
      const family = ({ 4: 'IPv4', 6: 'IPv6' } as Record<number, Family | undefined>)[isIP(a.ip)];
      if (!family) continue;
      addToGroup(groups, family, ports, {
        addresses: [a.ip], conditions: { ready },
        ...(a.hostname ? { hostname: a.hostname } : {}),
        ...(a.nodeName ? { nodeName: a.nodeName } : {}),
        ...(a.targetRef ? { targetRef: a.targetRef } : {}),
      });
    }
  }
  return groups;
}

export const endpointSliceMirroringController: Controller = {
  name: 'endpointslicemirroring',
  component: 'endpointslice-mirroring-controller',
  serviceAccount: 'endpointslicemirroring-controller',
  start(ctx) {
    const skipLabel = `endpointslice.${ctx.names.labelDomain}/skip-mirror`;
    const managedBy = `endpointslicemirroring-controller.${ctx.names.domain}`;
    const endpoints = ctx.informers.informer(ctx.refs.endpoints);
    const services = ctx.informers.informer(ctx.refs.services);
    const slices = ctx.informers.informer(ctx.refs.endpointSlices);
    const writer = sliceWriter(ctx, slices, managedBy);
    const queue = startQueue(ctx, async (key) => {
      if (!writer.caughtUp(key)) return { requeueAfterMs: 50 };
      const ep = endpoints.get(key);
      const owned = writer.owned(key).filter((s) => ep && s.metadata.ownerReferences?.some((r) => r.uid === ep.metadata.uid));
      if (!mirrored(ep, services.get(key), skipLabel)) {
        // slices of Endpoints that are gone are the garbage collector's; those of ones no longer mirrored go now
        return writer.write(key, { create: [], update: [], remove: owned });
      }
      const labels = { ...ep.metadata.labels, [ctx.names.label('service-name')]: ep.metadata.name!, [writer.managedByLabel]: managedBy };
      const annotations = Object.fromEntries(Object.entries(ep.metadata.annotations ?? {}).filter(([k]) => !notMirroredAnnotations(ctx).includes(k)));
      const plan = planSlices(endpointsGroups(ep, ctx.settings.mirroringMaxEndpointsPerSubset), owned, { labels, annotations }, ctx.settings.mirroringMaxEndpointsPerSubset, ctx);
      return writer.write(key, plan, { apiVersion: 'v1', kind: 'Endpoints', name: ep.metadata.name!, uid: ep.metadata.uid!, controller: true, blockOwnerDeletion: true });
    });
    const enqueue = (o: Endpoints | Service) => queue.add(keyOf(o));
    endpoints.addHandler({ added: enqueue, updated: (_, o) => enqueue(o), deleted: enqueue });
    services.addHandler({ added: enqueue, updated: (_, o) => enqueue(o), deleted: enqueue });
    writer.onForeignChange((k) => queue.add(k));
  },
};
