// The scheduler's picture of the cluster: nodes with the pods placed on them. A pod chosen for a node
// is assumed there at once, before its binding is written, so the next pods see it; the watch of
// pods later confirms it, and a failed binding forgets it. Nodes are listed zone by zone in turn, so
// that evaluating part of the nodes still spreads over zones.
import {
  addPod as addToNode, newNodeInfo, podInfo, podKey, removePod as removeFromNode, setNode,
  type NodeInfo, type PodInfo,
} from './node-info.js';
import type { Node, Pod } from './types.js';

export interface SchedulerCache {
  addNode(node: Node): void;
  updateNode(node: Node): void;
  removeNode(node: Node): void;
  /** a pod bound to a node, as the watch reports it (confirms an assumed pod) */
  addPod(pod: Pod): void;
  updatePod(pod: Pod): void;
  removePod(pod: Pod): void;
  /** places the pod on the node before its binding is written */
  assume(info: PodInfo, nodeName: string): void;
  /** takes an assumed pod off its node again (its binding failed) */
  forget(info: PodInfo): void;
  isAssumed(pod: Pod): boolean;
  /** the nodes, zone by zone in turn */
  nodes(): NodeInfo[];
  node(name: string): NodeInfo | undefined;
  /** the node a pod is on (bound or assumed) */
  nodeOf(pod: Pod): string | undefined;
  readonly podCount: number;
}

export function createSchedulerCache(zoneLabels: readonly string[]): SchedulerCache {
  /** every node known, and placeholders for pods that name a node not seen yet */
  const infos = new Map<string, NodeInfo>();
  const present = new Set<string>();
  const placed = new Map<string, { info: PodInfo; node: string }>();
  const assumed = new Set<string>();
  let ordered: NodeInfo[] | undefined;

  const zoneOf = (n: NodeInfo) => {
    for (const l of zoneLabels) {
      const v = n.node.metadata.labels?.[l];
      if (v !== undefined) return v;
    }
    return '';
  };

  function order(): NodeInfo[] {
    const byZone = new Map<string, NodeInfo[]>();
    for (const name of present) {
      const n = infos.get(name)!;
      const z = zoneOf(n);
      const list = byZone.get(z);
      if (list) list.push(n);
      else byZone.set(z, [n]);
    }
    const zones = [...byZone.values()];
    const out: NodeInfo[] = [];
    for (let i = 0; out.length < present.size; i++) for (const z of zones) if (i < z.length) out.push(z[i]!);
    return out;
  }

  const infoFor = (name: string) => {
    let n = infos.get(name);
    if (!n) infos.set(name, (n = newNodeInfo({ metadata: { name } })));
    return n;
  };

  const dropIfEmpty = (name: string) => {
    const n = infos.get(name);
    if (n && !present.has(name) && !n.pods.length) infos.delete(name);
  };

  function place(info: PodInfo, node: string) {
    addToNode(infoFor(node), info);
    placed.set(info.key, { info, node });
  }

  function unplace(key: string) {
    const p = placed.get(key);
    if (!p) return;
    placed.delete(key);
    assumed.delete(key);
    const n = infos.get(p.node);
    if (n) removeFromNode(n, key);
    dropIfEmpty(p.node);
  }

  return {
    addNode(node) {
      const name = node.metadata.name ?? '';
      const existing = infos.get(name);
      if (existing) setNode(existing, node);
      else infos.set(name, newNodeInfo(node));
      if (!present.has(name)) ordered = undefined;
      present.add(name);
    },
    updateNode(node) {
      const before = infos.get(node.metadata.name ?? '');
      const zoneBefore = before && present.has(before.name) ? zoneOf(before) : undefined;
      this.addNode(node);
      if (zoneBefore !== undefined && zoneBefore !== zoneOf(infos.get(node.metadata.name ?? '')!)) ordered = undefined;
    },
    removeNode(node) {
      const name = node.metadata.name ?? '';
      if (present.delete(name)) ordered = undefined;
      dropIfEmpty(name);
    },
    addPod(pod) {
      const key = podKey(pod);
      const existing = placed.get(key);
      if (existing && assumed.has(key) && existing.node === pod.spec.nodeName && existing.info.pod.metadata.uid === pod.metadata.uid) {
        // the assumed pod is confirmed: keep its place, take the stored object
        assumed.delete(key);
        removeFromNode(infos.get(existing.node)!, key);
        // what it asks for was parsed when it was assumed; a binding changes nothing of it
        place({ ...existing.info, pod }, existing.node);
        return;
      }
      unplace(key);
      if (pod.spec.nodeName) place(podInfo(pod), pod.spec.nodeName);
    },
    updatePod(pod) {
      this.addPod(pod);
    },
    removePod(pod) {
      unplace(podKey(pod));
    },
    assume(info, nodeName) {
      unplace(info.key);
      const pod = { ...info.pod, spec: { ...info.pod.spec, nodeName } };
      place({ ...info, pod }, nodeName);
      assumed.add(info.key);
    },
    forget(info) {
      if (assumed.has(info.key)) unplace(info.key);
    },
    isAssumed: (pod) => assumed.has(podKey(pod)),
    nodes() {
      ordered ??= order();
      return ordered;
    },
    node: (name) => (present.has(name) ? infos.get(name) : undefined),
    nodeOf: (pod) => placed.get(podKey(pod))?.node,
    get podCount() { return placed.size; },
  };
}
