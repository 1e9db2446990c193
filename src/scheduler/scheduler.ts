// The scheduler as a client of the API: leader election through a Lease, then shared informers of
// pods (those not finished), nodes and what the plugins read (namespaces, Services and controllers for
// default spreading, PodDisruptionBudgets for preemption, claims, volumes and StorageClasses for volume binding and
// zones, CSINodes for volume limits),
// and the scheduling loop. Bindings go through
// `pods/binding`, conditions through `pods/status`, events through the events API (core/v1 Events). It runs the same
// inside the API server's process and as its own program.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { naming, type Naming } from '../api/naming.js';
import { createEventRecorder } from '../client/events.js';
import { createInformerFactory, type SharedInformer } from '../client/informer.js';
import { compactObject } from '../client/compact.js';
import { runElected, type LeaderElectionSettings } from '../client/leader-election.js';
import { isNotFound, resourcePath, resourceRef, type Client } from '../client/rest-client.js';
import { assembleScheduler, type AssembledScheduler } from './assemble.js';
import type { EventRecorder, SchedulerMetrics, SchedulerWrites } from './framework.js';
import { defaultSchedulerName, type ProfileConfig } from './profiles.js';
import type { CSINode, Namespace, Node, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, SelectingObject, StorageClass } from './types.js';

export interface Logger { info(m: string): void; warn(m: string): void; error(m: string): void }

/** on or off, the Lease's name and namespace (empty: the system namespace), and its timing */
export type SchedulerLeaderElection = LeaderElectionSettings;

export interface StartSchedulerOptions {
  client: Client;
  /** the API domain's naming; read from the server's discovery when not given */
  names?: Naming;
  /** the profiles (KubeSchedulerConfiguration `profiles`); default: one, `default-scheduler` */
  profiles?: ProfileConfig[];
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  leaderElection?: SchedulerLeaderElection;
  /** the scheduler_* metrics of the program's /metrics */
  metrics?: SchedulerMetrics;
  /** this candidate's identity for leader election; default `<hostname>_<uuid>` */
  identity?: string;
  log: Logger;
  /** called when leadership is lost (not on stop()); without it the scheduler stands for election again */
  onLostLeadership?(): void;
}

export interface RunningScheduler {
  /** resolves when this instance schedules with synced informers, or found another leader */
  ready: Promise<void>;
  isLeader(): boolean;
  stop(): Promise<void>;
}

export const defaultLeaderElection: SchedulerLeaderElection = {
  enabled: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceNamespace: '', resourceName: 'kube-scheduler',
};

const refs = (names: Naming) => ({
  pods: resourceRef<Pod>('', 'v1', 'pods', 'Pod'),
  nodes: resourceRef<Node>('', 'v1', 'nodes', 'Node', false),
  namespaces: resourceRef<Namespace>('', 'v1', 'namespaces', 'Namespace', false),
  services: resourceRef<SelectingObject>('', 'v1', 'services', 'Service'),
  replicationControllers: resourceRef<SelectingObject>('', 'v1', 'replicationcontrollers', 'ReplicationController'),
  replicaSets: resourceRef<SelectingObject>('apps', 'v1', 'replicasets', 'ReplicaSet'),
  statefulSets: resourceRef<SelectingObject>('apps', 'v1', 'statefulsets', 'StatefulSet'),
  budgets: resourceRef<PodDisruptionBudget>('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  claims: resourceRef<PersistentVolumeClaim>('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
  volumes: resourceRef<PersistentVolume>('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
  classes: resourceRef<StorageClass>(names.group('storage'), 'v1', 'storageclasses', 'StorageClass', false),
  csiNodes: resourceRef<CSINode>(names.group('storage'), 'v1', 'csinodes', 'CSINode', false),
});

/** the writes the scheduler makes, through the API */
function apiWrites(client: Client, r: ReturnType<typeof refs>): SchedulerWrites {
  const pods = (ns: string | undefined) => client.resource(resourceRef<Pod>('', 'v1', 'pods', 'Pod'), ns);
  return {
    async modifyPersistentVolume(name, change) {
      await client.resource(r.volumes).modify(name, change);
    },
    async modifyClaim(namespace, name, change) {
      await client.resource(r.claims, namespace).modify(name, change);
    },
    async bind(pod, nodeName) {
      const { name, namespace, uid } = pod.metadata;
      await client.request({
        method: 'POST', path: resourcePath({ group: '', version: 'v1', resource: 'pods' }, namespace, name, 'binding'),
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { kind: 'Node', name: nodeName } },
      });
    },
    async deletePod(pod) {
      await pods(pod.metadata.namespace).delete(pod.metadata.name!, { preconditions: { uid: pod.metadata.uid } })
        .catch((e) => { if (!isNotFound(e)) throw e; });
    },
    async patchPodStatus(pod, patch) {
      await pods(pod.metadata.namespace).status.patch(pod.metadata.name!, patch, 'strategic')
        .catch((e) => { if (!isNotFound(e)) throw e; });
    },
  };
}

/** runs the scheduler until the signal aborts; resolves once the informers have synced */
async function run(o: StartSchedulerOptions, names: Naming, signal: AbortSignal): Promise<AssembledScheduler> {
  const r = refs(names);
  const informers = createInformerFactory(o.client, {
    onError: (e) => { if (!signal.aborted) o.log.warn(`scheduler informer: ${(e as Error).message}`); },
    // the scheduler never reads managed fields; the strings of specs are shared
    transform: compactObject,
  });
  // finished pods take nothing from their node
  const pods = informers.informer(r.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });
  const nodes = informers.informer(r.nodes);
  const namespaces = informers.informer(r.namespaces);
  const selecting: SharedInformer<SelectingObject>[] = [r.services, r.replicationControllers, r.replicaSets, r.statefulSets].map((ref) => informers.informer(ref));
  const budgets = informers.informer(r.budgets);
  const claims = informers.informer(r.claims);
  const volumes = informers.informer(r.volumes);
  const classes = informers.informer(r.classes);
  const csiNodes = informers.informer(r.csiNodes);
  const recorders = new Map<string, ReturnType<typeof createEventRecorder>>();
  // events go through a client of their own (the same limits, its own budget), as the reference's event client:
  // they do not take the bindings' share of requests per second
  const eventClient = o.client.withLimits({});
  const recorderFor = (component: string) => {
    let rec = recorders.get(component);
    if (!rec) {
      // events.<domain>/v1 events, as the reference's scheduler writes them (eventTime, reportingController, action,
      // a series when one repeats); the core view that kubectl describe and kubectl events read shows the same objects
      rec = createEventRecorder(eventClient, { names, component, host: `${component}-${hostname()}`, api: 'events', log: (m) => o.log.warn(m) });
      recorders.set(component, rec);
    }
    return rec;
  };
  const recorder: EventRecorder = {
    event(regarding, related, type, reason, action, note) {
      recorderFor(regarding.spec.schedulerName || defaultSchedulerName).event(regarding, type, reason, note, { action, related });
    },
  };
  const s = assembleScheduler({
    names, profiles: o.profiles?.length ? o.profiles : [{ schedulerName: defaultSchedulerName }],
    writes: apiWrites(o.client, r), recorder,
    listers: {
      pod: (key) => pods.get(key),
      namespaceLabels: (ns) => namespaces.get(ns)?.metadata.labels,
      selectingObjects: (ns) => selecting.flatMap((i) => i.list(ns)),
      disruptionBudgets: (ns) => budgets.list(ns),
      volumes: {
        claim: (ns, name) => claims.get(`${ns}/${name}`),
        persistentVolume: (name) => volumes.get(name),
        persistentVolumes: () => volumes.list(),
        storageClass: (name) => classes.get(name),
        csiNode: (name) => csiNodes.get(name),
      },
    },
    percentageOfNodesToScore: o.percentageOfNodesToScore,
    podInitialBackoffSeconds: o.podInitialBackoffSeconds, podMaxBackoffSeconds: o.podMaxBackoffSeconds,
    metrics: o.metrics, log: o.log,
  });
  nodes.addHandler({ added: s.nodeAdded, updated: s.nodeUpdated, deleted: s.nodeDeleted });
  pods.addHandler({ added: (p) => s.podAdded(p), updated: (old, p) => s.podUpdated(old, p), deleted: (p) => s.podDeleted(p) });
  for (const [informer, kind] of [[claims, 'PersistentVolumeClaim'], [volumes, 'PersistentVolume'], [classes, 'StorageClass'], [csiNodes, 'CSINode']] as const) {
    (informer as SharedInformer<unknown>).addHandler({
      added: () => s.volumeObjectChanged(`${kind}/Add`),
      updated: () => s.volumeObjectChanged(`${kind}/Update`),
    });
  }
  informers.start();
  signal.addEventListener('abort', () => {
    informers.stop();
    s.queue.close();
  }, { once: true });
  await informers.waitForSync(signal);
  const flush = setInterval(() => s.queue.flush(), 1000);
  signal.addEventListener('abort', () => clearInterval(flush), { once: true });
  void (async () => {
    while (!signal.aborted && (await s.loop.next()));
  })();
  o.log.info(`scheduler: scheduling pods of ${[...s.frameworks.keys()].join(', ')} (${s.cache.nodes().length} nodes)`);
  return s;
}

/** throws when the profiles cannot be built (unknown plugins, bad arguments, two of one name) */
export function checkProfiles(profiles: ProfileConfig[], names: Naming = naming()) {
  const none = () => undefined;
  assembleScheduler({
    names, profiles: profiles.length ? profiles : [{}], log: { info: none, warn: none },
    writes: { bind: async () => {}, deletePod: async () => {}, patchPodStatus: async () => {}, modifyPersistentVolume: async () => {}, modifyClaim: async () => {} },
    recorder: { event: none },
    listers: {
      pod: none, namespaceLabels: none, selectingObjects: () => [], disruptionBudgets: () => [],
      volumes: { claim: none, persistentVolume: none, persistentVolumes: () => [], storageClass: none, csiNode: none },
    },
  });
}

/** Starts the scheduler; bad profiles throw at once. */
export function startScheduler(o: StartSchedulerOptions): RunningScheduler {
  checkProfiles(o.profiles ?? [], o.names);
  return runElected({
    what: 'scheduler', client: o.client, names: o.names, election: o.leaderElection ?? defaultLeaderElection,
    identity: o.identity ?? `${hostname()}_${randomUUID()}`, log: o.log, onLostLeadership: o.onLostLeadership,
    lead: async (names, signal) => { await run(o, names, signal); },
  });
}
