// The Pod's status as the agent reports it, computed from the runtime's containers (the reference
// agent's phase rules): containerStatuses with state, last state, restart count and ids; phase;
// conditions PodScheduled, Initialized, ContainersReady and Ready.

import type { ContainerInfo } from './runtime/types.js';

export interface ContainerView {
  /** the newest instance of the container, if any */
  current?: ContainerInfo;
  /** the instance before it */
  previous?: ContainerInfo;
  ready: boolean;
  started: boolean;
  /** why it is waiting when it is not running (CrashLoopBackOff, ErrImagePull, ...) */
  waiting?: { reason: string; message?: string };
}

export const timestamp = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function state(c: ContainerInfo | undefined, runtimeName: string, waiting?: ContainerView['waiting']): any {
  if (c?.state === 'running') return { running: { startedAt: timestamp(c.startedAt ?? c.createdAt) } };
  if (c?.state === 'exited' && !waiting) {
    return {
      terminated: {
        exitCode: c.exitCode ?? 0, reason: c.reason ?? (c.exitCode ? 'Error' : 'Completed'), ...(c.message ? { message: c.message } : {}),
        startedAt: c.startedAt ? timestamp(c.startedAt) : null, finishedAt: timestamp(c.finishedAt ?? Date.now()), containerID: `${runtimeName}://${c.id}`,
      },
    };
  }
  return { waiting: { reason: waiting?.reason ?? 'ContainerCreating', ...(waiting?.message ? { message: waiting.message } : {}) } };
}

function lastState(c: ContainerInfo | undefined, runtimeName: string): any {
  return c?.state === 'exited' ? state(c, runtimeName) : {};
}

export function containerStatus(spec: any, view: ContainerView, runtimeName: string): any {
  const { current, previous } = view;
  // an exited container waiting for its restart shows as waiting, with the exit as its last state
  const restarting = current?.state === 'exited' && view.waiting;
  return {
    name: spec.name,
    state: state(current, runtimeName, restarting ? view.waiting : current ? undefined : view.waiting),
    lastState: restarting ? lastState(current, runtimeName) : lastState(previous, runtimeName),
    ready: view.ready,
    restartCount: current?.attempt ?? 0,
    image: spec.image,
    imageID: current?.imageRef ?? '',
    ...(current ? { containerID: `${runtimeName}://${current.id}` } : {}),
    started: view.started,
  };
}

/** The reference's phase rules for regular containers. */
export function podPhase(pod: any, statuses: any[]): string {
  let waiting = 0, running = 0, stopped = 0, succeeded = 0;
  for (const s of statuses) {
    if (s.state.running) running++;
    else if (s.state.terminated) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state.waiting) {
      if (s.lastState?.terminated) stopped++;
      else waiting++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return policy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

function condition(type: string, ok: boolean, old: any[], reason?: string, message?: string): any {
  const status = ok ? 'True' : 'False';
  const prior = old.find((c) => c.type === type);
  return {
    type, status, lastProbeTime: null,
    lastTransitionTime: prior?.status === status ? prior.lastTransitionTime : timestamp(Date.now()),
    ...(reason ? { reason } : {}), ...(message ? { message } : {}),
  };
}

export interface PodStatusInput {
  pod: any;
  views: Map<string, ContainerView>;
  runtimeName: string;
  hostIP: string;
  podIP?: string;
  startTime: number;
}

export function podStatus({ pod, views, runtimeName, hostIP, podIP, startTime }: PodStatusInput): any {
  const old = pod.status?.conditions ?? [];
  const specs: any[] = pod.spec?.containers ?? [];
  const containerStatuses = specs.map((c) => containerStatus(c, views.get(c.name) ?? { ready: false, started: false }, runtimeName));
  const phase = podPhase(pod, containerStatuses);
  const notReady = containerStatuses.filter((s) => !s.ready).map((s) => s.name);
  const done = phase === 'Succeeded' || phase === 'Failed';
  const containersReady = notReady.length === 0 && !done;
  const why = done ? 'PodCompleted' : 'ContainersNotReady';
  const message = done ? undefined : `containers with unready status: [${notReady.join(' ')}]`;
  const readinessGates: any[] = pod.spec?.readinessGates ?? [];
  const gatesOk = readinessGates.every((g) => old.some((c: any) => c.type === g.conditionType && c.status === 'True'));
  const conditions = [
    condition('Initialized', true, old),
    condition('Ready', containersReady && gatesOk, old, containersReady ? (gatesOk ? undefined : 'ReadinessGatesNotReady') : why, containersReady ? undefined : message),
    condition('ContainersReady', containersReady, old, containersReady ? undefined : why, containersReady ? undefined : message),
    condition('PodScheduled', true, old),
    // conditions owned by others (readiness gates, scheduler, disruption) are kept
    ...old.filter((c: any) => !['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].includes(c.type)),
  ];
  const ips = podIP ?? (pod.spec?.hostNetwork ? hostIP : undefined);
  return {
    phase,
    conditions,
    hostIP,
    ...(ips ? { podIP: ips, podIPs: [{ ip: ips }] } : {}),
    startTime: timestamp(startTime),
    containerStatuses,
    qosClass: pod.status?.qosClass,
  };
}
