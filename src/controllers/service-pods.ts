// What the Endpoints and EndpointSlice controllers share: which Services they manage, which pods back a
// Service, the port each Service port reaches on a pod, and a queue of Services told of every pod change
// that can alter their endpoints.
import type { SharedInformer } from '../client/informer.js';
import type { SyncResult, WorkQueue } from '../client/workqueue.js';
import { keyOf, podFinished, podReady, startQueue } from './common.js';
import type { ControllerContext } from './context.js';
import type { Pod, Service, ServicePort } from './types.js';

/** a Service whose endpoints a controller computes: one with a selector that is not an ExternalName */
export const managedService = (s: Service) =>
  s.spec?.type !== 'ExternalName' && !!s.spec?.selector && Object.keys(s.spec.selector).length > 0;

export const headless = (s: Service) => s.spec?.clusterIP === 'None';

export const selectsPod = (s: Service, p: Pod) =>
  p.metadata.namespace === s.metadata.namespace && managedService(s)
  && Object.entries(s.spec!.selector!).every(([k, v]) => p.metadata.labels?.[k] === v);

/** a pod has endpoints once it has an address and until it finished; terminating pods only where asked */
export const podHasEndpoint = (p: Pod, includeTerminating: boolean) =>
  !!(p.status?.podIP || p.status?.podIPs?.length) && !podFinished(p) && (includeTerminating || !p.metadata.deletionTimestamp);

/** the pod's addresses of one family */
export function podAddresses(p: Pod, family: 'IPv4' | 'IPv6'): string[] {
  const all = p.status?.podIPs?.length ? p.status.podIPs.map((i) => i.ip ?? '') : p.status?.podIP ? [p.status.podIP] : [];
  return all.filter((ip) => ip && ip.includes(':') === (family === 'IPv6'));
}

/** the pod port a Service port reaches: its number, or the container port of that name; undefined when none */
export function targetPort(p: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  const protocol = sp.protocol ?? 'TCP';
  for (const c of p.spec.containers ?? []) {
    for (const cp of c.ports ?? []) if (cp.name === target && (cp.protocol ?? 'TCP') === protocol) return cp.containerPort;
  }
  return undefined;
}

/** the name a pod answers to in a Service's DNS: its hostname, when its subdomain is the Service */
export const endpointHostname = (s: Service, p: Pod) =>
  p.spec.hostname && p.spec.subdomain === s.metadata.name ? p.spec.hostname : undefined;

/** serving: ready, whatever its termination; ready: serving and not terminating (or the Service publishes all) */
export function endpointConditions(s: Service, p: Pod) {
  const terminating = !!p.metadata.deletionTimestamp;
  const serving = podReady(p);
  return { ready: s.spec?.publishNotReadyAddresses ? true : serving && !terminating, serving, terminating };
}

export interface ServicePods {
  services: SharedInformer<Service>;
  pods: SharedInformer<Pod>;
  queue: WorkQueue<string>;
  /** the pods a Service selects */
  selected(s: Service): Pod[];
}

/**
 * A Service queue fed by Service changes and by every pod change that can alter a Service's endpoints
 * (labels, readiness, addresses, termination), for the Services that select the pod before or after.
 */
export function watchServicePods(ctx: ControllerContext, sync: (key: string) => Promise<SyncResult | void>): ServicePods {
  const services = ctx.informers.informer(ctx.refs.services);
  const pods = ctx.informers.informer(ctx.refs.pods);
  const queue = startQueue(ctx, sync);
  const enqueueFor = (p: Pod) => {
    for (const s of services.list(p.metadata.namespace)) if (selectsPod(s, p)) queue.add(keyOf(s));
  };
  services.addHandler({
    added: (s) => queue.add(keyOf(s)),
    updated: (_, s) => queue.add(keyOf(s)),
    deleted: (s) => queue.add(keyOf(s)),
  });
  pods.addHandler({
    added: enqueueFor,
    updated: (old, cur) => {
      if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
      enqueueFor(cur);
      if (JSON.stringify(old.metadata.labels) !== JSON.stringify(cur.metadata.labels)) enqueueFor(old);
    },
    deleted: enqueueFor,
  });
  return {
    services, pods, queue,
    selected: (s) => pods.list(s.metadata.namespace).filter((p) => selectsPod(s, p)),
  };
}
