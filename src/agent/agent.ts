// The agent's wiring: for each node (one, or many simulated ones), the pod sources merged into the
// pod workers, the status manager, and the node's registration, status and lease.

import type { AgentOptions } from './options.js';
import { createClient, type Client } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import { startInformer, type Informer } from '../client/informer.js';
import { createPodConfig, type SourceName } from './sources/merge.js';
import { fetchManifestUrl, isMirrorPod, isStaticPod, readManifestPath } from './sources/static.js';
import { createPodWorkers, type PodWorkers } from './pod-workers.js';
import { createStatusManager, podsRef, type StatusManager } from './status-manager.js';
import { capacityAndAllocatable, hostIP, nodeStatusLoop, observeSignals, type NodeSettings, type NodeStatusLoop } from './node-status.js';
import { evictionManager, type Signals } from './eviction.js';
import type { ContainerRuntime } from './runtime/types.js';
import { eventRecorder } from './events.js';
import { forbiddenSysctls } from './sysctls.js';
import { collectImages, type ImageUse } from './gc.js';
import { fakeRuntime } from './runtime/fake.js';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export interface NodeAgent {
  nodeName: string;
  runtime: ContainerRuntime;
  workers: PodWorkers;
  /** resolves when every configured source has delivered its first set */
  synced: Promise<void>;
  status?: NodeStatusLoop;
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
  /** how often images are garbage collected (the reference's 5 minutes) */
  imageGcIntervalMs?: number;
  /** how often container logs are checked for rotation (10 s) */
  logCheckMs?: number;
}

export interface NodeAgentDeps {
  options: AgentOptions;
  nodeName: string;
  runtime: ContainerRuntime;
  runtimeName: string;
  client?: Client;
  log: Logger;
  tuning?: AgentTuning;
}

export async function startNodeAgent({ options: o, nodeName, runtime, runtimeName, client, log, tuning = {} }: NodeAgentDeps): Promise<NodeAgent> {
  const names = o.names;
  const simulated = o.runtime === 'fake';
  const settings: NodeSettings = {
    names, nodeName, labels: o.nodeLabels, taints: o.registerWithTaints, schedulable: o.registerSchedulable, nodeIps: o.nodeIps,
    providerId: o.providerId, podCidr: o.podCidr, maxPods: o.maxPods, podsPerCore: o.podsPerCore, systemReserved: o.systemReserved,
    clusterReserved: o.clusterReserved, evictionHard: o.evictionHard, maxImages: o.nodeStatusMaxImages, rootDir: o.rootDir, simulated,
  };
  const podCapacity = Number(capacityAndAllocatable(settings).allocatable.pods);
  let statusLoop: NodeStatusLoop | undefined;
  const status: StatusManager | undefined = client ? createStatusManager(client, names, nodeName, () => statusLoop?.node()?.metadata?.uid, (m) => log.warn(m)) : undefined;

  const recorder = client ? eventRecorder(client, nodeName, o.eventQps, o.eventBurst, (m) => log.warn(m)) : undefined;
  const workers = createPodWorkers({
    recorder,
    runtime, runtimeName, nodeName, hostIP: hostIP(o.nodeIps), rootDir: o.rootDir, relistMs: tuning.relistMs ?? (simulated ? 5000 : 1000),
    maxDeadPerContainer: o.maximumDeadContainersPerContainer,
    // the fake runtime has no use for DNS settings
    dns: simulated ? undefined : { clusterDns: o.clusterDns, clusterDomain: o.clusterDomain, resolvConf: String(o.values['resolv-conf']) },
    reportStatus: (pod, s) => status?.set(pod, s),
    terminated: (pod) => status?.terminated(pod),
    log: (m) => log.warn(`${nodeName}: ${m}`),
  });

  const evictions = evictionManager({
    hard: o.evictionHard, soft: o.evictionSoft, softGraceMs: o.evictionSoftGracePeriodMs, transitionMs: o.evictionPressureTransitionPeriodMs,
    maxPodGraceSeconds: Number(o.values['eviction-max-pod-grace-period']),
    observe: tuning.observeSignals ?? (simulated ? () => ({}) : () => observeSignals(o.rootDir)),
    activePods: () => workers.pods().map((x) => x.pod).filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase)),
    isCritical: (p) => isStaticPod(p, names) || (p.spec?.priority ?? 0) >= 2_000_000_000,
    evict: (p, message, grace) => {
      log.warn(`${nodeName}: evicting pod ${p.metadata.namespace}/${p.metadata.name}: ${message}`);
      workers.evict(p.metadata.uid, message, grace);
    },
  });

  // admission: a node runs at most its allocatable number of pods; the rest fail as the reference's do
  const admitted = new Set<string>();
  const podConfig = createPodConfig({
    update(pod) {
      const uid = pod.metadata.uid;
      const terminal = ['Succeeded', 'Failed'].includes(pod.status?.phase);
      if (!admitted.has(uid) && !pod.metadata.deletionTimestamp && !terminal) {
        const forbidden = forbiddenSysctls(pod, o.values['allowed-unsafe-sysctls'] as string[]);
        if (forbidden.length) {
          status?.set(pod, { ...pod.status, phase: 'Failed', reason: 'SysctlForbidden', message: `forbidden sysctl: ${forbidden.map((n) => `"${n}" not allowlisted`).join(', ')}` });
          return;
        }
        if (admitted.size >= podCapacity) {
          status?.set(pod, { ...pod.status, phase: 'Failed', reason: 'OutOfpods', message: `Node didn't have enough resource: pods, requested: 1, used: ${admitted.size}, capacity: ${podCapacity}` });
          return;
        }
        admitted.add(uid);
      }
      workers.update(pod);
    },
    remove(uid) {
      admitted.delete(uid);
      workers.remove(uid);
    },
  });

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
  }, tuning.evictionIntervalMs ?? 10_000);
  evictionTimer.unref();
  const imageUse = new Map<string, ImageUse>();
  const imageGcTimer = setInterval(() => {
    const policy = { highPercent: o.imageGcHighThreshold, lowPercent: o.imageGcLowThreshold, minAgeMs: o.minimumImageTtlMs };
    void collectImages(runtime, policy, String(o.values['pod-infra-container-image']), imageUse, (m) => log.warn(`${nodeName}: ${m}`))
      .then((ids) => { if (ids.length) log.info(`${nodeName}: image garbage collection removed ${ids.length} image(s)`); })
      .catch((e) => log.warn(`${nodeName}: image garbage collection: ${(e as Error).message}`));
  }, tuning.imageGcIntervalMs ?? 5 * 60_000);
  imageGcTimer.unref();
  let informer: Informer<any> | undefined;
  const staticBySource: Record<'file' | 'http', any[]> = { file: [], http: [] };
  const syncMirrors = () => status?.syncMirrors([...staticBySource.file, ...staticBySource.http]);

  const poll = (source: 'file' | 'http', everyMs: number, read: () => Promise<{ pods: any[]; errors: string[] }>) => {
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
      statusLoop = nodeStatusLoop({
        client, settings, runtime, register: true, recorder, updateFrequencyMs: o.nodeStatusUpdateFrequencyMs, leaseDurationSeconds: tuning.leaseDurationSeconds,
        log: (m) => log.warn(m),
        async health() {
          let ready: { ok: boolean; message?: string } = { ok: true };
          try {
            await runtime.ready();
          } catch (e) {
            ready = { ok: false, message: `container runtime is down: ${(e as Error).message}` };
          }
          return { ready, pressure: evictions.pressure() };
        },
      });
      await statusLoop.start();
    }
    sources.push('api');
    const pods = client.resource(podsRef);
    informer = startInformer(pods, (e) => {
      if (e.type === 'sync') {
        const runnable = [];
        for (const p of e.items) {
          if (isMirrorPod(p, names)) status?.observeMirror(p, false);
          else runnable.push(p);
        }
        podConfig.set('api', runnable);
        syncMirrors();
        return;
      }
      const p = e.object;
      if (isMirrorPod(p, names)) {
        status?.observeMirror(p, e.type === 'deleted');
        if (e.type === 'deleted') syncMirrors();
      } else if (e.type === 'deleted') podConfig.delete('api', p.metadata.uid);
      else podConfig.upsert('api', p);
    }, { fieldSelector: `spec.nodeName=${nodeName}`, onError: (err) => log.warn(`${nodeName}: pod watch: ${(err as Error).message}`) });
  }

  const synced = podConfig.seenAll(sources);
  // once every source has spoken, sandboxes of pods no source wants any more (left from before a restart) go
  void synced.then(async () => {
    const wanted = podConfig.pods();
    for (const s of await runtime.listSandboxes().catch(() => [])) {
      if (wanted.has(s.uid)) continue;
      log.info(`${nodeName}: removing sandbox ${s.id} of pod ${s.namespace}/${s.name}, which no source wants`);
      await runtime.stopSandbox(s.id).then(() => runtime.removeSandbox(s.id)).catch((e) => log.warn(`${nodeName}: removing sandbox ${s.id}: ${(e as Error).message}`));
    }
  });

  return {
    nodeName,
    runtime,
    workers,
    synced,
    status: statusLoop,
    async stop(markNotReady) {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      clearInterval(evictionTimer);
      clearInterval(imageGcTimer);
      informer?.stop();
      await workers.close();
      await Promise.all([status?.flushed(), recorder?.flushed()]);
      status?.stop();
      await statusLoop?.stop(markNotReady);
    },
  };
}

export interface RunningAgent {
  nodes: NodeAgent[];
  client?: Client;
  stop(): Promise<void>;
}

/** Starts every node this process runs: one, or --fake-nodes simulated ones. */
export async function runAgent(o: AgentOptions, log: Logger, tuning: AgentTuning = {}, makeRuntime?: (nodeName: string) => Promise<{ runtime: ContainerRuntime; name: string }>): Promise<RunningAgent> {
  let client: Client | undefined;
  if (o.clusterconfig) {
    const config = await loadClientConfig(o.clusterconfig);
    client = createClient(config, { qps: o.clusterApiQps * o.fakeNodes, burst: o.clusterApiBurst * o.fakeNodes, userAgent: `cluster-agent/${o.nodeName}` });
  }
  const nodeNames = o.fakeNodes > 1 ? Array.from({ length: o.fakeNodes }, (_, i) => `${o.nodeName}-${i}`) : [o.nodeName];
  const runtimeFor = makeRuntime ?? (async (nodeName: string) => {
    if (o.runtime === 'fake') return { runtime: fakeRuntime(nodeName, o.names), name: 'fake' };
    const { criRuntime } = await import('./runtime/cri.js');
    const runtime = await criRuntime({ endpoint: o.containerRuntimeEndpoint, imageEndpoint: o.imageServiceEndpoint, timeoutMs: o.runtimeRequestTimeoutMs, rootDir: o.rootDir, logMaxSize: o.containerLogMaxSize, logMaxFiles: o.containerLogMaxFiles, logCheckMs: tuning.logCheckMs });
    const v = await runtime.version();
    return { runtime, name: v.name };
  });
  const nodes: NodeAgent[] = [];
  try {
    // simulated nodes start in batches so registration does not exceed the shared connection pool
    for (let i = 0; i < nodeNames.length; i += 20) {
      nodes.push(...(await Promise.all(nodeNames.slice(i, i + 20).map(async (nodeName) => {
        const { runtime, name } = await runtimeFor(nodeName);
        await runtime.ready();
        return startNodeAgent({ options: o, nodeName, runtime, runtimeName: name, client, log, tuning });
      }))));
    }
  } catch (e) {
    await Promise.all(nodes.map((n) => n.stop(false)));
    client?.close();
    throw e;
  }
  return {
    nodes,
    client,
    async stop() {
      await Promise.all(nodes.map((n) => n.stop(true)));
      for (const n of nodes) n.runtime.close();
      client?.close();
    },
  };
}
