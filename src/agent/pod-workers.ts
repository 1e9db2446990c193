// Pod workers: one level-triggered reconciler per pod. Each sync compares the pod's spec with what
// the runtime holds, acts (sandbox, images, containers started, restarted with back-off, killed on
// failed liveness, stopped on deletion) and reports the pod's status. A sync of a pod never runs
// twice at once; a change during a sync runs it again. A relist of the runtime (the reference's PLEG)
// notices containers that changed on their own.

import { join } from 'node:path';
import type { ContainerConfig, ContainerInfo, ContainerRuntime, ProbeKind, SandboxConfig, SandboxInfo } from './runtime/types.js';
import { podStatus, type ContainerView } from './pod-status.js';
import { noEvents, type Recorder } from './events.js';
import { podDns, type DnsSettings } from './dns.js';

export interface PodWorkerDeps {
  runtime: ContainerRuntime;
  runtimeName: string;
  nodeName: string;
  hostIP: string;
  rootDir: string;
  /** the status the pod should show; the status manager writes it */
  reportStatus(pod: any, status: any): void;
  /** every container of a pod being deleted has stopped */
  terminated(pod: any): void;
  /** how often the runtime is relisted to notice containers that changed (default 1 s) */
  relistMs?: number;
  log?(message: string): void;
  maxDeadPerContainer?: number;
  recorder?: Recorder;
  dns?: DnsSettings;
}

export interface PodWorkers {
  /** a pod from the merged sources, new or changed; a deletionTimestamp makes it terminate */
  update(pod: any): void;
  /** the pod left every source: stop it */
  remove(uid: string): void;
  /** stops the pod's containers for good and reports it Failed with reason Evicted */
  evict(uid: string, message: string, graceSeconds: number): void;
  /** pods with their containers, for the agent's server */
  pods(): { pod: any; containers: ContainerInfo[] }[];
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

interface Worker {
  pod: any;
  removed: boolean;
  sandbox?: SandboxInfo;
  sandboxConfig?: SandboxConfig;
  containers: ContainerInfo[];
  probes: Map<string, ProbeState>;
  waiting: Map<string, { reason: string; message?: string }>;
  startTime: number;
  running?: Promise<void>;
  again: boolean;
  timer?: NodeJS.Timeout;
  finished: boolean;
  evicted?: { message: string; graceSeconds: number };
  adoptionTried?: boolean;
}

const backoffInitialMs = 10_000;
const backoffMaxMs = 300_000;

export function createPodWorkers(deps: PodWorkerDeps): PodWorkers {
  const workers = new Map<string, Worker>();
  /** back-off per pod uid and container name: current delay and when it was last used */
  const backoff = new Map<string, { delayMs: number; at: number }>();
  let closed = false;
  const log = deps.log ?? (() => {});
  const events = deps.recorder ?? noEvents;
  const fieldPath = (name: string) => `spec.containers{${name}}`;
  const lastSeen = new Map<string, string>();
  /** pods already terminated: later copies from the sources (until they go) change nothing */
  const terminatedUids = new Set<string>();

  const relist = setInterval(() => void pleg(), deps.relistMs ?? 1000);
  relist.unref();

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
    const uid: string = pod.metadata.uid;
    if (!w.sandbox && !w.adoptionTried) {
      // containers this agent started before a restart are taken over, not started twice
      w.adoptionTried = true;
      const mine = (await deps.runtime.listSandboxes()).filter((s) => s.uid === uid && s.ready).sort((a, b) => b.attempt - a.attempt)[0];
      if (mine) {
        w.sandbox = (await deps.runtime.sandboxInfo(mine.id)) ?? mine;
        w.sandboxConfig = sandboxConfig(pod, mine.attempt, deps);
      }
    }
    w.containers = w.sandbox ? await deps.runtime.listContainers(w.sandbox.id) : [];
    if (w.removed || pod.metadata.deletionTimestamp || w.evicted) return terminate(w);
    // a pod that already finished keeps the status it ended with
    if (isFinished(w)) return;

    if (!w.sandbox || !w.sandbox.ready) {
      const attempt = w.sandbox ? w.sandbox.attempt + 1 : 0;
      if (w.sandbox) await deps.runtime.removeSandbox(w.sandbox.id).catch(() => {});
      const config = sandboxConfig(pod, attempt, deps);
      const id = await deps.runtime.runSandbox(config);
      w.sandbox = (await deps.runtime.sandboxInfo(id)) ?? { id, uid, name: config.name, namespace: config.namespace, attempt, ready: true, createdAt: Date.now() };
      w.sandboxConfig = config;
      w.containers = [];
    }

    let nextWake = Infinity;
    const now = Date.now();
    for (const spec of pod.spec?.containers ?? []) {
      const instances = w.containers.filter((c) => c.name === spec.name).sort((a, b) => b.attempt - a.attempt);
      const current = instances[0];
      if (current?.state === 'running') {
        nextWake = Math.min(nextWake, await runProbes(w, spec, current));
        continue;
      }
      const exitedBefore = current?.state === 'exited';
      if (exitedBefore && !shouldRestart(pod, current)) continue;
      if (exitedBefore) {
        const key = `${uid}/${spec.name}`;
        const b = backoff.get(key);
        const finished = current.finishedAt ?? now;
        if (b && now - finished < b.delayMs) {
          if (w.waiting.get(spec.name)?.reason !== 'CrashLoopBackOff') events.event(pod, 'Warning', 'BackOff', `Back-off restarting failed container ${spec.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${uid})`, fieldPath(spec.name));
          w.waiting.set(spec.name, { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(b.delayMs / 1000)}s restarting failed container=${spec.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${uid})` });
          nextWake = Math.min(nextWake, finished + b.delayMs);
          continue;
        }
        // a container that ran long enough starts over with the initial delay
        const ranLong = b && finished - (current.startedAt ?? finished) > 2 * backoffMaxMs;
        backoff.set(key, { delayMs: !b || ranLong ? backoffInitialMs : Math.min(b.delayMs * 2, backoffMaxMs), at: now });
      }
      // an image that could not be pulled (or a container not created) is tried again with back-off
      const failedKey = `failed/${uid}/${spec.name}`;
      const failed = backoff.get(failedKey);
      if (failed && now - failed.at < failed.delayMs) {
        const waiting = w.waiting.get(spec.name);
        if (waiting?.reason === 'ErrImagePull') w.waiting.set(spec.name, { reason: 'ImagePullBackOff', message: `Back-off pulling image "${spec.image}"` });
        nextWake = Math.min(nextWake, failed.at + failed.delayMs);
        continue;
      }
      if (await startContainer(w, spec, current ? current.attempt + 1 : 0)) {
        backoff.delete(failedKey);
      } else {
        backoff.set(failedKey, { delayMs: failed ? Math.min(failed.delayMs * 2, backoffMaxMs) : backoffInitialMs, at: now });
        nextWake = Math.min(nextWake, now + backoff.get(failedKey)!.delayMs);
      }
      for (const old of instances.slice(deps.maxDeadPerContainer ?? 1)) if (old.state === 'exited') await deps.runtime.removeContainer(old.id).catch(() => {});
    }
    w.containers = await deps.runtime.listContainers(w.sandbox!.id);
    report(w);
    if (nextWake < Infinity) schedule(uid, Math.max(10, nextWake - Date.now()));
  }

  /** true when the container was created and started */
  async function startContainer(w: Worker, spec: any, attempt: number): Promise<boolean> {
    const sandbox = w.sandbox!;
    let imageRef: string;
    try {
      imageRef = await deps.runtime.ensureImage(spec.image);
    } catch (e) {
      w.waiting.set(spec.name, { reason: 'ErrImagePull', message: (e as Error).message });
      events.event(w.pod, 'Warning', 'Failed', `Failed to pull image "${spec.image}": ${(e as Error).message}`, fieldPath(spec.name));
      return false;
    }
    try {
      const id = await deps.runtime.createContainer(sandbox.id, w.sandboxConfig!, containerConfig(w.pod, spec, attempt, imageRef, deps));
      events.event(w.pod, 'Normal', 'Created', `Created container ${spec.name}`, fieldPath(spec.name));
      await deps.runtime.startContainer(id);
      events.event(w.pod, 'Normal', 'Started', `Started container ${spec.name}`, fieldPath(spec.name));
      w.waiting.delete(spec.name);
      return true;
    } catch (e) {
      w.waiting.set(spec.name, { reason: 'CreateContainerError', message: (e as Error).message });
      events.event(w.pod, 'Warning', 'Failed', `Error: ${(e as Error).message}`, fieldPath(spec.name));
      return false;
    }
  }

  /** runs the probes that are due; returns when the next one is due */
  async function runProbes(w: Worker, spec: any, c: ContainerInfo): Promise<number> {
    let p = w.probes.get(c.id);
    const started = c.startedAt ?? c.createdAt;
    if (!p) {
      p = {
        startupDone: !spec.startupProbe, ready: !spec.readinessProbe,
        failures: { liveness: 0, readiness: 0, startup: 0 }, successes: { liveness: 0, readiness: 0, startup: 0 },
        nextAt: { liveness: 0, readiness: 0, startup: 0 },
      };
      w.probes.set(c.id, p);
    }
    const kinds: [ProbeKind, any][] = p.startupDone
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
      const ok = await deps.runtime.probe(c, w.sandbox!, kind, probe, w.pod).catch(() => false);
      p.nextAt[kind] = Date.now() + (probe.periodSeconds ?? 10) * 1000;
      next = Math.min(next, p.nextAt[kind]);
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
        if (p.ready || p.failures[kind] === (probe.failureThreshold ?? 3)) events.event(w.pod, 'Warning', 'Unhealthy', 'Readiness probe failed', fieldPath(spec.name));
        p.ready = false;
        continue;
      }
      // liveness or startup failed: the container is killed and restarted per the restart policy
      log(`container ${c.name} of pod ${w.pod.metadata.name} failed its ${kind} probe; killing it`);
      const Kind = kind === 'liveness' ? 'Liveness' : 'Startup';
      events.event(w.pod, 'Warning', 'Unhealthy', `${Kind} probe failed`, fieldPath(spec.name));
      events.event(w.pod, 'Normal', 'Killing', `Container ${spec.name} failed ${kind} probe, will be restarted`, fieldPath(spec.name));
      const grace = probe.terminationGracePeriodSeconds ?? w.pod.spec?.terminationGracePeriodSeconds ?? 30;
      await deps.runtime.stopContainer(c.id, grace);
      w.probes.delete(c.id);
      return Date.now();
    }
    return next;
  }

  async function terminate(w: Worker) {
    const pod = w.pod;
    const grace = w.evicted?.graceSeconds ?? Math.min(pod.metadata.deletionGracePeriodSeconds ?? Infinity, pod.spec?.terminationGracePeriodSeconds ?? 30);
    const live = w.containers.filter((c) => c.state === 'running' || c.state === 'created');
    for (const c of live) if (!w.removed) events.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`, fieldPath(c.name));
    await Promise.all(live.map((c) => deps.runtime.stopContainer(c.id, grace)));
    if (w.sandbox) {
      await deps.runtime.stopSandbox(w.sandbox.id);
      w.containers = await deps.runtime.listContainers(w.sandbox.id);
    }
    if (!w.removed) report(w);
    if (w.evicted) {
      // an evicted pod stays in the API, Failed, with its containers' last states
      const status = { ...w.pod.status, phase: 'Failed', reason: 'Evicted', message: w.evicted.message };
      w.pod = { ...w.pod, status };
      deps.reportStatus(w.pod, status);
      events.event(pod, 'Warning', 'Evicted', w.evicted.message);
    }
    for (const c of w.containers) await deps.runtime.removeContainer(c.id).catch(() => {});
    if (w.sandbox) await deps.runtime.removeSandbox(w.sandbox.id).catch(() => {});
    w.finished = true;
    clearTimeout(w.timer);
    workers.delete(pod.metadata.uid);
    if (!w.removed) terminatedUids.add(pod.metadata.uid);
    for (const spec of pod.spec?.containers ?? []) {
      backoff.delete(`${pod.metadata.uid}/${spec.name}`);
      backoff.delete(`failed/${pod.metadata.uid}/${spec.name}`);
    }
    if (!w.removed && !w.evicted) deps.terminated(pod);
  }

  function isFinished(w: Worker): boolean {
    const phase = w.pod.status?.phase;
    return (phase === 'Succeeded' || phase === 'Failed') && w.containers.every((c) => c.state === 'exited');
  }

  function report(w: Worker) {
    const views = new Map<string, ContainerView>();
    for (const spec of w.pod.spec?.containers ?? []) {
      const instances = w.containers.filter((c) => c.name === spec.name).sort((a, b) => b.attempt - a.attempt);
      const current = instances[0];
      const p = current && w.probes.get(current.id);
      const running = current?.state === 'running';
      const started = running && (p ? p.startupDone : !spec.startupProbe);
      views.set(spec.name, {
        current, previous: instances[1],
        ready: running && started && (p ? p.ready : !spec.readinessProbe),
        started: !!started,
        waiting: current?.state === 'running' ? undefined : w.waiting.get(spec.name),
      });
    }
    const status = podStatus({ pod: w.pod, views, runtimeName: deps.runtimeName, hostIP: deps.hostIP, podIP: w.sandbox?.ip, startTime: w.startTime });
    w.pod = { ...w.pod, status };
    deps.reportStatus(w.pod, status);
  }

  return {
    update(pod) {
      const uid = pod.metadata.uid;
      if (terminatedUids.has(uid)) return;
      const w = workers.get(uid);
      if (w) {
        // keep the status this agent computed; the source's copy may lag behind it
        w.pod = { ...pod, status: { ...pod.status, ...w.pod.status } };
      } else {
        workers.set(uid, { pod, removed: false, containers: [], probes: new Map(), waiting: new Map(), startTime: Date.now(), again: false, finished: false });
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
      if (!w || w.evicted) return;
      w.evicted = { message, graceSeconds };
      schedule(uid);
    },
    pods() {
      return [...workers.values()].map((w) => ({ pod: w.pod, containers: w.containers }));
    },
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
      for (const w of workers.values()) clearTimeout(w.timer);
      await Promise.all([...workers.values()].map((w) => w.running));
    },
  };
}

function shouldRestart(pod: any, c: ContainerInfo): boolean {
  const policy = pod.spec?.restartPolicy ?? 'Always';
  return policy === 'Always' || (policy === 'OnFailure' && (c.exitCode ?? 1) !== 0);
}

export function podLogDirectory(rootDir: string, pod: any): string {
  return join(rootDir, 'logs', 'pods', `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`);
}

function sandboxConfig(pod: any, attempt: number, deps: Pick<PodWorkerDeps, 'rootDir' | 'dns'>): SandboxConfig {
  const m = pod.metadata;
  const hostNetwork = !!pod.spec?.hostNetwork;
  return {
    name: m.name, namespace: m.namespace, uid: m.uid, attempt, hostNetwork,
    // a host-network pod shares the host's UTS namespace and must not set a host name
    hostname: hostNetwork ? undefined : pod.spec?.hostname ?? m.name,
    ...(deps.dns ? { dns: podDns(pod, deps.dns) } : {}),
    sysctls: Object.fromEntries((pod.spec?.securityContext?.sysctls ?? []).map((x: any) => [x.name, String(x.value)])),
    logDirectory: podLogDirectory(deps.rootDir, pod),
    labels: { ...(m.labels ?? {}) },
    annotations: { ...(m.annotations ?? {}) },
  };
}

function containerConfig(pod: any, spec: any, attempt: number, imageRef: string, deps: PodWorkerDeps): ContainerConfig {
  const field = (path: string): string => {
    switch (path) {
      case 'metadata.name': return pod.metadata.name;
      case 'metadata.namespace': return pod.metadata.namespace;
      case 'metadata.uid': return pod.metadata.uid;
      case 'spec.nodeName': return deps.nodeName;
      case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
      case 'status.hostIP': case 'status.podIP': return deps.hostIP;
      default: {
        const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
        return m ? pod.metadata[m[1]!]?.[m[2]!] ?? '' : '';
      }
    }
  };
  const env = (spec.env ?? []).map((e: any) => ({ name: e.name, value: e.value ?? (e.valueFrom?.fieldRef ? field(e.valueFrom.fieldRef.fieldPath) : '') }));
  // $(VAR) references to earlier variables are expanded, as the reference does for command and args
  const vars = new Map<string, string>(env.map((e: any) => [e.name, e.value]));
  const expand = (s: string) => s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name) => (all === '$$' ? '$' : vars.get(name) ?? all));
  return {
    name: spec.name, attempt, image: imageRef,
    command: (spec.command ?? []).map(expand), args: (spec.args ?? []).map(expand), env,
    workingDir: spec.workingDir,
    logPath: join(spec.name, `${attempt}.log`),
    labels: {}, annotations: {},
  };
}
