// The scheduling queue, in the reference's shape: pods ready to be tried wait in the active queue
// (ordered by the profile's QueueSort), pods that failed wait out a back-off (1 s doubling to 10 s by
// default) in the back-off queue, and pods found unschedulable wait in the unschedulable set until a
// cluster event that could help them (a node added or changed, a pod deleted; only events the plugins
// that rejected them care about), or until they have waited five minutes. It also keeps the
// nominations made by preemption: which pods are expected on which node.
import type { ClusterEvent, QueuedPodInfo, Status } from './framework.js';
import { keyedHeap } from './heap.js';
import { podInfo, podKey, termMatches, type PodInfo } from './node-info.js';
import type { Pod } from './types.js';

export interface QueueOptions {
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
  /** PreEnqueue of the pod's profile: a status holds it back (scheduling gates) */
  preEnqueue(pod: Pod): Status | undefined;
  /** the cluster events a plugin registered */
  eventsOf(plugin: string): readonly ClusterEvent[];
  namespaceLabels(namespace: string): Record<string, string> | undefined;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** how long a pod may stay unschedulable before it is tried again anyway (default 5 minutes) */
  maxUnschedulableMs?: number;
  now?: () => number;
}

export interface SchedulingQueue {
  /** a new pod that waits to be scheduled */
  add(pod: Pod): void;
  update(old: Pod, pod: Pod): void;
  delete(pod: Pod): void;
  /** the next pod to schedule; waits while none is ready; undefined once closed */
  pop(): Promise<QueuedPodInfo | undefined>;
  /** a pod that could not be scheduled in the given cycle goes back: to wait for an event, or (errors) a back-off */
  requeue(p: QueuedPodInfo, cycle: number, failedWithError: boolean): void;
  /** unschedulable pods that the event may help are moved to the active or back-off queue */
  moveOnEvent(event: ClusterEvent, only?: (p: QueuedPodInfo) => boolean): void;
  /** a pod was bound or placed: pods whose required affinity selects it may now fit */
  assignedPodAdded(pod: Pod): void;
  /** back-off that has passed and unschedulable pods past their maximum wait are moved on */
  flush(): void;
  readonly cycle: number;
  /** pods in the active, back-off and unschedulable queues */
  counts(): { active: number; backoff: number; unschedulable: number };
  /** pods of the unschedulable set that a PreEnqueue plugin holds back (scheduling gates): never tried */
  gated(): number;
  nominate(info: PodInfo, nodeName: string | undefined): void;
  nominatedPods(nodeName: string): readonly PodInfo[];
  close(): void;
}

/** whether an update changed more than status and bookkeeping, so the pod may be worth another try */
function meaningfulChange(old: Pod, pod: Pod): boolean {
  const strip = (p: Pod) => {
    const { resourceVersion: _rv, generation: _g, managedFields: _m, ...metadata } = p.metadata;
    return JSON.stringify([metadata, p.spec]);
  };
  return strip(old) !== strip(pod);
}

const none: readonly PodInfo[] = Object.freeze([]);

export function createSchedulingQueue(o: QueueOptions): SchedulingQueue {
  const now = o.now ?? Date.now;
  const initialBackoff = o.initialBackoffMs ?? 1000;
  const maxBackoff = o.maxBackoffMs ?? 10_000;
  const maxUnschedulable = o.maxUnschedulableMs ?? 5 * 60_000;
  const key = (p: QueuedPodInfo) => p.info.key;
  const backoffDuration = (p: QueuedPodInfo) => Math.min(maxBackoff, initialBackoff * 2 ** Math.max(0, p.attempts - 1));
  const backoffExpiry = (p: QueuedPodInfo) => p.timestamp + backoffDuration(p);
  const isBackingOff = (p: QueuedPodInfo) => backoffExpiry(p) > now();

  const active = keyedHeap<QueuedPodInfo>(key, o.less);
  const backoff = keyedHeap<QueuedPodInfo>(key, (a, b) => backoffExpiry(a) < backoffExpiry(b));
  const unschedulable = new Map<string, QueuedPodInfo>();
  const nominatedByNode = new Map<string, PodInfo[]>();
  const nominatedNodeOf = new Map<string, string>();
  let cycle = 0;
  let moveRequestCycle = -1;
  let closed = false;
  let wake: (() => void) | undefined;

  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  /** into the active queue, unless a PreEnqueue plugin holds it back */
  function activate(p: QueuedPodInfo) {
    const gate = o.preEnqueue(p.info.pod);
    p.gated = !!gate;
    if (gate) {
      p.unschedulablePlugins = new Set(gate.plugin ? [gate.plugin] : []);
      unschedulable.set(key(p), p);
      return;
    }
    active.set(p);
    notify();
  }

  function moveToActiveOrBackoff(p: QueuedPodInfo) {
    unschedulable.delete(key(p));
    if (!p.gated && isBackingOff(p)) backoff.set(p);
    else activate(p);
  }

  const interested = (p: QueuedPodInfo, event: ClusterEvent) =>
    !p.unschedulablePlugins.size || [...p.unschedulablePlugins].some((name) => o.eventsOf(name).includes(event));

  function removeNomination(k: string) {
    const node = nominatedNodeOf.get(k);
    if (node === undefined) return;
    nominatedNodeOf.delete(k);
    const list = (nominatedByNode.get(node) ?? []).filter((i) => i.key !== k);
    if (list.length) nominatedByNode.set(node, list);
    else nominatedByNode.delete(node);
  }

  function nominate(info: PodInfo, nodeName: string | undefined) {
    removeNomination(info.key);
    const node = nodeName ?? info.pod.status?.nominatedNodeName;
    if (!node) return;
    nominatedNodeOf.set(info.key, node);
    nominatedByNode.set(node, [...(nominatedByNode.get(node) ?? []), info]);
  }

  const queued = (k: string) => active.get(k) ?? backoff.get(k) ?? unschedulable.get(k);

  return {
    get cycle() { return cycle; },
    add(pod) {
      const info = podInfo(pod);
      const t = now();
      const existing = queued(info.key);
      if (existing) return this.update(existing.info.pod, pod);
      nominate(info, undefined);
      activate({ info, timestamp: t, initialAttemptTimestamp: t, attempts: 0, unschedulablePlugins: new Set(), gated: false });
    },
    update(old, pod) {
      const k = podKey(pod);
      const p = queued(k);
      const info = podInfo(pod);
      // the status adds, changes or removes a nomination; one made here that no status carried yet is kept
      const keep = !old.status?.nominatedNodeName && !pod.status?.nominatedNodeName ? nominatedNodeOf.get(k) : undefined;
      if (keep !== undefined || nominatedNodeOf.has(k) || pod.status?.nominatedNodeName) nominate(info, keep);
      if (!p) {
        // not waiting anywhere (it is being scheduled, or the add was missed): it waits again
        return this.add(pod);
      }
      p.info = info;
      if (active.has(k)) return active.set(p);
      if (backoff.has(k)) return backoff.set(p);
      if (meaningfulChange(old, pod)) moveToActiveOrBackoff(p);
    },
    delete(pod) {
      const k = podKey(pod);
      active.delete(k);
      backoff.delete(k);
      unschedulable.delete(k);
      removeNomination(k);
    },
    async pop() {
      while (!closed) {
        const p = active.pop();
        if (p) {
          cycle++;
          p.attempts++;
          return p;
        }
        await new Promise<void>((r) => (wake = r));
      }
      return undefined;
    },
    requeue(p, podCycle, failedWithError) {
      if (queued(key(p))) return;
      p.timestamp = now();
      // an event came while the pod was being tried: it may help, so the pod only backs off
      if (failedWithError || moveRequestCycle >= podCycle) backoff.set(p);
      else unschedulable.set(key(p), p);
    },
    moveOnEvent(event, only) {
      for (const p of [...unschedulable.values()]) if (interested(p, event) && (!only || only(p))) moveToActiveOrBackoff(p);
      moveRequestCycle = cycle;
    },
    assignedPodAdded(pod) {
      const labels = o.namespaceLabels;
      for (const p of [...unschedulable.values()]) {
        if (p.info.requiredAffinity.some((t) => termMatches(t, pod, labels)) && interested(p, 'Pod/Add')) moveToActiveOrBackoff(p);
      }
    },
    flush() {
      const t = now();
      for (let p = backoff.peek(); p && backoffExpiry(p) <= t; p = backoff.peek()) {
        backoff.pop();
        activate(p);
      }
      for (const p of [...unschedulable.values()]) if (!p.gated && t - p.timestamp > maxUnschedulable) moveToActiveOrBackoff(p);
    },
    counts: () => ({ active: active.size, backoff: backoff.size, unschedulable: unschedulable.size }),
    gated: () => {
      let n = 0;
      for (const p of unschedulable.values()) if (p.gated) n++;
      return n;
    },
    nominate,
    nominatedPods: (nodeName) => nominatedByNode.get(nodeName) ?? none,
    close() {
      closed = true;
      notify();
    },
  };
}
