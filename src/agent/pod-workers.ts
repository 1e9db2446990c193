// Pod workers: one level-triggered reconciler per pod. Each sync compares the pod's spec with what
// the runtime holds, acts and reports the pod's status: the pod's volumes and cgroup, then its sandbox
// (retried with back-off and reported when it fails, never while the runtime's network is not ready for
// a pod off the host network), its init containers one after the other, then its containers (started,
// restarted with back-off, killed on failed liveness), the ephemeral containers added to it (`kubectl debug`)
// once each, never restarted, and on deletion everything stopped and removed. A container's postStart hook runs
// once it started (a failure kills it) and its preStop hook before it is stopped, within the grace period.
// A sync of a pod never runs twice at once; a change during a sync runs it again. A relist of the
// runtime (the reference's PLEG) notices containers that changed on their own.

import { join } from 'node:path';
import type { AgentPod, Container, EphemeralContainer, LifecycleHandler, PodStatus, Probe } from './objects.js';
import { isTerminalPhase } from './objects.js';
import { ImageNeverPulled, type ContainerInfo, type ContainerRuntime, type ProbeKind, type SandboxInfo } from './runtime/types.js';
import { podStatus, withOthersConditions, type ContainerView } from './pod-status.js';
import { noEvents, type Recorder } from './events.js';
import type { DnsSettings } from './dns.js';
import { VolumeErrors, type VolumeManager } from './volumes/index.js';
import type { CgroupManager } from './cgroups.js';
import { containerConfig, specImageLabel, type ContainerConfigDeps } from './container-config.js';
import { nonRootViolation } from './security.js';
import { podLogDirectory, sandboxConfig } from './sandbox.js';
import { terminationMessage, terminationMessageFile, terminationMessageMount } from './termination-message.js';
import { httpProbe } from './runtime/prober.js';
import { formatDuration } from '../config/flags.js';

export { podLogDirectory } from './sandbox.js';

/** the failures a volume set-up reports, one per volume */
const mountFailures = (e: unknown): Error[] => (e instanceof VolumeErrors ? e.failures : [e as Error]);

export interface PodWorkerDeps {
  runtime: ContainerRuntime;
  runtimeName: string;
  nodeName: string;
  hostIP: string;
  rootDir: string;
  /** the status the pod should show; the status manager writes it */
  reportStatus(pod: AgentPod, status: PodStatus): void;
  /** every container of a pod being deleted has stopped */
  terminated(pod: AgentPod): void;
  /** how often the runtime is relisted to notice containers that changed (default 1 s) */
  relistMs?: number;
  log?(message: string): void;
  maxDeadPerContainer?: number;
  recorder?: Recorder;
  dns?: DnsSettings;
  volumes: VolumeManager;
  cgroups?: CgroupManager;
  /** what container configurations are built from, besides the volumes and the pod's addresses */
  containers: Omit<ContainerConfigDeps, 'volumes' | 'facts'>;
  /** whether the runtime's network is ready for pods off the host network, and why not */
  network(): { ready: boolean; message: string };
  /** how often content volumes (configMap, secret, downwardAPI, projected) are brought up to date (default 60 s) */
  volumeRefreshMs?: number;
  /** --keep-terminated-pod-volumes: volumes of pods that ran to completion stay until the pod is deleted */
  keepTerminatedPodVolumes?: boolean;
  /** the pod has stopped for good (deleted, removed or evicted): what was held for it can go */
  released?(pod: AgentPod): void;
  /** writes the pod's hosts file once its addresses are known; its path, or undefined when the runtime's serves */
  hostsFile?(pod: AgentPod, ips: string[]): Promise<string | undefined>;
  /** containers get a termination-message file, read into their terminated state (real runtimes: files on the node) */
  terminationMessages?: boolean;
}

export interface PodWorkers {
  /** a pod from the merged sources, new or changed; a deletionTimestamp makes it terminate */
  update(pod: AgentPod): void;
  /** the pod left every source: stop it */
  remove(uid: string): void;
  /** stops the pod's containers for good and reports it Failed with reason Evicted; false when it already is */
  evict(uid: string, message: string, graceSeconds: number): boolean;
  /** pods with their containers and sandbox, for the agent's server and stats */
  pods(): { pod: AgentPod; containers: ContainerInfo[]; sandbox?: SandboxInfo }[];
  /** the addresses of a pod the agent runs (empty until its sandbox exists) */
  podIPs(uid: string): string[];
  /** resolves when no sync is running or queued */
  idle(): Promise<void>;
  close(): Promise<void>;
}

interface ProbeState {
  startupDone: boolean;
  ready: boolean;
  failures: Record<ProbeKind, number>;
  successes: Record<ProbeKind, number>;
  nextAt: Record<ProbeKind, number>;
}

interface Waiting {
  reason: string;
  message?: string;
}

interface Backoff {
  delayMs: number;
  at: number;
}

interface Worker {
  pod: AgentPod;
  removed: boolean;
  sandbox?: SandboxInfo;
  containers: ContainerInfo[];
  /** made for the first container with probes, the first waiting reason (most pods have neither: a map costs 200 bytes) */
  probes?: Map<string, ProbeState>;
  waiting?: Map<string, Waiting>;
  startTime: number;
  running?: Promise<void>;
  again: boolean;
  timer?: NodeJS.Timeout;
  finished: boolean;
  /** the agent stops the pod for good and reports it Failed with this reason: Evicted, or DeadlineExceeded */
  evicted?: { reason: string; message: string; graceSeconds: number };
  adoptionTried?: boolean;
  /** the ids of its containers that had ended when a sync last looked */
  exitedSeen?: string;
  /** why the pod's volumes or sandbox are not there yet: shown on its waiting containers */
  setupFailure?: Waiting & { event: string };
  setupBackoff?: Backoff;
  hostsFile?: string;
  /** the termination messages of exited containers, by container id, read once */
  messages?: Map<string, string>;
  /** the volumes of a finished pod were torn down */
  volumesReleased?: boolean;
  /** content volumes are to be brought up to date at the next sync */
  refreshDue?: boolean;
}

const backoffInitialMs = 10_000;
const backoffMaxMs = 300_000;
const setupBackoffInitialMs = 1_000;
const setupBackoffMaxMs = 30_000;
/** how soon a pod whose image pull failed is synced again, to show it in back-off */
const pullRetrySyncMs = 1_000;
const grow = (b: Backoff | undefined, initial: number, max: number, now: number): Backoff => ({ delayMs: b ? Math.min(b.delayMs * 2, max) : initial, at: now });

export function createPodWorkers(deps: PodWorkerDeps): PodWorkers {
  const workers = new Map<string, Worker>();
  /** back-off per pod uid and container name: current delay and when it was last used */
  const backoff = new Map<string, Backoff>();
  let closed = false;
  const log = deps.log ?? (() => {});
  const events = deps.recorder ?? noEvents;
  const fieldPath = (pod: AgentPod, name: string) => `spec.${listOf(pod, name)}{${name}}`;
  const lastSeen = new Map<string, string>();
  /** pods already terminated: later copies from the sources (until they go) change nothing */
  const terminatedUids = new Set<string>();
  const ipsOf = (w: Worker | undefined) => (w?.sandbox?.ip ? [w.sandbox.ip, ...(w.sandbox.additionalIps ?? [])] : []);

  const relist = setInterval(() => void pleg(), deps.relistMs ?? 1000);
  relist.unref();
  // a runtime that tells of exits at once is relisted then (exits close together share one relist), so a container's
  // end reaches the pod's status without waiting for the periodic relist (5 s on simulated nodes)
  let relistSoon: NodeJS.Timeout | undefined;
  deps.runtime.onContainerExit?.(() => {
    if (relistSoon || closed) return;
    relistSoon = setTimeout(() => { relistSoon = undefined; void pleg(); }, 50);
    relistSoon.unref();
  });
  const refresh = setInterval(() => void refreshVolumes(), deps.volumeRefreshMs ?? 60_000);
  refresh.unref();

  /** the QoS groups follow the pods the node runs; updates run one after the other */
  let qosUpdate = Promise.resolve();
  const updateQos = () => {
    if (!deps.cgroups) return qosUpdate;
    const active = [...workers.values()].filter((w) => !w.finished && !w.removed).map((w) => w.pod);
    qosUpdate = qosUpdate.then(() => deps.cgroups!.updateQos(active)).catch((e) => log(`updating the QoS cgroups: ${(e as Error).message}`));
    return qosUpdate;
  };

  /** resyncs the pods whose containers changed state in the runtime */
  async function pleg() {
    let list: ContainerInfo[];
    try {
      list = await deps.runtime.listContainers();
    } catch (e) {
      log(`relist failed: ${(e as Error).message}`);
      return;
    }
    const bySandbox = new Map<string, string>();
    for (const w of workers.values()) if (w.sandbox) bySandbox.set(w.sandbox.id, w.pod.metadata.uid);
    for (const c of list) {
      const seen = `${c.state}/${c.exitCode ?? ''}`;
      if (lastSeen.get(c.id) === seen) continue;
      lastSeen.set(c.id, seen);
      const uid = bySandbox.get(c.sandboxId);
      if (uid) schedule(uid);
    }
    if (lastSeen.size > list.length * 2 + 100) {
      const live = new Set(list.map((c) => c.id));
      for (const id of lastSeen.keys()) if (!live.has(id)) lastSeen.delete(id);
    }
  }

  /** content volumes are refreshed inside the pod's sync, so never beside its set-up or tear-down; a pod without any
   *  (every pod of a simulated node) is left alone: a sync of every pod each minute is the bulk of the work of a
   *  process that simulates a thousand nodes */
  function refreshVolumes() {
    for (const w of workers.values()) {
      if (!w.sandbox || w.finished || !deps.volumes.refreshes(w.pod)) continue;
      w.refreshDue = true;
      schedule(w.pod.metadata.uid);
    }
  }

  function schedule(uid: string, delayMs = 0) {
    const w = workers.get(uid);
    if (!w || closed || w.finished) return;
    if (delayMs > 0) {
      clearTimeout(w.timer);
      w.timer = setTimeout(() => schedule(uid), delayMs);
      w.timer.unref();
      return;
    }
    if (w.running) {
      w.again = true;
      return;
    }
    w.running = (async () => {
      do {
        w.again = false;
        try {
          await sync(w);
        } catch (e) {
          log(`sync of pod ${w.pod.metadata.namespace}/${w.pod.metadata.name} failed: ${(e as Error).message}`);
          schedule(uid, 1000);
        }
      } while (w.again && !closed && !w.finished);
      w.running = undefined;
    })();
  }

  async function sync(w: Worker) {
    const pod = w.pod;
    const uid = pod.metadata.uid;
    if (!w.sandbox && !w.adoptionTried) {
      // containers this agent started before a restart are taken over, not started twice
      w.adoptionTried = true;
      const mine = (await deps.runtime.listSandboxes()).filter((s) => s.uid === uid && s.ready).sort((a, b) => b.attempt - a.attempt)[0];
      if (mine) {
        w.sandbox = (await deps.runtime.sandboxInfo(mine.id)) ?? mine;
        // the volumes are set up again (idempotent): their paths are needed for new containers
        await deps.volumes.setUp(pod).catch((e) => log(`volumes of adopted pod ${pod.metadata.name}: ${(e as Error).message}`));
        w.hostsFile = await deps.hostsFile?.(pod, ipsOf(w)).catch(() => undefined);
      }
    }
    w.containers = w.sandbox ? await deps.runtime.listContainers(w.sandbox.id) : [];
    await readTerminationMessages(w);
    const deadline = deadlineOf(w);
    if (deadline !== undefined && Date.now() >= deadline && !w.evicted && !isFinished(w)) {
      w.evicted = { reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline', graceSeconds: pod.spec.terminationGracePeriodSeconds ?? 30 };
    }
    if (w.removed || pod.metadata.deletionTimestamp || w.evicted) return terminate(w);
    // a pod that already finished keeps the status it ended with; its volumes go unless kept
    if (isFinished(w)) {
      if (!deps.keepTerminatedPodVolumes && !w.volumesReleased) {
        w.volumesReleased = true;
        await deps.volumes.tearDown(pod).catch((e) => log(`removing the volumes of finished pod ${pod.metadata.name}: ${(e as Error).message}`));
      }
      return;
    }

    // a container that ended since the last look is reported before acting on it, as the reference's sync reports
    // what it found first: it is seen Error or Completed before its restart
    // (ids, not a count: the garbage collection removes older dead containers as new ones end)
    const exited = w.containers.filter((c) => c.state === 'exited').map((c) => c.id).join(' ');
    if (w.sandbox && exited !== (w.exitedSeen ?? '')) report(w);
    w.exitedSeen = exited;
    if (!w.sandbox || !w.sandbox.ready) {
      if (!(await prepareSandbox(w))) return report(w);
    } else if (w.refreshDue) {
      w.refreshDue = false;
      await deps.volumes.refresh(pod).catch((e) => {
        log(`refreshing the volumes of pod ${pod.metadata.namespace}/${pod.metadata.name}: ${(e as Error).message}`);
        for (const f of mountFailures(e)) events.event(pod, 'Warning', 'FailedMount', f.message);
      });
    }

    const now = Date.now();
    // a pod with a deadline is looked at again when it runs out
    let nextWake = deadline ?? Infinity;
    const init = await syncInitContainers(w, now);
    nextWake = Math.min(nextWake, init.wake);
    for (const spec of pod.spec.containers) {
      if (!init.done) {
        (w.waiting ??= new Map()).set(spec.name, { reason: 'PodInitializing' });
        continue;
      }
      if (w.waiting?.get(spec.name)?.reason === 'PodInitializing') w.waiting.delete(spec.name);
      const instances = instancesOf(w, spec.name);
      const current = instances[0];
      if (current?.state === 'running' && definitionChanged(spec, current)) {
        // a new image (the one field of a container that may change) restarts it at once, whatever the restart policy
        events.event(pod, 'Normal', 'Killing', `Container ${spec.name} definition changed, will be restarted`, fieldPath(pod, spec.name));
        await stopContainer(w, spec, current, pod.spec.terminationGracePeriodSeconds ?? 30);
        w.probes?.delete(current.id);
        nextWake = Math.min(nextWake, await startWithBackoff(w, spec, instances, now));
        continue;
      }
      if (current?.state === 'running') {
        nextWake = Math.min(nextWake, await runProbes(w, spec, current));
        continue;
      }
      if (current?.state === 'exited' && !shouldRestart(pod, current)) continue;
      nextWake = Math.min(nextWake, await startWithBackoff(w, spec, instances, now));
    }
    if (init.done) nextWake = Math.min(nextWake, await startEphemeralContainers(w, now));
    w.containers = await deps.runtime.listContainers(w.sandbox!.id);
    await readTerminationMessages(w);
    report(w);
    if (nextWake < Infinity) schedule(uid, Math.max(10, nextWake - Date.now()));
  }

  /** the termination messages of containers that exited since the last look, read once each */
  async function readTerminationMessages(w: Worker) {
    if (!deps.terminationMessages) return;
    for (const c of w.containers) {
      if (c.state !== 'exited' || w.messages?.has(c.id)) continue;
      const spec = specOf(w.pod, c.name);
      const file = terminationMessageFile(deps.volumes.podDir(w.pod), c.name, c.attempt);
      const logFile = join(podLogDirectory(deps.rootDir, w.pod), c.name, `${c.attempt}.log`);
      const message = await terminationMessage(file, logFile, spec, c.exitCode).catch(() => '');
      (w.messages ??= new Map()).set(c.id, message);
    }
    // ids of removed containers go
    if (w.messages && w.messages.size > w.containers.length) for (const id of w.messages.keys()) if (!w.containers.some((c) => c.id === id)) w.messages.delete(id);
  }

  const instancesOf = (w: Worker, name: string) => w.containers.filter((c) => c.name === name).sort((a, b) => b.attempt - a.attempt);

  /** init containers run one at a time, in order, each to success; done once all have */
  async function syncInitContainers(w: Worker, now: number): Promise<{ done: boolean; wake: number }> {
    const policy = w.pod.spec.restartPolicy ?? 'Always';
    for (const spec of w.pod.spec.initContainers ?? []) {
      const instances = instancesOf(w, spec.name);
      const current = instances[0];
      if (current?.state === 'exited' && current.exitCode === 0) continue;
      if (current && current.state !== 'exited') return { done: false, wake: Infinity };
      // a failed init container is run again unless the pod never restarts (it then fails)
      if (current?.state === 'exited' && policy === 'Never') return { done: false, wake: Infinity };
      return { done: false, wake: await startWithBackoff(w, spec, instances, now) };
    }
    return { done: true, wake: Infinity };
  }

  /** the id of the container's running instance (an ephemeral container aimed at it joins its process namespace) */
  function runningId(w: Worker, name: string): string {
    const c = instancesOf(w, name)[0];
    if (c?.state !== 'running') throw new Error(`target container "${name}" is not running`);
    return c.id;
  }

  /** an ephemeral container runs once: started when it has never run (a failed start is tried again), never restarted */
  async function startEphemeralContainers(w: Worker, now: number): Promise<number> {
    let wake = Infinity;
    for (const spec of w.pod.spec.ephemeralContainers ?? []) {
      if (instancesOf(w, spec.name).length) continue;
      wake = Math.min(wake, await startWithBackoff(w, spec, [], now));
    }
    return wake;
  }

  /** starts the next instance of a container, after the back-off of its last exit or failed start; returns when to look again */
  async function startWithBackoff(w: Worker, spec: Container, instances: ContainerInfo[], now: number): Promise<number> {
    const pod = w.pod;
    const uid = pod.metadata.uid;
    const current = instances[0];
    let wake = Infinity;
    if (current?.state === 'exited') {
      const key = `${uid}/${spec.name}`;
      const b = backoff.get(key);
      const finished = current.finishedAt ?? now;
      if (b && now - finished < b.delayMs) {
        if (w.waiting?.get(spec.name)?.reason !== 'CrashLoopBackOff') events.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${spec.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${uid})`, fieldPath(pod, spec.name));
        (w.waiting ??= new Map()).set(spec.name, { reason: 'CrashLoopBackOff', message: crashLoopMessage(b.delayMs, spec.name, pod) });
        return finished + b.delayMs;
      }
      // a container that ran long enough starts over with the initial delay
      const ranLong = b && finished - (current.startedAt ?? finished) > 2 * backoffMaxMs;
      backoff.set(key, { delayMs: !b || ranLong ? backoffInitialMs : Math.min(b.delayMs * 2, backoffMaxMs), at: now });
    }
    // an image that could not be pulled (or a container not created) is tried again with back-off
    const failedKey = `failed/${uid}/${spec.name}`;
    const failed = backoff.get(failedKey);
    if (failed && now - failed.at < failed.delayMs) {
      const waiting = w.waiting?.get(spec.name);
      if (waiting?.reason === 'ErrImagePull') {
        const message = `Back-off pulling image "${spec.image}"`;
        w.waiting!.set(spec.name, { reason: 'ImagePullBackOff', message });
        events.event(pod, 'Normal', 'BackOff', message, fieldPath(pod, spec.name));
        events.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff', fieldPath(pod, spec.name));
      }
      return failed.at + failed.delayMs;
    }
    if (await startContainer(w, spec, current ? current.attempt + 1 : 0)) {
      backoff.delete(failedKey);
    } else {
      const next = grow(failed, backoffInitialMs, backoffMaxMs, now);
      backoff.set(failedKey, next);
      // a failed pull is shown as ErrImagePull only until the next sync, which finds it in back-off (ImagePullBackOff),
      // as the reference's pod worker syncs a failed pod again soon
      wake = now + (w.waiting?.get(spec.name)?.reason === 'ErrImagePull' ? Math.min(pullRetrySyncMs, next.delayMs) : next.delayMs);
    }
    for (const old of instances.slice(deps.maxDeadPerContainer ?? 1)) if (old.state === 'exited') await deps.runtime.removeContainer(old.id).catch(() => {});
    return wake;
  }

  /** the sandbox's prerequisites and the sandbox; false (with the reason recorded and a retry scheduled) when not there yet */
  async function prepareSandbox(w: Worker): Promise<boolean> {
    const pod = w.pod;
    const uid = pod.metadata.uid;
    const now = Date.now();
    const b = w.setupBackoff;
    if (b && now - b.at < b.delayMs) {
      schedule(uid, b.at + b.delayMs - now);
      return false;
    }
    /** reported as a Warning event of that reason at every try, tried again after a growing back-off */
    const fail = (event: string, message: string) => {
      events.event(pod, 'Warning', event, message);
      w.setupFailure = { reason: 'ContainerCreating', message, event };
      w.setupBackoff = grow(w.setupBackoff, setupBackoffInitialMs, setupBackoffMaxMs, Date.now());
      schedule(uid, w.setupBackoff.delayMs);
      return false;
    };
    if (!pod.spec.hostNetwork) {
      const net = deps.network();
      if (!net.ready) return fail('NetworkNotReady', `network is not ready: ${net.message}`);
    }
    try {
      await deps.volumes.setUp(pod);
    } catch (e) {
      // an event for each volume that failed; the pod waits with the first one's message
      const [first, ...others] = mountFailures(e);
      const failed = fail('FailedMount', first!.message);
      for (const f of others) events.event(pod, 'Warning', 'FailedMount', f.message);
      return failed;
    }
    let cgroupParent = '';
    if (deps.cgroups) {
      await updateQos();
      try {
        cgroupParent = await deps.cgroups.ensurePod(pod);
      } catch (e) {
        return fail('FailedCreatePodSandBox', `Failed to create pod sandbox: ${(e as Error).message}`);
      }
    }
    const attempt = w.sandbox ? w.sandbox.attempt + 1 : 0;
    if (w.sandbox) {
      // the sandbox died: what is left of it goes before a new one is made
      await deps.runtime.stopSandbox(w.sandbox.id).catch(() => {});
      await deps.runtime.removeSandbox(w.sandbox.id).catch(() => {});
      events.event(pod, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
    }
    const config = sandboxConfig(pod, attempt, cgroupParent, settings);
    let id: string;
    try {
      id = await deps.runtime.runSandbox(config);
    } catch (e) {
      // a half-made sandbox would keep its name reserved: it is removed before the next try
      for (const s of await deps.runtime.listSandboxes().catch(() => [])) {
        if (s.uid !== uid || s.ready) continue;
        await deps.runtime.stopSandbox(s.id).catch(() => {});
        await deps.runtime.removeSandbox(s.id).catch((err) => log(`removing failed sandbox ${s.id}: ${(err as Error).message}`));
      }
      w.sandbox = undefined;
      return fail('FailedCreatePodSandBox', `Failed to create pod sandbox: ${(e as Error).message}`);
    }
    w.sandbox = (await deps.runtime.sandboxInfo(id)) ?? { id, uid, name: config.name, namespace: config.namespace, attempt, ready: true, createdAt: Date.now() };
    w.containers = [];
    w.setupFailure = undefined;
    w.setupBackoff = undefined;
    w.hostsFile = await deps.hostsFile?.(pod, ipsOf(w));
    return true;
  }

  /** true when the container was created and started */
  async function startContainer(w: Worker, spec: Container, attempt: number): Promise<boolean> {
    const sandbox = w.sandbox!;
    const pod = w.pod;
    const image = spec.image ?? '';
    const failed = (reason: string, message: string, event: string) => {
      (w.waiting ??= new Map()).set(spec.name, { reason, message });
      events.event(pod, 'Warning', 'Failed', event, fieldPath(pod, spec.name));
      return false;
    };
    let imageInfo;
    let pullStarted: number | undefined;
    try {
      imageInfo = await deps.runtime.ensureImage(image, spec.imagePullPolicy, () => {
        pullStarted = Date.now();
        events.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, fieldPath(pod, spec.name));
      });
    } catch (e) {
      // the reference's image manager says what went wrong, then the container's start says which error it was
      if (e instanceof ImageNeverPulled) {
        events.event(pod, 'Warning', 'ErrImageNeverPull', e.message, fieldPath(pod, spec.name));
        return failed('ErrImageNeverPull', e.message, 'Error: ErrImageNeverPull');
      }
      events.event(pod, 'Warning', 'Failed', `Failed to pull image "${image}": ${(e as Error).message}`, fieldPath(pod, spec.name));
      return failed('ErrImagePull', (e as Error).message, 'Error: ErrImagePull');
    }
    // the reference's messages; a pull waiting for another (serialized pulls) is timed from its start here
    const took = pullStarted === undefined ? undefined : formatDuration(Date.now() - pullStarted);
    events.event(pod, 'Normal', 'Pulled', took === undefined ? `Container image "${image}" already present on machine`
      : `Successfully pulled image "${image}" in ${took} (${took} including waiting)`, fieldPath(pod, spec.name));
    let config;
    try {
      const violation = nonRootViolation(pod, spec, imageInfo);
      if (violation) throw new Error(violation);
      config = await containerConfig(pod, spec, attempt, imageInfo.id, {
        ...deps.containers, volumes: deps.volumes, facts: { nodeName: deps.nodeName, hostIP: deps.hostIP, podIPs: ipsOf(w) },
      });
      const message = deps.terminationMessages && await terminationMessageMount(deps.volumes.podDir(pod), spec, attempt);
      if (message && !config.mounts.some((m) => m.containerPath === message.containerPath)) config.mounts.push(message);
      if (w.hostsFile && !config.mounts.some((m) => m.containerPath === '/etc/hosts')) config.mounts.push({ containerPath: '/etc/hosts', hostPath: w.hostsFile, readOnly: false, propagation: 'private' });
      const target = (spec as EphemeralContainer).targetContainerName;
      if (target) config.security.namespaces = { ...config.security.namespaces, pid: 'TARGET', targetId: runningId(w, target) };
    } catch (e) {
      return failed('CreateContainerConfigError', (e as Error).message, `Error: ${(e as Error).message}`);
    }
    let id: string;
    try {
      // the sandbox's configuration as of the pod now, as the reference computes it for every container it starts
      // (not kept from the sandbox's start: with thousands of pods a process, a kilobyte a pod)
      id = await deps.runtime.createContainer(sandbox.id, sandboxConfig(pod, sandbox.attempt, deps.cgroups?.podCgroupName(pod) ?? '', settings), config);
    } catch (e) {
      return failed('CreateContainerError', (e as Error).message, `Error: ${(e as Error).message}`);
    }
    events.event(pod, 'Normal', 'Created', `Created container ${spec.name}`, fieldPath(pod, spec.name));
    try {
      await deps.runtime.startContainer(id);
    } catch (e) {
      return failed('RunContainerError', (e as Error).message, `Error: ${(e as Error).message}`);
    }
    events.event(pod, 'Normal', 'Started', `Started container ${spec.name}`, fieldPath(pod, spec.name));
    const postStart = spec.lifecycle?.postStart;
    const hookFailure = postStart && await runHook(w, spec, id, postStart, 'PostStart', pod.spec.terminationGracePeriodSeconds ?? 30);
    if (hookFailure) {
      // the container is killed and restarted as its restart policy says, showing why meanwhile
      events.event(pod, 'Warning', 'FailedPostStartHook', hookFailure, fieldPath(pod, spec.name));
      await deps.runtime.stopContainer(id, pod.spec.terminationGracePeriodSeconds ?? 30).catch(() => {});
      (w.waiting ??= new Map()).set(spec.name, { reason: 'PostStartHookError', message: hookFailure });
      return true;
    }
    w.waiting?.delete(spec.name);
    return true;
  }

  /** runs a lifecycle hook of a container; the reason it failed, or undefined */
  async function runHook(w: Worker, spec: Container, containerId: string, hook: LifecycleHandler, kind: 'PostStart' | 'PreStop',
    timeoutSeconds: number): Promise<string | undefined> {
    const who = `Container "${spec.name}" in Pod "${w.pod.metadata.name}_${w.pod.metadata.namespace}(${w.pod.metadata.uid})"`;
    try {
      if (hook.exec) {
        const command = hook.exec.command ?? [];
        const r = await deps.runtime.execSync(containerId, command, timeoutSeconds);
        return r.exitCode === 0 ? undefined
          : `Exec lifecycle hook (${JSON.stringify(command)}) for ${who} failed - error: command '${command.join(' ')}' exited with ${r.exitCode}: ${r.stderr}${r.stdout}`;
      }
      if (hook.httpGet) {
        const { ok } = await httpProbe({ httpGet: hook.httpGet, timeoutSeconds: Math.max(1, timeoutSeconds) }, w.sandbox?.ip || deps.hostIP, spec);
        return ok ? undefined : `HTTP lifecycle hook (${hook.httpGet.path ?? ''}) for ${who} failed`;
      }
      return `${kind} hook of ${who}: only exec and httpGet handlers are supported`;
    } catch (e) {
      return `${kind} hook of ${who} failed - error: ${(e as Error).message}`;
    }
  }

  /** stops a container, running its preStop hook first: the hook has the grace period, the stop what is left of it (at
   *  least 2 s); a stop without grace (a forced deletion) runs no hook */
  async function stopContainer(w: Worker, spec: Container | undefined, c: ContainerInfo, graceSeconds: number) {
    const preStop = spec?.lifecycle?.preStop;
    if (preStop && c.state === 'running' && graceSeconds > 0) {
      const started = Date.now();
      const failure = await runHook(w, spec, c.id, preStop, 'PreStop', graceSeconds);
      if (failure) events.event(w.pod, 'Warning', 'FailedPreStopHook', failure, fieldPath(w.pod, spec.name));
      graceSeconds = Math.max(2, graceSeconds - Math.floor((Date.now() - started) / 1000));
    }
    await deps.runtime.stopContainer(c.id, graceSeconds);
  }

  /** runs the probes that are due; returns when the next one is due */
  async function runProbes(w: Worker, spec: Container, c: ContainerInfo): Promise<number> {
    // a container without probes keeps no probe state (its views read the defaults: started and ready)
    if (!spec.startupProbe && !spec.livenessProbe && !spec.readinessProbe) return Infinity;
    let p = w.probes?.get(c.id);
    const started = c.startedAt ?? c.createdAt;
    if (!p) {
      p = {
        startupDone: !spec.startupProbe, ready: !spec.readinessProbe,
        failures: { liveness: 0, readiness: 0, startup: 0 }, successes: { liveness: 0, readiness: 0, startup: 0 },
        nextAt: { liveness: 0, readiness: 0, startup: 0 },
      };
      (w.probes ??= new Map()).set(c.id, p);
    }
    const kinds: [ProbeKind, Probe | undefined][] = p.startupDone
      ? [['liveness', spec.livenessProbe], ['readiness', spec.readinessProbe]]
      : [['startup', spec.startupProbe]];
    let next = Infinity;
    const now = Date.now();
    for (const [kind, probe] of kinds) {
      if (!probe) continue;
      const due = Math.max(p.nextAt[kind], started + (probe.initialDelaySeconds ?? 0) * 1000);
      if (now < due) {
        next = Math.min(next, due);
        continue;
      }
      const Kind = `${kind[0]!.toUpperCase()}${kind.slice(1)}`;
      const { ok, errored, said } = await deps.runtime.probe(c, w.sandbox!, kind, probe, spec).then(
        (r) => ({ ok: r.ok, errored: false, said: `${Kind} probe failed: ${r.output}` }),
        (e) => ({ ok: false, errored: true, said: `${Kind} probe errored: ${(e as Error).message}` }));
      p.nextAt[kind] = Date.now() + (probe.periodSeconds ?? 10) * 1000;
      next = Math.min(next, p.nextAt[kind]);
      // every failed attempt is an event, as the reference's prober records them (repeats raise the event's count);
      // an attempt that could not run (an error, not a failure) counts neither way, as the reference throws it away
      if (!ok) events.event(w.pod, 'Warning', 'Unhealthy', said, fieldPath(w.pod, spec.name));
      if (errored) continue;
      if (ok) {
        p.failures[kind] = 0;
        p.successes[kind]++;
        if (p.successes[kind] < (kind === 'readiness' ? probe.successThreshold ?? 1 : 1)) continue;
        if (kind === 'startup') {
          p.startupDone = true;
          return now; // liveness and readiness start now
        }
        if (kind === 'readiness') p.ready = true;
        continue;
      }
      p.successes[kind] = 0;
      p.failures[kind]++;
      if (p.failures[kind] < (probe.failureThreshold ?? 3)) continue;
      if (kind === 'readiness') {
        p.ready = false;
        continue;
      }
      // liveness or startup failed: the container is killed and restarted per the restart policy
      log(`container ${c.name} of pod ${w.pod.metadata.name} failed its ${kind} probe; killing it`);
      // the reference says it will be restarted unless the pod never restarts (the kill is the same either way)
      const again = (w.pod.spec.restartPolicy ?? 'Always') !== 'Never' ? ', will be restarted' : '';
      events.event(w.pod, 'Normal', 'Killing', `Container ${spec.name} failed ${kind} probe${again}`, fieldPath(w.pod, spec.name));
      const grace = probe.terminationGracePeriodSeconds ?? w.pod.spec.terminationGracePeriodSeconds ?? 30;
      await stopContainer(w, spec, c, grace);
      w.probes?.delete(c.id);
      return Date.now();
    }
    return next;
  }

  async function terminate(w: Worker) {
    const pod = w.pod;
    // the deletion's grace period is the API server's word, longer than the spec's too (kubectl delete --grace-period=60)
    const grace = w.evicted?.graceSeconds ?? pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
    const live = w.containers.filter((c) => c.state === 'running' || c.state === 'created');
    for (const c of live) if (!w.removed) events.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`, fieldPath(pod, c.name));
    await Promise.all(live.map((c) => stopContainer(w, specOf(pod, c.name), c, grace)));
    if (w.sandbox) {
      await deps.runtime.stopSandbox(w.sandbox.id);
      w.containers = await deps.runtime.listContainers(w.sandbox.id);
      await readTerminationMessages(w);
    }
    if (!w.removed) report(w, true);
    if (w.evicted) {
      // an evicted pod stays in the API, Failed, with its containers' last states
      const status: PodStatus = { ...w.pod.status, phase: 'Failed', reason: w.evicted.reason, message: w.evicted.message };
      w.pod = { ...w.pod, status };
      deps.reportStatus(w.pod, status);
      // the reference's agent reports a passed deadline as a Normal event, an eviction as a Warning
      events.event(pod, w.evicted.reason === 'Evicted' ? 'Warning' : 'Normal', w.evicted.reason, w.evicted.message);
    }
    // what cannot be removed now is left to the container garbage collection
    const leftover = (what: string) => (e: unknown) => log(`removing ${what} of pod ${pod.metadata.name}: ${(e as Error).message}`);
    for (const c of w.containers) await deps.runtime.removeContainer(c.id).catch(leftover(`container ${c.name}`));
    if (w.sandbox) await deps.runtime.removeSandbox(w.sandbox.id).catch(leftover('the sandbox'));
    await deps.volumes.tearDown(pod).catch((e) => log(`removing the volumes of pod ${pod.metadata.name}: ${(e as Error).message}`));
    await deps.cgroups?.removePod(pod).catch((e) => log(`removing the cgroup of pod ${pod.metadata.name}: ${(e as Error).message}`));
    w.finished = true;
    clearTimeout(w.timer);
    workers.delete(pod.metadata.uid);
    void updateQos();
    if (!w.removed) terminatedUids.add(pod.metadata.uid);
    for (const spec of [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])]) {
      backoff.delete(`${pod.metadata.uid}/${spec.name}`);
      backoff.delete(`failed/${pod.metadata.uid}/${spec.name}`);
    }
    deps.released?.(pod);
    if (!w.removed && !w.evicted) deps.terminated(pod);
  }

  /** when the pod's activeDeadlineSeconds, counted from its start on this node, runs out */
  function deadlineOf(w: Worker): number | undefined {
    const seconds = w.pod.spec.activeDeadlineSeconds;
    return typeof seconds === 'number' ? w.startTime + seconds * 1000 : undefined;
  }

  function isFinished(w: Worker): boolean {
    return isTerminalPhase(w.pod.status?.phase) && w.containers.every((c) => c.state === 'exited');
  }

  function views(w: Worker, specs: Container[]): Map<string, ContainerView> {
    const out = new Map<string, ContainerView>();
    for (const spec of specs) {
      const instances = instancesOf(w, spec.name);
      const current = instances[0];
      const p = current && w.probes?.get(current.id);
      const running = current?.state === 'running';
      const started = running && (p ? p.startupDone : !spec.startupProbe);
      const withMessage = (c: ContainerInfo | undefined) => {
        const message = c && w.messages?.get(c.id);
        return message ? { ...c, message } : c;
      };
      out.set(spec.name, {
        current: withMessage(current), previous: withMessage(instances[1]),
        ready: running && started && (p ? p.ready : !spec.readinessProbe),
        started: !!started,
        waiting: running ? undefined : w.waiting?.get(spec.name) ?? (w.setupFailure ? { reason: w.setupFailure.reason, message: w.setupFailure.message } : undefined),
      });
    }
    return out;
  }

  function report(w: Worker, terminal = false) {
    const status = podStatus({
      pod: w.pod, views: views(w, w.pod.spec.containers), initViews: views(w, w.pod.spec.initContainers ?? []),
      ephemeralViews: views(w, w.pod.spec.ephemeralContainers ?? []),
      runtimeName: deps.runtimeName, hostIP: deps.hostIP, podIPs: ipsOf(w), startTime: w.startTime, terminal,
    });
    w.pod = { ...w.pod, status };
    deps.reportStatus(w.pod, status);
  }

  const settings = { rootDir: deps.rootDir, dns: deps.dns, seccompDefault: deps.containers.seccompDefault };

  return {
    update(pod) {
      const uid = pod.metadata.uid;
      if (terminatedUids.has(uid)) return;
      const w = workers.get(uid);
      if (w) {
        const labelsChanged = JSON.stringify([pod.metadata.labels, pod.metadata.annotations]) !== JSON.stringify([w.pod.metadata.labels, w.pod.metadata.annotations]);
        // keep the status this agent computed, the source's copy may lag behind it; but conditions others write
        // (an eviction's DisruptionTarget) come from the source
        w.pod = { ...pod, status: withOthersConditions(w.pod.status, pod.status) };
        // downward API files follow the pod's labels and annotations
        if (labelsChanged) w.refreshDue = true;
      } else {
        // a pod this agent ran before a restart keeps the start it reported (its deadline counts from it)
        const startTime = Date.parse(pod.status?.startTime ?? '') || Date.now();
        workers.set(uid, { pod, removed: false, containers: [], startTime, again: false, finished: false });
      }
      schedule(uid);
    },
    remove(uid) {
      terminatedUids.delete(uid);
      const w = workers.get(uid);
      if (!w) return;
      w.removed = true;
      schedule(uid);
    },
    evict(uid, message, graceSeconds) {
      const w = workers.get(uid);
      if (!w || w.evicted || w.finished) return false;
      w.evicted = { reason: 'Evicted', message, graceSeconds };
      schedule(uid);
      return true;
    },
    pods() {
      return [...workers.values()].map((w) => ({ pod: w.pod, containers: w.containers, sandbox: w.sandbox }));
    },
    podIPs: (uid) => ipsOf(workers.get(uid)),
    async idle() {
      for (;;) {
        const busy = [...workers.values()].map((w) => w.running).filter(Boolean);
        if (!busy.length) return;
        await Promise.all(busy);
      }
    },
    async close() {
      closed = true;
      clearInterval(relist);
      clearTimeout(relistSoon);
      clearInterval(refresh);
      for (const w of workers.values()) clearTimeout(w.timer);
      await Promise.all([...workers.values()].map((w) => w.running));
      await qosUpdate;
    },
  };
}

/** the waiting message of a container in back-off, the delay written as the reference writes a duration (1m20s, 5m0s) */
export const crashLoopMessage = (delayMs: number, container: string, pod: AgentPod) =>
  `back-off ${formatDuration(delayMs)} restarting failed container=${container} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;

/** the container runs another image than the spec names (containers started before the label was kept are left alone) */
function definitionChanged(spec: Container, c: ContainerInfo): boolean {
  const started = c.labels[specImageLabel];
  return started !== undefined && started !== (spec.image ?? '');
}

/** the spec of a regular container of the pod (init and ephemeral containers have no hooks) */
const specOf = (pod: AgentPod, name: string) => pod.spec.containers.find((c) => c.name === name);

/** the list of the pod's spec that names the container, for the field path of its events */
function listOf(pod: AgentPod, name: string): 'initContainers' | 'containers' | 'ephemeralContainers' {
  if ((pod.spec.initContainers ?? []).some((c) => c.name === name)) return 'initContainers';
  if ((pod.spec.ephemeralContainers ?? []).some((c) => c.name === name)) return 'ephemeralContainers';
  return 'containers';
}

function shouldRestart(pod: AgentPod, c: ContainerInfo): boolean {
  const policy = pod.spec.restartPolicy ?? 'Always';
  return policy === 'Always' || (policy === 'OnFailure' && (c.exitCode ?? 1) !== 0);
}
