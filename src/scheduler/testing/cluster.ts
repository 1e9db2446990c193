// Test fixtures for the scheduler's unit tests: nodes and pods in a few words, and a scheduler whose
// writes are applied to an in-memory cluster and fed back as watch events, as the API server would.
import { naming } from '../../api/naming.js';
import type { EventRecorder, SchedulerWrites } from '../framework.js';
import { podKey } from '../node-info.js';
import type { ProfileConfig } from '../profiles.js';
import { assembleScheduler, type AssembledScheduler } from '../assemble.js';
import type { Affinity, Container, CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, SelectingObject, StorageClass, Taint, Toleration, TopologySpreadConstraint } from '../types.js';

export const names = naming();
export const hostnameLabel = names.label('hostname');
export const zoneLabel = `topology.${names.labelDomain}/zone`;

export interface NodeOptions {
  cpu?: string; memory?: string; pods?: string; labels?: Record<string, string>; taints?: Taint[]; unschedulable?: boolean;
  extra?: Record<string, string>;
  /** node.status.images: names and size in bytes */
  images?: { names: string[]; sizeBytes: number }[];
}

export function node(name: string, o: NodeOptions = {}): Node {
  const allocatable = { cpu: o.cpu ?? '4', memory: o.memory ?? '32Gi', pods: o.pods ?? '110', ...o.extra };
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, uid: `uid-${name}`, labels: { [hostnameLabel]: name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity: allocatable, allocatable, ...(o.images ? { images: o.images } : {}) },
  };
}

export interface PodOptions {
  namespace?: string; cpu?: string; memory?: string; labels?: Record<string, string>; priority?: number; nodeName?: string;
  affinity?: Affinity; tolerations?: Toleration[]; hostPorts?: number[]; spread?: TopologySpreadConstraint[];
  nodeSelector?: Record<string, string>; schedulerName?: string; startTime?: string; initContainers?: Container[];
  overhead?: Record<string, string>; preemptionPolicy?: 'Never' | 'PreemptLowerPriority'; gates?: string[]; nominatedNodeName?: string;
}

let uids = 0;

export function pod(name: string, o: PodOptions = {}): Pod {
  const requests = { ...(o.cpu ? { cpu: o.cpu } : {}), ...(o.memory ? { memory: o.memory } : {}) };
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', uid: `uid-${name}-${++uids}`, labels: o.labels ?? {} },
    spec: {
      schedulerName: o.schedulerName ?? 'default-scheduler',
      containers: [{
        name: 'c', image: 'busybox',
        ...(Object.keys(requests).length ? { resources: { requests } } : {}),
        ...(o.hostPorts ? { ports: o.hostPorts.map((p) => ({ containerPort: p, hostPort: p, protocol: 'TCP' })) } : {}),
      }],
      ...(o.initContainers ? { initContainers: o.initContainers } : {}),
      ...(o.overhead ? { overhead: o.overhead } : {}),
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.affinity ? { affinity: o.affinity } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.spread ? { topologySpreadConstraints: o.spread } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.gates ? { schedulingGates: o.gates.map((g) => ({ name: g })) } : {}),
      priority: o.priority ?? 0,
      ...(o.preemptionPolicy ? { preemptionPolicy: o.preemptionPolicy } : {}),
    },
    status: { phase: 'Pending', ...(o.startTime ? { startTime: o.startTime } : {}), ...(o.nominatedNodeName ? { nominatedNodeName: o.nominatedNodeName } : {}) },
  };
}

export interface RecordedEvent { pod: string; type: string; reason: string; note: string }

export interface FakeCluster {
  s: AssembledScheduler;
  pods: Map<string, Pod>;
  events: RecordedEvent[];
  deleted: string[];
  /** adds pods waiting to be scheduled (or placed, with nodeName) */
  add(...pods: Pod[]): void;
  /** schedules until no pod is ready to be tried and the bindings have ended */
  run(): Promise<void>;
  /** where the pod is bound, or undefined */
  nodeOf(name: string, namespace?: string): string | undefined;
  /** the pod's PodScheduled condition message */
  message(name: string, namespace?: string): string | undefined;
}

export interface FakeClusterOptions {
  nodes?: Node[];
  profiles?: ProfileConfig[];
  namespaces?: Record<string, Record<string, string>>;
  selecting?: SelectingObject[];
  pdbs?: PodDisruptionBudget[];
  percentageOfNodesToScore?: number;
  /** a bind that fails */
  failBind?: (pod: Pod) => boolean;
  /** volumes, claims and classes, kept by name (claims by namespace/name) and changed in place by the plugins' writes */
  volumes?: Map<string, PersistentVolume>;
  claims?: Map<string, PersistentVolumeClaim>;
  classes?: Map<string, StorageClass>;
  /** CSINodes by node name */
  csiNodes?: Map<string, CSINode>;
}

/** merges a status patch as the API server's strategic merge does for pod conditions (by type) */
function applyStatusPatch(pod: Pod, patch: { status?: Record<string, any> }): Pod {
  const status = { ...pod.status };
  for (const [k, v] of Object.entries(patch.status ?? {})) {
    if (k === 'conditions') {
      const byType = new Map((status.conditions ?? []).map((c) => [c.type, c]));
      for (const c of v) byType.set(c.type, c);
      status.conditions = [...byType.values()];
    } else if (v === null) delete (status as any)[k];
    else (status as any)[k] = v;
  }
  return { ...pod, metadata: { ...pod.metadata }, status };
}

export function fakeCluster(o: FakeClusterOptions = {}): FakeCluster {
  const pods = new Map<string, Pod>();
  const events: RecordedEvent[] = [];
  const deleted: string[] = [];
  const replace = (next: Pod) => {
    const old = pods.get(podKey(next))!;
    pods.set(podKey(next), next);
    s.podUpdated(old, next);
  };
  const writes: SchedulerWrites = {
    async bind(p, nodeName) {
      const cur = pods.get(podKey(p));
      if (!cur) throw new Error(`pod ${podKey(p)} not found`);
      if (cur.spec.nodeName) throw new Error(`pod ${podKey(p)} is already assigned to node "${cur.spec.nodeName}"`);
      if (o.failBind?.(cur)) throw new Error('binding refused');
      replace({ ...cur, spec: { ...cur.spec, nodeName } });
    },
    async deletePod(p) {
      const cur = pods.get(podKey(p));
      if (!cur) return;
      pods.delete(podKey(p));
      deleted.push(podKey(p));
      s.podDeleted(cur);
    },
    async patchPodStatus(p, patch) {
      const cur = pods.get(podKey(p));
      if (cur) replace(applyStatusPatch(cur, patch as any));
    },
    async modifyPersistentVolume(name, change) {
      const cur = volumes.get(name);
      if (!cur) throw new Error(`persistentvolumes "${name}" not found`);
      const next = change(structuredClone(cur));
      if (next) volumes.set(name, next);
    },
    async modifyClaim(namespace, name, change) {
      const cur = claims.get(`${namespace}/${name}`);
      if (!cur) throw new Error(`persistentvolumeclaims "${name}" not found`);
      const next = change(structuredClone(cur));
      if (next) claims.set(`${namespace}/${name}`, next);
    },
  };
  const volumes = o.volumes ?? new Map<string, PersistentVolume>();
  const claims = o.claims ?? new Map<string, PersistentVolumeClaim>();
  const classes = o.classes ?? new Map<string, StorageClass>();
  const recorder: EventRecorder = {
    event: (regarding, _related, type, reason, _action, note) => events.push({ pod: podKey(regarding), type, reason, note }),
  };
  const s = assembleScheduler({
    names, profiles: o.profiles ?? [{}], writes, recorder,
    listers: {
      pod: (key) => pods.get(key),
      namespaceLabels: (ns) => o.namespaces?.[ns] ?? { [names.label('metadata.name')]: ns },
      selectingObjects: (ns) => (o.selecting ?? []).filter((x) => x.metadata.namespace === ns),
      disruptionBudgets: (ns) => (o.pdbs ?? []).filter((x) => x.metadata.namespace === ns),
      volumes: {
        claim: (ns, name) => claims.get(`${ns}/${name}`),
        persistentVolume: (name) => volumes.get(name),
        persistentVolumes: () => [...volumes.values()],
        storageClass: (name) => classes.get(name),
        csiNode: (name) => o.csiNodes?.get(name),
      },
    },
    percentageOfNodesToScore: o.percentageOfNodesToScore,
    podInitialBackoffSeconds: 0, podMaxBackoffSeconds: 0,
    log: { info() {}, warn() {} },
  });
  for (const n of o.nodes ?? []) s.nodeAdded(n);
  const keyOf = (name: string, namespace = 'default') => `${namespace}/${name}`;
  return {
    s, pods, events, deleted,
    add(...ps) {
      for (const p of ps) {
        pods.set(podKey(p), p);
        s.podAdded(p);
      }
    },
    async run() {
      // back-off is zero here: what waits in the back-off queue is ready at once
      for (let i = 0; i < 10_000 && (s.queue.flush(), s.queue.counts().active > 0); i++) {
        await s.loop.next();
        await s.loop.drain();
      }
    },
    nodeOf: (name, ns) => pods.get(keyOf(name, ns))?.spec.nodeName,
    message: (name, ns) => pods.get(keyOf(name, ns))?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.message,
  };
}
