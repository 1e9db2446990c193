// The node lifecycle controller. Node health: a node whose agent has not renewed its Lease nor posted its
// status within --node-monitor-grace-period (--node-startup-grace-period for one that never reported) gets
// its conditions set to Unknown, and the pods on a node that stops being Ready are marked not ready.
// Taints follow the Ready condition: Unknown gives the `unreachable` taints, False the `not-ready` ones
// (NoSchedule and NoExecute each), True neither; a node that has never reported keeps what admission gave it.
// Taint-based eviction: a pod on a node with NoExecute taints it does not tolerate is deleted; one that
// tolerates them for tolerationSeconds is deleted once that time has passed since the taint was added.
// As the reference, the NoExecute taints of the Ready condition wait on the health of the node's zone: when
// every zone has no Ready node (one node down in a one-node cluster, or the control plane cut off from all
// nodes) none is added and those there are lifted; otherwise they are added at --node-eviction-rate nodes a second
// per zone, at --secondary-node-eviction-rate in a large zone mostly not Ready, not at all in a small one.
import { nowTimestamp } from '../api/meta.js';
import { createEventRecorder } from '../client/events.js';
import { nodeNameIndex } from '../client/informer.js';
import { isConflict, isNotFound } from '../client/rest-client.js';
import { ignoreNotFound, keyOf, podCondition, podFinished, setCondition, splitKey, startQueue, toleratesTaint } from './common.js';
import type { Controller, ControllerContext, ControllerSettings } from './context.js';
import type { Condition, Node, Pod, Taint } from './types.js';

/** the conditions an agent reports that go Unknown when it stops reporting */
const agentConditions = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

export const nodeLifecycleController: Controller = {
  name: 'nodelifecycle',
  component: 'node-controller',
  start(ctx) {
    const s = ctx.settings;
    const taintKey = (k: string) => `node.${ctx.names.labelDomain}/${k}`;
    const notReady = taintKey('not-ready');
    const unreachable = taintKey('unreachable');
    const nodes = ctx.informers.informer(ctx.refs.nodes);
    const leases = ctx.informers.informer(ctx.refs.nodeLeases);
    const pods = ctx.informers.informer(ctx.refs.pods);
    pods.addIndex('node', nodeNameIndex);

    const readyOf = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready');
    /** what the controller last heard from each node: the lease renewal and status heartbeat, and when it heard it */
    const heard = new Map<string, { lease?: string; heartbeat?: string; at: number }>();
    const lastReady = new Map<string, string | undefined>();
    /** each node's zone and whether it counts as Ready, for the zones' disruption states */
    const health = new Map<string, { zone: string; ready: boolean }>();
    let disruption = disruptionOf(health.values(), s.unhealthyZoneThreshold);
    const limiter = zoneLimiter();
    const noteHealth = (name: string, n: Node | undefined) => {
      const was = health.get(name);
      if (!n || n.metadata.labels?.[`node.${ctx.names.labelDomain}/exclude-disruption`] !== undefined) health.delete(name);
      else health.set(name, { zone: zoneKey(n, ctx.names.labelDomain), ready: readyOf(n)?.status === 'True' });
      const now = health.get(name);
      // most updates are heartbeats, which change nothing here
      if (was?.zone === now?.zone && was?.ready === now?.ready) return;
      const next = disruptionOf(health.values(), s.unhealthyZoneThreshold);
      if (sameDisruption(next, disruption)) return;
      disruption = next;
      // as the reference swaps in a new rate limiter (a full one) for each zone whose state changes
      limiter.reset();
      // the zones' states decide the NoExecute taints of every node
      for (const other of nodes.list()) taints.add(other.metadata.name!);
    };

    // ---- health ----
    const monitor = startQueue(ctx, async (name) => {
      const node = nodes.get(name);
      if (!node) { heard.delete(name); return; }
      const lease = leases.get(`${ctx.names.nodeLeaseNamespace}/${name}`)?.spec?.renewTime ?? undefined;
      const ready = readyOf(node);
      const heartbeat = ready?.lastHeartbeatTime ?? undefined;
      const prev = heard.get(name);
      if (!prev || prev.lease !== lease || prev.heartbeat !== heartbeat) heard.set(name, { lease, heartbeat, at: Date.now() });
      const since = heard.get(name)!.at;
      const grace = ready ? s.nodeMonitorGracePeriodMs : s.nodeStartupGracePeriodMs;
      const left = since + grace - Date.now();
      if (left > 0) return { requeueAfterMs: Math.min(left + 10, s.nodeMonitorPeriodMs) };
      if (ready?.status === 'Unknown') return { requeueAfterMs: s.nodeMonitorPeriodMs };
      // silent past the grace period: every condition the agent reports becomes Unknown
      // (each by itself: one the agent never posted says so; one already Unknown is left as it is)
      const now = nowTimestamp();
      type NodeCondition = Condition & { lastHeartbeatTime?: string | null };
      let conditions = node.status?.conditions as NodeCondition[] | undefined;
      for (const type of agentConditions) {
        const cur = conditions?.find((c) => c.type === type);
        if (cur?.status === 'Unknown') continue;
        const unknown = cur
          ? { ...cur, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }
          : { type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata.creationTimestamp };
        conditions = setCondition(conditions, unknown as NodeCondition, now);
      }
      try {
        await ctx.client.resource(ctx.refs.nodes).status.update({ ...node, status: { ...node.status, conditions } } as Node);
        ctx.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: node.metadata }, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      } catch (e) {
        if (!isConflict(e)) ignoreNotFound(e);
        return { requeueAfterMs: 100 };
      }
      return { requeueAfterMs: s.nodeMonitorPeriodMs };
    });

    // ---- taints from the Ready condition, and pods marked not ready on a node that stops being Ready ----
    const readyTaints = (n: Node): Taint[] | undefined => {
      const status = readyOf(n)?.status;
      if (status === 'True') return [];
      if (status === 'False') return [{ key: notReady, effect: 'NoSchedule' }, { key: notReady, effect: 'NoExecute' }];
      if (status === 'Unknown') return [{ key: unreachable, effect: 'NoSchedule' }, { key: unreachable, effect: 'NoExecute' }];
      return undefined;
    };
    // a pressure the agent reports, or a cordon, keeps new pods off the node with a NoSchedule taint of its own
    const pressureTaints: Record<string, string> = {
      MemoryPressure: taintKey('memory-pressure'), DiskPressure: taintKey('disk-pressure'), PIDPressure: taintKey('pid-pressure'),
      NetworkUnavailable: taintKey('network-unavailable'),
    };
    const unschedulable = taintKey('unschedulable');
    const noScheduleKeys = new Set([...Object.values(pressureTaints), unschedulable]);
    const otherTaints = (n: Node): Taint[] => [
      ...(n.status?.conditions ?? []).flatMap((c) => (c.status === 'True' && pressureTaints[c.type] ? [{ key: pressureTaints[c.type], effect: 'NoSchedule' as const }] : [])),
      ...(n.spec?.unschedulable ? [{ key: unschedulable, effect: 'NoSchedule' as const }] : []),
    ];
    /** the taints this controller keeps on the node */
    const condTaints = (n: Node): Taint[] => {
      const ready = readyTaints(n);
      // a node that has never reported keeps the Ready taints admission gave it
      return ready ? [...ready, ...otherTaints(n)] : otherTaints(n);
    };
    const oursFor = (n: Node) => (t: Taint) =>
      ((t.key === notReady || t.key === unreachable) && readyTaints(n) !== undefined && (t.effect === 'NoSchedule' || t.effect === 'NoExecute'))
      || (noScheduleKeys.has(t.key) && t.effect === 'NoSchedule');
    const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
    const taints = startQueue(ctx, async (name) => {
      const node = nodes.get(name);
      if (!node) { lastReady.delete(name); return; }
      const status = readyOf(node)?.status;
      const was = lastReady.get(name);
      lastReady.set(name, status);
      if (was === 'True' && status !== 'True') await markPodsNotReady(ctx, pods.byIndex('node', name));
      const current = node.spec?.taints ?? [];
      // the NoExecute taint of the Ready condition: lifted when every zone is down, else added at the zone's rate;
      // one taking the place of the other (not-ready for unreachable, or back) goes at once
      const zone = zoneKey(node, ctx.names.labelDomain);
      const rate = taintRate(disruption, zone, s);
      const readyNoExecute = (t: Taint) => t.effect === 'NoExecute' && (t.key === notReady || t.key === unreachable);
      let wait = 0;
      const admit = (t: Taint) => {
        if (!readyNoExecute(t)) return true;
        if (rate === 'lift') return false;
        if (current.some(readyNoExecute)) return true;
        wait = limiter.take(zone, rate, Date.now());
        return wait === 0;
      };
      const want = condTaints(node).filter(admit);
      const ours = oursFor(node);
      const kept = current.filter((t) => !ours(t) || want.some((w) => sameTaint(w, t)));
      const added = want.filter((w) => !current.some((t) => sameTaint(w, t))).map((t) => ({ ...t, timeAdded: nowTimestamp() }));
      // at rate 0 the node waits for the zone's state to change, which looks at every node again
      const later = wait > 0 && wait !== Infinity ? { requeueAfterMs: wait } : undefined;
      if (!added.length && kept.length === current.length) return later;
      const next = [...kept, ...added];
      // the resourceVersion makes it a compare-and-swap: a node changed meanwhile is looked at again
      await ctx.client.resource(ctx.refs.nodes).patch(name, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints: next.length ? next : null } }, 'merge')
        .catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
      return later;
    });

    // ---- eviction by NoExecute taints ----
    // when a pod's wait began, for taints that carry no timeAdded (as `kubectl taint` writes them)
    const waitingSince = new Map<string, number>();
    // the reference's taint manager reports its evictions as a component of its own
    const taintEvents = createEventRecorder(ctx.client, { names: ctx.names, component: 'taint-controller', log: (m) => ctx.log.warn(m) });
    const evictions = startQueue(ctx, async (key) => {
      const [namespace, podName] = splitKey(key);
      const pod = pods.get(key);
      const node = pod?.spec.nodeName ? nodes.get(pod.spec.nodeName) : undefined;
      const noExecute = (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
      const now = Date.now();
      if (!pod || pod.metadata.deletionTimestamp || podFinished(pod)) { waitingSince.delete(key); return; }
      // an eviction waiting on tolerationSeconds that no longer will happen is told, as the reference tells it
      const cancel = () => {
        if (waitingSince.delete(key)) taintEvents.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
      };
      if (!noExecute.length) return cancel();
      const wait = tolerationWait(pod, noExecute, now, waitingSince.get(key) ?? now);
      if (wait === Infinity) return cancel();
      if (wait > 0) { if (!waitingSince.has(key)) waitingSince.set(key, now); return { requeueAfterMs: wait + 10 }; }
      waitingSince.delete(key);
      const podClient = ctx.client.resource(ctx.refs.pods, namespace);
      taintEvents.event({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata }, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
      // the pod says why it goes before it goes, as the reference does
      const conditions = setCondition(pod.status?.conditions as Condition[] | undefined,
        { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' }, nowTimestamp());
      await podClient.status.patch(podName, { metadata: { uid: pod.metadata.uid }, status: { conditions } }, 'strategic').catch(ignoreNotFound);
      await podClient.delete(podName, { preconditions: { uid: pod.metadata.uid } }).catch(ignoreNotFound);
    });

    // as the reference, every node this controller comes to know (all of them at its start) and every node deleted is
    // told in an event on the node, which kubectl describe node shows
    const nodeEvent = (n: Node, reason: string, what: string) =>
      ctx.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: n.metadata.name, uid: n.metadata.uid } }, 'Normal', reason, `Node ${n.metadata.name} event: ${what}`);
    nodes.addHandler({
      added: (n) => {
        nodeEvent(n, 'RegisteredNode', `Registered Node ${n.metadata.name} in Controller`);
        monitor.add(n.metadata.name!);
        taints.add(n.metadata.name!);
        noteHealth(n.metadata.name!, n);
      },
      updated: (old, n) => {
        monitor.add(n.metadata.name!);
        noteHealth(n.metadata.name!, n);
        taints.add(n.metadata.name!);
        const noExec = (x: Node) => JSON.stringify((x.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute'));
        if (noExec(old) !== noExec(n)) for (const p of pods.byIndex('node', n.metadata.name!)) evictions.add(keyOf(p));
      },
      deleted: (n) => {
        nodeEvent(n, 'RemovingNode', `Removing Node ${n.metadata.name} from Controller`);
        monitor.add(n.metadata.name!);
        taints.add(n.metadata.name!);
        noteHealth(n.metadata.name!, undefined);
      },
    });
    leases.addHandler({
      added: (l) => { if (l.metadata.namespace === ctx.names.nodeLeaseNamespace) monitor.add(l.metadata.name!); },
      updated: (_, l) => { if (l.metadata.namespace === ctx.names.nodeLeaseNamespace) monitor.add(l.metadata.name!); },
    });
    // a pod that comes to a node already not Ready (bound there later, or seen at the controller's start) is marked
    // not ready too, as the reference's pod updates are
    const bound = startQueue(ctx, async (key) => {
      const pod = pods.get(key);
      const node = pod?.spec.nodeName ? nodes.get(pod.spec.nodeName) : undefined;
      const ready = node && readyOf(node);
      if (pod && ready && ready.status !== 'True') await markPodsNotReady(ctx, [pod]);
    });
    pods.addHandler({
      added: (p) => { if (p.spec.nodeName) { evictions.add(keyOf(p)); bound.add(keyOf(p)); } },
      updated: (old, p) => {
        if (p.spec.nodeName && (old.spec.nodeName !== p.spec.nodeName || JSON.stringify(old.spec.tolerations) !== JSON.stringify(p.spec.tolerations))) evictions.add(keyOf(p));
        if (p.spec.nodeName && old.spec.nodeName !== p.spec.nodeName) bound.add(keyOf(p));
      },
    });
  },
};

/** a node's zone as the reference keys it: region and zone labels, the beta ones when the GA ones are absent */
export function zoneKey(n: Node, labelDomain: string): string {
  const l = n.metadata.labels ?? {};
  const zone = l[`topology.${labelDomain}/zone`] ?? l[`failure-domain.beta.${labelDomain}/zone`] ?? '';
  const region = l[`topology.${labelDomain}/region`] ?? l[`failure-domain.beta.${labelDomain}/region`] ?? '';
  return region || zone ? `${region}:\0:${zone}` : '';
}

export type ZoneState = 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** each zone's state by how many of its nodes are Ready, and its size */
export interface Disruption { zones: Map<string, { state: ZoneState; size: number }>; allFull: boolean }

export function disruptionOf(nodes: Iterable<{ zone: string; ready: boolean }>, unhealthyZoneThreshold: number): Disruption {
  const counts = new Map<string, { ready: number; notReady: number }>();
  for (const n of nodes) {
    const c = counts.get(n.zone) ?? { ready: 0, notReady: 0 };
    if (n.ready) c.ready++; else c.notReady++;
    counts.set(n.zone, c);
  }
  const zones = new Map<string, { state: ZoneState; size: number }>();
  for (const [zone, c] of counts) {
    const size = c.ready + c.notReady;
    const state: ZoneState = c.ready === 0 ? 'FullDisruption'
      : c.notReady > 2 && c.notReady / size >= unhealthyZoneThreshold ? 'PartialDisruption' : 'Normal';
    zones.set(zone, { state, size });
  }
  return { zones, allFull: zones.size > 0 && [...zones.values()].every((z) => z.state === 'FullDisruption') };
}

const sameDisruption = (a: Disruption, b: Disruption) => a.allFull === b.allFull && a.zones.size === b.zones.size
  && [...a.zones].every(([k, z]) => b.zones.get(k)?.state === z.state && (z.state !== 'PartialDisruption' || b.zones.get(k)?.size === z.size));

export type EvictionSettings = Pick<ControllerSettings, 'nodeEvictionRate' | 'secondaryNodeEvictionRate' | 'largeClusterSizeThreshold'>;

/**
 * How many nodes a second of the zone may get the NoExecute taint of their Ready condition: the eviction rate, in a
 * zone in partial disruption the secondary rate when it has more nodes than the large-cluster threshold, else 0
 * (those there stay); `lift` when every zone is fully disrupted (those there are removed).
 */
export function taintRate(d: Disruption, zone: string, s: EvictionSettings): number | 'lift' {
  if (d.allFull) return 'lift';
  const z = d.zones.get(zone);
  if (z?.state !== 'PartialDisruption') return s.nodeEvictionRate;
  return z.size > s.largeClusterSizeThreshold ? s.secondaryNodeEvictionRate : 0;
}

/** a token bucket of one token per zone: `take` answers 0 when a node may be tainted now (the token taken), else
 *  the milliseconds until it may (Infinity at rate 0) */
export function zoneLimiter() {
  const nextAt = new Map<string, number>();
  return {
    take(zone: string, rate: number, now: number): number {
      if (!(rate > 0)) return Infinity;
      const at = nextAt.get(zone) ?? 0;
      if (now < at) return at - now;
      nextAt.set(zone, now + 1000 / rate);
      return 0;
    },
    reset() { nextAt.clear(); },
  };
}

/**
 * How long a pod may stay on a node with these NoExecute taints: 0 when one is not tolerated (or the time is
 * up), Infinity when all are tolerated for ever, else the milliseconds left of the shortest tolerationSeconds
 * counted from when the taints were added (`since` for a taint that does not say).
 */
export function tolerationWait(pod: Pod, taints: Taint[], now = Date.now(), since = now): number {
  let seconds = Infinity;
  let start = 0;
  for (const taint of taints) {
    const matching = (pod.spec.tolerations ?? []).filter((t) => toleratesTaint(t, taint));
    if (!matching.length) return 0;
    for (const t of matching) if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null) seconds = Math.min(seconds, Math.max(0, t.tolerationSeconds));
    start = Math.max(start, Date.parse(taint.timeAdded ?? '') || since);
  }
  if (seconds === Infinity) return Infinity;
  return Math.max(0, start + seconds * 1000 - now);
}

/** the Ready condition of the node's pods goes False (its reason and message as they were), so endpoints stop sending
 *  them traffic; each pod is told in a NodeNotReady event, as the reference does */
async function markPodsNotReady(ctx: ControllerContext, list: Pod[]) {
  const now = nowTimestamp();
  await Promise.all(list.filter((p) => podCondition(p, 'Ready')?.status === 'True' && !podFinished(p)).map(async (p) => {
    const ready = podCondition(p, 'Ready') as Condition;
    const conditions = setCondition(p.status?.conditions as Condition[] | undefined, { ...ready, status: 'False' }, now);
    const written = await ctx.client.resource(ctx.refs.pods, p.metadata.namespace)
      .status.patch(p.metadata.name!, { metadata: { uid: p.metadata.uid }, status: { conditions } }, 'strategic')
      .then(() => true, (e) => { ignoreNotFound(e); return false; });
    if (written) ctx.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: p.metadata }, 'Warning', 'NodeNotReady', 'Node is not ready');
  }));
}
