// A pod's Table row: readiness, the status the reference derives from its containers, restarts, and where it runs.
import type { ContainerStatus, Pod } from '../../../../api/types/core-v1.js';
import type { TableColumn, TableRowCondition } from '../../../types.js';
import { age, column, humanDuration, orNone, wide } from '../../columns.js';
import { podReady } from '../../../../api/pods.js';

interface PodSummary { ready: string; status: string; restarts: string }

/** the Ready, Status and Restarts cells of a pod, derived the way the reference does */
export function podSummary(pod: Pod, now = Date.now()): PodSummary {
  const spec = pod.spec;
  const status = pod.status ?? {};
  let reason: string = status.reason || status.phase || '';
  let restarts = 0;
  let lastRestart = 0;
  const noteRestart = (cs: ContainerStatus) => {
    restarts += cs.restartCount ?? 0;
    const finished = Date.parse(cs.lastState?.terminated?.finishedAt ?? '');
    if (!Number.isNaN(finished) && finished > lastRestart) lastRestart = finished;
  };
  if ((status.conditions ?? []).some(c => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    noteRestart(cs);
    const term = cs.state?.terminated;
    const waiting = cs.state?.waiting;
    if (term && term.exitCode === 0) continue;
    if (term) {
      reason = term.reason ? `Init:${term.reason}` : term.signal ? `Init:Signal:${term.signal}` : `Init:ExitCode:${term.exitCode}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${(spec?.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  let readyContainers = 0;
  if (!initializing) {
    restarts = 0;
    lastRestart = 0;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      noteRestart(cs);
      const st = cs.state ?? {};
      if (st.waiting?.reason) reason = st.waiting.reason;
      else if (st.terminated?.reason) reason = st.terminated.reason;
      else if (st.terminated) reason = st.terminated.signal ? `Signal:${st.terminated.signal}` : `ExitCode:${st.terminated.exitCode}`;
      else if (cs.ready && st.running) { hasRunning = true; readyContainers++; }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = podReady(pod) ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return {
    ready: `${readyContainers}/${(spec?.containers ?? []).length}`,
    status: reason,
    restarts: lastRestart ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts),
  };
}

export const columns: TableColumn<Pod>[] = [
  column('Ready', 'string', o => podSummary(o).ready, 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', o => podSummary(o).status, 'The aggregate status of the containers in this pod.'),
  column('Restarts', 'string', o => podSummary(o).restarts, 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  age,
  wide('IP', 'string', o => orNone(o.status?.podIP), 'IP address allocated to the pod.'),
  wide('Node', 'string', o => orNone(o.spec?.nodeName), 'Name of the node the pod is assigned to.'),
  wide('Nominated Node', 'string', o => orNone(o.status?.nominatedNodeName), 'Name of the node where the pod is nominated to run.'),
  wide('Readiness Gates', 'string', o => {
    const gates = o.spec?.readinessGates ?? [];
    if (!gates.length) return '<none>';
    const conditions = o.status?.conditions ?? [];
    const ready = gates.filter(g => conditions.some(c => c.type === g.conditionType && c.status === 'True')).length;
    return `${ready}/${gates.length}`;
  }, 'Readiness gates of the pod.'),
];

/** a finished pod's Table row says it is Completed, as the reference marks it (Succeeded or Failed) */
export function podRowConditions(pod: Pod): TableRowCondition[] {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
  if (phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
  return [];
}
