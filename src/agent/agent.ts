// The agent's wiring: for each node (one, or many simulated ones), the pod sources merged through the
// node's admission into the pod workers, the volumes, cgroups and runtime the workers use, the status
// manager, the node's registration, status and lease, eviction, image collection and statistics.

import { readFile } from 'node:fs/promises';
import type { AgentOptions } from './options.js';
import type { Naming } from '../api/naming.js';
import { createClient, type Client } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import { clientCertificates, type ClientCertificates } from './certificates.js';
import { startInformer, type Informer } from '../client/informer.js';
import { loadYaml } from '../util/yaml.js';
import { createPodConfig, type SourceName } from './sources/merge.js';
import { fetchManifestUrl, isMirrorPod, isStaticPod, readManifestPath } from './sources/static.js';
import { createPodWorkers, type PodWorkers } from './pod-workers.js';
import { createStatusManager, podsRef, type StatusManager } from './status-manager.js';
import { allocatableAmounts, capacity, hostIP, initialNode, nodeStatusLoop, nodesRef, observeSignals, type NodeSettings, type NodeStatusLoop } from './node-status.js';
import { isNewerNode, watchNodes, type NodeWatch } from './node-watch.js';
import { podServiceVariables, watchServices, type ServiceWatch } from './service-env.js';
import { evictionManager, localStorageViolation, type Signals } from './eviction.js';
import type { ContainerInfo, ContainerRuntime, RuntimeStatus } from './runtime/types.js';
import { eventRecorder, eventSink, type EventSink } from './events.js';
import { collectImages, containersToRemove, type ImageUse } from './gc.js';
import { fakeRuntime } from './runtime/fake.js';
import { fallbackNodeRange, subnet } from './runtime/address-pool.js';
import { admit } from './admission.js';
import { cgroupName, createCgroupManager, joinCgroup, type CgroupManager } from './cgroups.js';
import { createMounter, type Mounter } from './volumes/mount.js';
import { createVolumeManager, simulatedMountFiles, type VolumeContext, type VolumeManager } from './volumes/index.js';
import { createStats, type StatsProvider } from './stats/summary.js';
import { createAgentMetrics, type AgentMetrics } from './metrics.js';
import { amount } from './resources.js';
import { writeHostsFile } from './sandbox.js';
import { isTerminalPhase, compactPod, withoutManagedFields, type AgentPod, type Container, type Node, type Taint } from './objects.js';
import { timestamp } from './pod-status.js';
import { createCpuManager, parseCpuList } from './cpu-manager.js';
import { createMemoryManager, numaNodes, parseReservedMemory } from './memory-manager.js';
import { parseQuantity } from './quantity.js';
import type { Taint as FlagTaint } from './quantity.js';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface NodeAgent {
  nodeName: string;
  runtime: ContainerRuntime;
  workers: PodWorkers;
  stats: StatsProvider;
  /** resolves when every configured source has delivered its first set */
  synced: Promise<void>;
  status?: NodeStatusLoop;
  cgroups?: CgroupManager;
  /** the node object as admission last saw it (undefined before the first copy came) */
  node(): Node | undefined;
  stop(markNotReady: boolean): Promise<void>;
}

/** Knobs for tests and benchmarks that are not options of the reference. */
export interface AgentTuning {
  leaseDurationSeconds?: number;
  relistMs?: number;
  /** how often eviction thresholds are checked (the reference's 10 s) */
  evictionIntervalMs?: number;
  /** replaces the measured eviction signals (simulated nodes measure nothing) */
  observeSignals?: () => Signals;
  /** how often dead containers are collected (the reference's minute) */
  containerGcIntervalMs?: number;
  /** how often images are garbage collected (the reference's 5 minutes) */
  imageGcIntervalMs?: number;
  /** how often container logs are checked for rotation (10 s) */
  logCheckMs?: number;
  /** how often the runtime's conditions are read (the reference's 5 s) */
  runtimeStatusMs?: number;
  /** how often configMap, secret, downwardAPI and projected volumes are brought up to date (60 s) */
  volumeRefreshMs?: number;
  /** how often usage is sampled for CPU rates (10 s) */
  statsSampleMs?: number;
  /** where the cgroup filesystems are mounted (/sys/fs/cgroup) */
  cgroupFsRoot?: string;
}

/** what a simulated node takes from --fake-node-template and --fake-node-capacity */
export interface NodeOverrides {
  podCidr?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  taints?: FlagTaint[];
  capacity?: Record<string, number>;
}

export interface NodeAgentDeps {
  options: AgentOptions;
  nodeName: string;
  runtime: ContainerRuntime;
  runtimeName: string;
  client?: Client;
  /** the node's status and Lease go through this client, on a budget and a connection of their own, so heartbeats are
   *  never queued behind pod traffic (default: client) */
  heartbeats?: Client;
  log: Logger;
  tuning?: AgentTuning;
  metrics?: AgentMetrics;
  overrides?: NodeOverrides;
  /** the process's events, shared by the nodes it runs (default: one of the node's own) */
  events?: EventSink;
  /** the watch of the process's node objects, shared by the nodes it runs */
  nodeWatch?: NodeWatch;
  /** the Services, for the containers' service variables (one watch for every node of the process) */
  services?: ServiceWatch & { ready: Promise<void> };
}

/** how long a stopping node waits for its last pod statuses to be written */
const stopFlushMs = 5000;

/** the admission checks that read the node's labels and taints, which may have changed since the agent's copy */
const nodeDependentReasons = new Set(['NodeAffinity', 'TaintToleration']);

/** `run` made shareable: a caller while a run is under way gets the next run (started once that one ends), one for all
 *  who asked meanwhile, so that each caller sees a run that began after it asked */
function coalesced(run: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const start = () => (current = run().finally(() => { current = undefined; }));
  return () => {
    if (!current) return start();
    next ??= current.then(() => {
      next = undefined;
      return current ?? start();
    });
    return next;
  };
}

/** a mounter for simulated nodes: nothing is mounted */
const noMounts: Mounter = { async mount() {}, async bind() {}, async unmount() {}, async makeShared() {}, async mountsUnder() { return []; } };

export async function startNodeAgent({ options: o, nodeName, runtime, runtimeName, client, heartbeats = client, log, tuning = {}, metrics, overrides = {}, events, nodeWatch, services }: NodeAgentDeps): Promise<NodeAgent> {
  const names = o.names;
  const simulated = o.runtime === 'fake';
  const settings: NodeSettings = {
    names, nodeName, labels: { ...overrides.labels, ...o.nodeLabels }, taints: [...(overrides.taints ?? []), ...o.registerWithTaints], schedulable: o.registerSchedulable, nodeIps: o.nodeIps,
    providerId: o.providerId, podCidr: overrides.podCidr ?? o.podCidr, maxPods: o.maxPods, podsPerCore: o.podsPerCore, systemReserved: o.systemReserved,
    clusterReserved: o.clusterReserved, evictionHard: o.evictionHard, maxImages: o.nodeStatusMaxImages, rootDir: o.rootDir, serverPort: o.port, simulated,
    simulatedCapacity: { ...overrides.capacity, ...o.fakeNodeCapacity }, annotations: overrides.annotations,
    allocatableIgnoresEviction: o.values['experimental-allocatable-ignore-eviction'] as boolean, localStorage: o.values['local-storage-capacity-isolation'] as boolean,
    controllerAttachDetach: o.values['enable-controller-attach-detach'] as boolean, externalCloudProvider: o.values['cloud-provider'] === 'external',
  };
  const allocatable = allocatableAmounts(settings);
  // admission and the downward API count CPU in millicores
  const allocatableUnits: Record<string, number> = { ...allocatable, cpu: Math.round(allocatable.cpu! * 1000) };
  const cap = capacity(settings);
  let statusLoop: NodeStatusLoop | undefined;
  /** the newest copy of the node object seen (from the node watch, the status posts' replies or a re-read): what
   *  admission checks labels and taints against */
  let currentNode: Node | undefined;
  const observeNode = (node: Node) => { if (isNewerNode(node, currentNode)) currentNode = node; };
  const unsubscribeNode = nodeWatch?.subscribe(nodeName, observeNode);
  const nodesApi = client?.resource<Node>(nodesRef);
  /** reads the node again; pods that ask while a read is under way share the next one, which starts after they asked */
  const rereadNode = nodesApi ? coalesced(async () => {
    try {
      observeNode(withoutManagedFields(await nodesApi.get(nodeName)));
    } catch (e) {
      log.warn(`${nodeName}: reading the node object: ${(e as Error).message}`);
    }
  }) : undefined;
  const status: StatusManager | undefined = client ? createStatusManager(client, names, nodeName, () => statusLoop?.node()?.metadata?.uid, (m) => log.warn(m)) : undefined;
  const recorder = client ? eventRecorder(events ?? eventSink(client, o.eventQps, o.eventBurst, (m) => log.warn(m)), nodeName) : undefined;

  // the runtime's conditions, read every few seconds: the node's readiness and pods off the host network wait on them
  let runtimeStatus: RuntimeStatus | { error: string } = await runtime.status().catch((e) => ({ error: (e as Error).message }));
  const runtimeTimer = setInterval(() => {
    void runtime.status().then((s) => { runtimeStatus = s; }, (e) => { runtimeStatus = { error: (e as Error).message }; });
  }, tuning.runtimeStatusMs ?? 5000);
  runtimeTimer.unref();
  const networkProblem = (): string | undefined => {
    if ('error' in runtimeStatus) return undefined;
    const n = runtimeStatus.networkReady;
    return n.status ? undefined : `container runtime network not ready: NetworkReady=false reason:${n.reason} message:${n.message}`;
  };

  // the node's pod range reaches the runtime, as the reference passes it (runtimes with a CNI template use it); without
  // the flag, the range the node is given later does (below)
  const passPodCidr = (cidr: string) => runtime.updatePodCidr?.(cidr).catch((e) => log.warn(`${nodeName}: passing the pod range to the runtime: ${(e as Error).message}`));
  if (!simulated && settings.podCidr) await passPodCidr(settings.podCidr);

  let cgroups: CgroupManager | undefined;
  let mounter = noMounts;
  if (!simulated) {
    mounter = createMounter(o.experimentalMounterPath);
    // volumes the agent mounts under its root must reach the runtime's mount namespace
    await mounter.makeShared(o.rootDir).catch((e) => log.warn(`${nodeName}: making ${o.rootDir} a shared mount: ${(e as Error).message}`));
    if (o.cgroupsPerQos || o.cgroupRoot) {
      cgroups = createCgroupManager({
        driver: o.cgroupDriver, root: o.cgroupRoot, perQos: o.cgroupsPerQos, enforce: o.enforceNodeAllocatable,
        systemReservedCgroup: o.systemReservedCgroup, clusterReservedCgroup: o.clusterReservedCgroup,
        capacity: { cpu: Math.round(cap.cpu! * 1000), memory: cap.memory!, pids: Number(await readFile('/proc/sys/kernel/pid_max', 'utf8').catch(() => '32768')) },
        systemReserved: { ...o.systemReserved, ...(o.systemReserved.cpu ? { cpu: Math.round(o.systemReserved.cpu * 1000) } : {}) },
        clusterReserved: { ...o.clusterReserved, ...(o.clusterReserved.cpu ? { cpu: Math.round(o.clusterReserved.cpu * 1000) } : {}) },
        podPidsLimit: o.podPidsLimit, cfsQuota: o.cpuCfsQuota, cfsPeriodUs: o.cpuCfsQuotaPeriodMs * 1000, qosReservedMemory: o.qosReservedMemory,
        fsRoot: tuning.cgroupFsRoot,
      });
      await cgroups.start();
    }
  }

  // CPUs and NUMA memory of guaranteed pods (real nodes only: simulated ones have no CPUs to give)
  const cpuManager = simulated ? undefined : createCpuManager({
    policy: o.values['cpu-manager-policy'] as 'none' | 'static', options: o.values['cpu-manager-policy-options'] as Record<string, string>, rootDir: o.rootDir,
    reserved: o.values['reserved-cpus'] ? parseCpuList(o.values['reserved-cpus'] as string)
      : Array.from({ length: Math.ceil((o.systemReserved.cpu ?? 0) + (o.clusterReserved.cpu ?? 0)) }, (_, i) => i),
  });
  const memoryManager = simulated ? undefined : createMemoryManager(o.values['memory-manager-policy'] as 'None' | 'Static', numaNodes(), parseReservedMemory(o.values['reserved-memory'] as string[], parseQuantity));

  let workers: PodWorkers;
  const volumeContext: VolumeContext = {
    client, names, mounter, allocatable: allocatableUnits, tokens: new Map(), now: Date.now, sizeMemoryVolumes: !!o.featureGates.SizeMemoryBackedVolumes,
    facts: (pod) => ({ nodeName, hostIP: hostIP(o.nodeIps), podIPs: workers.podIPs(pod.metadata.uid) }),
  };
  const volumes: VolumeManager = createVolumeManager(o.rootDir, volumeContext);
  const fakeVolumes: VolumeManager = {
    podDir: volumes.podDir, async setUp() {}, async refresh() {}, refreshes: () => false, async containerMounts() { return []; },
    // the pod's tokens are forgotten with it
    async tearDown(pod) { for (const key of volumeContext.tokens.keys()) if (key.startsWith(`${pod.metadata.uid}/`)) volumeContext.tokens.delete(key); },
    async removeOrphans() { return []; },
    simulatedFiles: (pod, c) => simulatedMountFiles(pod, c, volumeContext),
  };

  workers = createPodWorkers({
    recorder,
    runtime, runtimeName, nodeName, hostIP: hostIP(o.nodeIps), rootDir: o.rootDir, relistMs: tuning.relistMs ?? (simulated ? 5000 : 1000),
    maxDeadPerContainer: o.maximumDeadContainersPerContainer,
    // the fake runtime has no use for DNS settings
    dns: simulated ? undefined : { clusterDns: o.clusterDns, clusterDomain: o.clusterDomain, resolvConf: o.resolvConf },
    reportStatus: (pod, s) => status?.set(pod, s),
    terminated: (pod) => status?.terminated(pod),
    log: (m) => log.warn(`${nodeName}: ${m}`),
    volumes: simulated ? fakeVolumes : volumes,
    cgroups,
    containers: {
      api: { client }, allocatable: allocatableUnits, seccompDefault: o.seccompDefault,
      resources: { cfsQuota: o.cpuCfsQuota, cfsPeriodUs: o.cpuCfsQuotaPeriodMs * 1000, memoryCapacity: cap.memory! },
      ...(cpuManager?.policy === 'static' ? { cpuset: (pod: AgentPod, c: Container) => cpuManager.cpuset(pod, c) } : {}),
      ...(memoryManager?.policy === 'Static' ? { memoryNodes: (pod: AgentPod) => memoryManager.nodes(pod) } : {}),
      ...(services ? { serviceEnv: (pod: AgentPod) => podServiceEnv(services, pod, names) } : {}),
    },
    keepTerminatedPodVolumes: o.values['keep-terminated-pod-volumes'] as boolean,
    released: (pod) => {
      cpuManager?.release(pod.metadata.uid);
      memoryManager?.release(pod.metadata.uid);
    },
    network: () => {
      const problem = networkProblem();
      return { ready: !problem, message: problem ?? '' };
    },
    volumeRefreshMs: tuning.volumeRefreshMs,
    ...(simulated ? {} : { hostsFile: (pod: AgentPod, ips: string[]) => writeHostsFile(pod, volumes.podDir(pod), ips, o.clusterDomain), terminationMessages: true }),
  });

  const evictions = evictionManager({
    hard: o.evictionHard, soft: o.evictionSoft, softGraceMs: o.evictionSoftGracePeriodMs, transitionMs: o.evictionPressureTransitionPeriodMs,
    maxPodGraceSeconds: o.evictionMaxPodGraceSeconds, minReclaim: o.evictionMinimumReclaim,
    observe: tuning.observeSignals ?? (simulated ? () => ({}) : () => observeSignals(o.rootDir)),
    activePods: () => workers.pods().map((x) => x.pod).filter((p) => !p.metadata.deletionTimestamp && !isTerminalPhase(p.status?.phase)),
    isCritical: (p) => isStaticPod(p, names) || (p.spec?.priority ?? 0) >= 2_000_000_000,
    evict: (p, message, grace) => {
      if (workers.evict(p.metadata.uid, message, grace)) log.warn(`${nodeName}: evicting pod ${p.metadata.namespace}/${p.metadata.name}: ${message}`);
    },
  });

  // admission: each new pod is checked against the node and the pods already admitted (reference's order)
  const admitted = new Map<string, AgentPod>();
  const activeAdmitted = () => {
    const current = new Map(workers.pods().map((x) => [x.pod.metadata.uid, x.pod]));
    return [...admitted.values()].filter((p) => !isTerminalPhase(current.get(p.metadata.uid)?.status?.phase));
  };
  /** pods refused on the node's labels or taints, waiting for the node to be read again: the latest copy of each by uid */
  const awaitingNode = new Map<string, AgentPod>();
  const handlePod = (pod: AgentPod, nodeReread: boolean) => {
    const uid = pod.metadata.uid;
    if (awaitingNode.has(uid)) {
      awaitingNode.set(uid, pod);
      return;
    }
    if (!admitted.has(uid) && !pod.metadata.deletionTimestamp && !isTerminalPhase(pod.status?.phase)) {
      let rejection = admit({
        pod, others: activeAdmitted(), node: currentNode ?? initialNode(settings), allocatable: allocatableUnits,
        pressure: evictions.pressure(), allowedUnsafeSysctls: o.allowedUnsafeSysctls, names,
      });
      // the watch may not yet have brought a change made just before the pod was bound here: a refusal on the
      // node's labels or taints is decided on a fresh read of the node, never on an older copy
      if (rejection && nodeDependentReasons.has(rejection.reason) && !nodeReread && rereadNode) {
        awaitingNode.set(uid, pod);
        void rereadNode().then(() => {
          const latest = awaitingNode.get(uid);
          awaitingNode.delete(uid);
          if (latest && !stopped) handlePod(latest, true);
        });
        return;
      }
      const allocation = rejection ? undefined : cpuManager?.allocate(pod) ?? memoryManager?.allocate(pod);
      if (allocation) rejection = { reason: 'UnexpectedAdmissionError', message: `Allocate failed due to ${allocation}, which is unexpected` };
      if (rejection) {
        cpuManager?.release(uid);
        memoryManager?.release(uid);
        log.warn(`${nodeName}: pod ${pod.metadata.namespace}/${pod.metadata.name} rejected: ${rejection.reason}: ${rejection.message}`);
        recorder?.event(pod, 'Warning', rejection.reason, rejection.message);
        // as every status the reference's agent writes, it carries a start time (the time of the refusal)
        status?.set(pod, { ...pod.status, phase: 'Failed', reason: rejection.reason, message: `Pod was rejected: ${rejection.message}`, startTime: pod.status?.startTime ?? timestamp(Date.now()) });
        return;
      }
      admitted.set(uid, pod);
    }
    if (admitted.has(uid)) admitted.set(uid, pod);
    workers.update(pod);
  };
  const podConfig = createPodConfig({
    update: (pod) => handlePod(pod, false),
    remove(uid) {
      awaitingNode.delete(uid);
      admitted.delete(uid);
      workers.remove(uid);
      status?.forget(uid);
    },
  });

  const agentCgroup = o.values['agent-cgroups'] as string;
  if (!simulated && agentCgroup) await joinCgroup(agentCgroup, process.pid, tuning.cgroupFsRoot).catch((e) => log.warn(`${nodeName}: moving the agent into ${agentCgroup}: ${(e as Error).message}`));
  const stats = createStats({
    nodeName, runtime, rootDir: o.rootDir, pods: () => workers.pods(), podDir: volumes.podDir, labelDomain: names.labelDomain, cgroupFsRoot: tuning.cgroupFsRoot,
    systemCgroups: simulated ? undefined : {
      kubelet: agentCgroup || undefined, runtime: (o.values['runtime-cgroups'] as string) || undefined,
      pods: o.cgroupsPerQos ? cgroupName(o.cgroupDriver, o.cgroupRoot, ['kubepods']).path : undefined,
    },
    ...(simulated ? { simulated: { capacityBytes: cap['ephemeral-storage'] ?? 0 } } : {}),
  });
  // containers of the CPU manager's shared pool follow it as exclusive CPUs are taken and given back
  const applied = new Map<string, string>();
  const cpuTimer = setInterval(() => {
    if (cpuManager?.policy !== 'static') return;
    void (async () => {
      const live = new Set(workers.pods().flatMap((x) => x.containers.map((c) => c.id)));
      for (const id of applied.keys()) if (!live.has(id)) applied.delete(id);
      for (const { pod, containers } of workers.pods()) {
        for (const c of containers.filter((x) => x.state === 'running')) {
          const spec = pod.spec.containers.find((x) => x.name === c.name);
          if (!spec) continue;
          const want = cpuManager.cpuset(pod, spec);
          if (applied.get(c.id) === want) continue;
          await runtime.updateContainerResources(c.id, { cpusetCpus: want }).then(() => applied.set(c.id, want), (e) => log.warn(`${nodeName}: cpuset of container ${c.name} of pod ${pod.metadata.name}: ${(e as Error).message}`));
        }
      }
    })();
  }, o.values['cpu-manager-reconcile-period'] as number);
  cpuTimer.unref();
  // samples for CPU rates; the fake runtime reports its rates, so simulated nodes take none
  const statsTimer = simulated ? undefined : setInterval(() => void stats.sample().catch(() => {}), tuning.statsSampleMs ?? 10_000);
  statsTimer?.unref();
  metrics?.observe(() => {
    const list = workers.pods();
    const containers: Record<string, number> = {};
    for (const c of list.flatMap((x) => x.containers)) containers[c.state] = (containers[c.state] ?? 0) + 1;
    return { pods: list.filter((x) => x.sandbox?.ready).length, containers };
  });
  metrics?.nodeName(nodeName);

  /** pods over their local storage limits are evicted at once */
  const checkLocalStorage = async () => {
    const summary = await stats.summary();
    const byUid = new Map(workers.pods().map((x) => [x.pod.metadata.uid, x.pod]));
    for (const p of summary.pods) {
      const pod = byUid.get(p.podRef.uid);
      if (!pod || pod.metadata.deletionTimestamp) continue;
      const use = {
        volumes: new Map((p.volume ?? []).map((v) => [v.name, v.usedBytes ?? 0])),
        containers: new Map(p.containers.map((c) => [c.name, (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0)])),
      };
      const message = localStorageViolation(pod, use);
      if (!message) continue;
      if (workers.evict(pod.metadata.uid, message, 0)) log.warn(`${nodeName}: evicting pod ${pod.metadata.namespace}/${pod.metadata.name}: ${message}`);
    }
  };

  const sources: SourceName[] = [];
  /** each polled source's next read; a read in flight when the agent stops schedules none */
  const timers = new Map<'file' | 'http', NodeJS.Timeout>();
  let stopped = false;
  const evictionTimer = setInterval(() => {
    try {
      evictions.check();
    } catch (e) {
      log.warn(`${nodeName}: eviction check: ${(e as Error).message}`);
    }
    if (!simulated && o.values['local-storage-capacity-isolation']) void checkLocalStorage().catch((e) => log.warn(`${nodeName}: local storage check: ${(e as Error).message}`));
  }, tuning.evictionIntervalMs ?? 10_000);
  evictionTimer.unref();
  const imageUse = new Map<string, ImageUse>();
  const imageGcTimer = setInterval(() => {
    const policy = { highPercent: o.imageGcHighThreshold, lowPercent: o.imageGcLowThreshold, minAgeMs: o.minimumImageTtlMs };
    void collectImages(runtime, policy, o.podInfraContainerImage, imageUse, (m) => log.warn(`${nodeName}: ${m}`))
      .then((ids) => { if (ids.length) log.info(`${nodeName}: image garbage collection removed ${ids.length} image(s)`); })
      .catch((e) => log.warn(`${nodeName}: image garbage collection: ${(e as Error).message}`));
  }, tuning.imageGcIntervalMs ?? 5 * 60_000);
  imageGcTimer.unref();
  const containerPolicy = {
    minAgeMs: o.values['minimum-container-ttl-duration'] as number, maxPerContainer: o.maximumDeadContainersPerContainer, maxContainers: o.values['maximum-dead-containers'] as number,
  };
  const containerGcTimer = setInterval(() => {
    void (async () => {
      const all = await runtime.listContainers();
      // the newest instance of each container of a pod the node runs stays; sandboxes of no pod go whole
      const owned = new Set(workers.pods().flatMap((x) => (x.sandbox ? [x.sandbox.id] : [])));
      const newest = new Map<string, ContainerInfo>();
      for (const c of all.filter((x) => owned.has(x.sandboxId))) {
        const key = `${c.sandboxId}/${c.name}`;
        const n = newest.get(key);
        if (!n || c.attempt > n.attempt) newest.set(key, c);
      }
      const dead = all.filter((c) => c.state === 'exited');
      for (const c of containersToRemove(dead, new Set([...newest.values()].map((c) => c.id)), containerPolicy, Date.now())) await runtime.removeContainer(c.id);
      for (const s of await runtime.listSandboxes()) {
        if (s.ready || owned.has(s.id) || workers.pods().some((x) => x.pod.metadata.uid === s.uid)) continue;
        await runtime.removeSandbox(s.id);
      }
    })().catch((e) => log.warn(`${nodeName}: container garbage collection: ${(e as Error).message}`));
  }, tuning.containerGcIntervalMs ?? 60_000);
  containerGcTimer.unref();
  let informer: Informer<AgentPod> | undefined;
  const staticBySource: Record<'file' | 'http', AgentPod[]> = { file: [], http: [] };
  const syncMirrors = () => status?.syncMirrors([...staticBySource.file, ...staticBySource.http]);

  const poll = (source: 'file' | 'http', everyMs: number, read: () => Promise<{ pods: AgentPod[]; errors: string[] }>) => {
    sources.push(source);
    const tick = async () => {
      try {
        const { pods, errors } = await read();
        for (const e of errors) log.warn(`${nodeName}: ${source} source: ${e}`);
        staticBySource[source] = pods;
        podConfig.set(source, pods);
        syncMirrors();
      } catch (e) {
        log.warn(`${nodeName}: ${source} source: ${(e as Error).message}`);
      }
      if (!stopped) timers.set(source, setTimeout(tick, everyMs));
    };
    void tick();
  };
  if (o.podManifestPath) poll('file', o.fileCheckFrequencyMs, () => readManifestPath(o.podManifestPath!, nodeName, names));
  if (o.manifestUrl) poll('http', o.httpCheckFrequencyMs, () => fetchManifestUrl(o.manifestUrl!, o.manifestUrlHeaders, nodeName, names));

  if (client) {
    if (o.registerNode) {
      /** the range last passed to the runtime from the node object */
      let givenCidr: string | undefined;
      statusLoop = nodeStatusLoop({
        client: heartbeats!, settings, runtime, register: true, recorder, updateFrequencyMs: o.nodeStatusUpdateFrequencyMs, leaseDurationSeconds: tuning.leaseDurationSeconds,
        log: (m) => log.warn(m),
        // a node without --pod-cidr takes the range the controller manager gives it, as the reference's agent does
        onNode: (node) => {
          observeNode(node);
          if (settings.podCidr) return;
          const cidr = node.spec?.podCIDR;
          if (cidr && cidr !== givenCidr) void passPodCidr((givenCidr = cidr));
        },
        async health() {
          // the reference's readiness: the runtime up and ready, and its network ready
          const s = runtimeStatus;
          const problems = 'error' in s ? [`container runtime is down: ${s.error}`]
            : [...(s.runtimeReady.status ? [] : [`container runtime not ready: RuntimeReady=false reason:${s.runtimeReady.reason} message:${s.runtimeReady.message}`]), ...[networkProblem()].filter((x): x is string => !!x)];
          const ready = problems.length ? { ok: false, message: problems.length > 1 ? `[${problems.join(', ')}]` : problems[0] } : { ok: true };
          return { ready, pressure: evictions.pressure() };
        },
      });
      await statusLoop.start();
    }
    sources.push('api');
    const pods = client.resource<AgentPod>(podsRef);
    informer = startInformer(pods, (e) => {
      if (e.type === 'sync') {
        const runnable: AgentPod[] = [];
        for (const p of e.items) {
          compactPod(p);
          if (isMirrorPod(p, names)) status?.observeMirror(p, false);
          else runnable.push(p);
        }
        podConfig.set('api', runnable);
        syncMirrors();
        return;
      }
      const p = compactPod(e.object);
      if (isMirrorPod(p, names)) {
        status?.observeMirror(p, e.type === 'deleted');
        if (e.type === 'deleted') syncMirrors();
      } else if (e.type === 'deleted') podConfig.delete('api', p.metadata.uid);
      else podConfig.upsert('api', p);
    }, { fieldSelector: `spec.nodeName=${nodeName}`, keepStore: false, onError: (err) => log.warn(`${nodeName}: pod watch: ${(err as Error).message}`) });
  }

  const synced = podConfig.seenAll(sources);
  // once every source has spoken, what is left of pods no source still wants (from before a restart) goes:
  // their sandboxes, then their folders and cgroups
  void synced.then(async () => {
    const wanted = podConfig.pods();
    for (const s of await runtime.listSandboxes().catch(() => [])) {
      if (wanted.has(s.uid)) continue;
      log.info(`${nodeName}: removing sandbox ${s.id} of pod ${s.namespace}/${s.name}, which no source wants`);
      await runtime.stopSandbox(s.id).then(() => runtime.removeSandbox(s.id)).catch((e) => log.warn(`${nodeName}: removing sandbox ${s.id}: ${(e as Error).message}`));
    }
    if (simulated) return;
    // checked one pod at a time: a pod that arrives meanwhile keeps what it is setting up
    const keep = (uid: string) => podConfig.pods().has(uid) || workers.pods().some((x) => x.pod.metadata.uid === uid);
    for (const uid of await volumes.removeOrphans(keep).catch((e) => { log.warn(`${nodeName}: removing orphaned pod folders: ${(e as Error).message}`); return []; })) log.info(`${nodeName}: removed the folder of pod ${uid}, which no source wants`);
    await cgroups?.removeOrphans(keep).catch((e) => log.warn(`${nodeName}: removing orphaned pod cgroups: ${(e as Error).message}`));
  });

  return {
    nodeName,
    runtime,
    workers,
    stats,
    synced,
    status: statusLoop,
    cgroups,
    node: () => currentNode,
    async stop(markNotReady) {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      clearInterval(evictionTimer);
      clearInterval(imageGcTimer);
      clearInterval(containerGcTimer);
      clearInterval(runtimeTimer);
      clearInterval(statsTimer);
      clearInterval(cpuTimer);
      informer?.stop();
      unsubscribeNode?.();
      await workers.close();
      // the last statuses go out if the server takes them; a server that refuses them does not hold the stop. Events are
      // not waited for: the process's one queue of them (1,000 at --event-qps 50 with many simulated nodes) held every
      // stop for the whole 5 s; they go on being sent until the process ends
      await Promise.race([status?.flushed(), new Promise((r) => setTimeout(r, stopFlushMs).unref())]);
      status?.stop();
      await statusLoop?.stop(markNotReady);
    },
  };
}

export interface RunningAgent {
  nodes: NodeAgent[];
  client?: Client;
  metrics: AgentMetrics;
  stop(): Promise<void>;
}

/** The node template of simulated nodes: one Node or a list (items), each node taking the next in turn. */
async function nodeTemplates(path: string): Promise<NodeOverrides[]> {
  let doc: { items?: Node[] } & Node;
  try {
    doc = (await loadYaml()).parse(await readFile(path, 'utf8')) as typeof doc;
  } catch (e) {
    throw new Error(`--fake-node-template ${path}: ${(e as Error).message}`);
  }
  const items: Node[] = Array.isArray(doc?.items) ? doc.items : [doc];
  return items.map((n, i) => {
    const cap: Record<string, number> = {};
    for (const [k, q] of Object.entries(n?.status?.capacity ?? {})) {
      try {
        cap[k] = k === 'cpu' ? amount('cpu', q) / 1000 : amount(k, q);
      } catch (e) {
        throw new Error(`--fake-node-template ${path}: item ${i}: capacity ${k}: ${(e as Error).message}`);
      }
    }
    const taints: FlagTaint[] = (n?.spec?.taints ?? []).map((t: Taint) => ({ key: t.key, ...(t.value ? { value: t.value } : {}), effect: t.effect as FlagTaint['effect'] }));
    return { labels: n?.metadata?.labels ?? {}, annotations: n?.metadata?.annotations ?? {}, taints, capacity: cap };
  });
}

/**
 * The budget of node status and Lease writes: what the nodes' heartbeats need (a status and a lease renewal per
 * node every update period, a lease renewal at least every 10 s), twice over, so that they never wait on pod traffic
 * and a node never goes NotReady because its process is busy.
 */
export function heartbeatBudget(nodes: number, updateFrequencyMs: number): { qps: number; burst: number } {
  const perNodePerSecond = 1000 / Math.max(1000, updateFrequencyMs) + 1 / 10;
  return { qps: Math.max(5, Math.ceil(2 * nodes * perNodePerSecond)), burst: Math.max(10, 2 * nodes) };
}

/**
 * The service variables of a pod's containers. A pod from the API server waits a little for the first list of
 * Services, then is refused as the reference refuses it (its containers are tried again later): started without
 * them, it would never learn where the API server is. A static pod takes what is known.
 */
async function podServiceEnv(services: ServiceWatch & { ready: Promise<void> }, pod: AgentPod, names: Naming): Promise<Map<string, string>> {
  if (!services.synced() && !isStaticPod(pod, names)) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([services.ready, new Promise((r) => { timer = setTimeout(r, 5000); })]).finally(() => clearTimeout(timer));
    if (!services.synced()) throw new Error('services have not yet been read at least once, cannot construct envvars');
  }
  return podServiceVariables(services, names.vendor, pod.metadata.namespace, pod.spec.enableServiceLinks !== false);
}

/** Starts every node this process runs: one, or --fake-nodes simulated ones. */
export async function runAgent(o: AgentOptions, log: Logger, tuning: AgentTuning = {}, makeRuntime?: (nodeName: string, overrides: NodeOverrides, index: number) => Promise<{ runtime: ContainerRuntime; name: string }>): Promise<RunningAgent> {
  let client: Client | undefined;
  let heartbeats: Client | undefined;
  let certificates: ClientCertificates | undefined;
  let events: EventSink | undefined;
  if (o.clusterconfig) {
    certificates = await clientCertificates({
      names: o.names, nodeName: o.nodeName, clusterconfig: o.clusterconfig, bootstrapConfig: o.bootstrapClusterconfig, certDir: o.certDir, rotate: o.rotateCertificates,
    }, log);
    const config = certificates?.config ?? await loadClientConfig(o.clusterconfig);
    // one budget for the process, as the reference's --kube-api-qps is per kubelet process, however many nodes it simulates
    client = createClient(config, {
      qps: o.clusterApiQps, burst: o.clusterApiBurst, userAgent: `cluster-agent/${o.nodeName}`, credentials: certificates?.credentials,
    });
    // heartbeats go on a connection of their own, as the reference kubelet's do: they never wait behind the pods' watches
    // and writes in one connection's queues, and a connection lost with its streams does not take them along
    heartbeats = createClient(config, {
      ...heartbeatBudget(o.fakeNodes, o.nodeStatusUpdateFrequencyMs), userAgent: `cluster-agent/${o.nodeName}`, credentials: certificates?.credentials,
    });
    certificates?.startRotation(client);
    events = eventSink(client, o.eventQps, o.eventBurst, (m) => log.warn(m));
  }
  const metrics = createAgentMetrics();
  const nodeNames = o.fakeNodes > 1 ? Array.from({ length: o.fakeNodes }, (_, i) => `${o.nodeName}-${i}`) : [o.nodeName];
  const templates = o.fakeNodeTemplate ? await nodeTemplates(o.fakeNodeTemplate) : [];
  const overridesOf = (i: number): NodeOverrides => ({
    ...templates[i % Math.max(1, templates.length)],
    // simulated nodes share --pod-cidr, each with its own part of it
    ...(o.runtime === 'fake' && o.podCidr && nodeNames.length > 1 ? { podCidr: subnet(o.podCidr, i, nodeNames.length) } : {}),
  });
  const runtimeFor = makeRuntime ?? (async (nodeName: string, overrides: NodeOverrides, index: number) => {
    if (o.runtime === 'fake') {
      return { runtime: fakeRuntime(nodeName, o.names, { podCidr: overrides.podCidr || o.podCidr || undefined, fallbackPodCidr: fallbackNodeRange(index) }), name: 'fake' };
    }
    const { criRuntime } = await import('./runtime/cri.js');
    const runtime = await criRuntime({
      endpoint: o.containerRuntimeEndpoint, imageEndpoint: o.imageServiceEndpoint, timeoutMs: o.runtimeRequestTimeoutMs, rootDir: o.rootDir,
      logMaxSize: o.containerLogMaxSize, logMaxFiles: o.containerLogMaxFiles, logCheckMs: tuning.logCheckMs,
      registryQps: o.registryQps, registryBurst: o.registryBurst, serializeImagePulls: o.serializeImagePulls,
    });
    const v = await runtime.version();
    return { runtime, name: v.name };
  });
  // admission reads each node's labels and taints from this one watch, started before the nodes
  const nodeWatch = client ? watchNodes(client, nodeNames, (m) => log.warn(m)) : undefined;
  const services = client ? watchServices(client, (m) => log.warn(m)) : undefined;
  const nodes: NodeAgent[] = [];
  try {
    // simulated nodes start in batches so registration does not exceed the shared connection pool
    for (let i = 0; i < nodeNames.length; i += 20) {
      nodes.push(...(await Promise.all(nodeNames.slice(i, i + 20).map(async (nodeName, j) => {
        const overrides = overridesOf(i + j);
        const made = await runtimeFor(nodeName, overrides, i + j);
        await made.runtime.ready();
        const runtime = o.runtime === 'fake' ? made.runtime : metrics.instrument(made.runtime);
        return startNodeAgent({ options: o, nodeName, runtime, runtimeName: made.name, client, heartbeats, log, tuning, metrics, overrides, events, nodeWatch, services });
      }))));
    }
  } catch (e) {
    await Promise.all(nodes.map((n) => n.stop(false)));
    nodeWatch?.stop();
    services?.stop();
    certificates?.stop();
    client?.close();
    heartbeats?.close();
    throw e;
  }
  return {
    nodes,
    client,
    metrics,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop(true)));
      for (const n of nodes) n.runtime.close();
      nodeWatch?.stop();
      services?.stop();
      certificates?.stop();
      client?.close();
      heartbeats?.close();
    },
  };
}
