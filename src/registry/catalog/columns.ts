// Table columns as the reference prints them (`kubectl get` renders the cells the server sends).
// Cells are computed from the stored object at request time; wide columns have priority 1.
import type { TableColumn } from '../types.js';
import { humanDuration, since } from '../../api/duration.js';

export { humanDuration, since };

type Obj = any;
type Cell = (obj: Obj) => unknown;

/** a column; `wide` ones only show with -o wide */
export function column(name: string, type: TableColumn['type'], cell: Cell, description = '', wide = false): TableColumn {
  return { name, type, description, cell, ...(wide ? { priority: 1 } : { priority: 0 }) };
}
export const wide = (name: string, type: TableColumn['type'], cell: Cell, description = '') => column(name, type, cell, description, true);

const orNone = (s: string | undefined | null) => (s ? s : '<none>');

/** k=v pairs sorted by key, as labels print */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.length ? keys.map(k => `${k}=${labels![k]}`).join(',') : '<none>';
}

/** a label selector in the reference's string form: a=b,c in (d,e),!f */
export function formatLabelSelector(sel: Obj): string {
  if (!sel) return '<none>';
  const parts: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) parts.push([k, `${k}=${v}`]);
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    const text = e.operator === 'In' ? `${e.key} in (${values})`
      : e.operator === 'NotIn' ? `${e.key} notin (${values})`
      : e.operator === 'Exists' ? e.key
      : e.operator === 'DoesNotExist' ? `!${e.key}`
      : `${e.key} ${e.operator} (${values})`;
    parts.push([e.key, text]);
  }
  parts.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return parts.length ? parts.map(p => p[1]).join(',') : '<none>';
}

const creationDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. Represented in RFC3339 form and is in UTC.';
export const age = column('Age', 'string', o => since(o.metadata?.creationTimestamp), creationDescription);
/** the form roles and limit ranges use: the creation time itself */
export const createdAt = column('Created At', 'date', o => o.metadata?.creationTimestamp ?? null, creationDescription);

const containersOf = (podSpec: Obj): Obj[] => podSpec?.containers ?? [];
/** Containers, Images and (optionally) Selector wide columns of workload kinds */
export function workloadWide(podSpecOf: (o: Obj) => Obj, selectorOf?: (o: Obj) => string): TableColumn[] {
  const cols = [
    wide('Containers', 'string', o => containersOf(podSpecOf(o)).map(c => c.name).join(','), 'Names of each container in the template.'),
    wide('Images', 'string', o => containersOf(podSpecOf(o)).map(c => c.image).join(','), 'Images referenced by each container in the template.'),
  ];
  if (selectorOf) cols.push(wide('Selector', 'string', selectorOf, 'Label selector of the pods.'));
  return cols;
}

// ── pods ──────────────────────────────────────────────────────────────────────────────────────
interface PodSummary { ready: string; status: string; restarts: string }

/** the Ready, Status and Restarts cells of a pod, derived the way the reference does */
export function podSummary(pod: Obj, now = Date.now()): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  let reason: string = status.reason || status.phase || '';
  let restarts = 0;
  let lastRestart = 0;
  const noteRestart = (cs: Obj) => {
    restarts += cs.restartCount ?? 0;
    const finished = Date.parse(cs.lastState?.terminated?.finishedAt ?? '');
    if (!Number.isNaN(finished) && finished > lastRestart) lastRestart = finished;
  };
  if ((status.conditions ?? []).some((c: Obj) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses: Obj[] = status.initContainerStatuses ?? [];
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
      reason = `Init:${i}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  let readyContainers = 0;
  if (!initializing) {
    restarts = 0;
    lastRestart = 0;
    let hasRunning = false;
    const statuses: Obj[] = status.containerStatuses ?? [];
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
      const podReady = (status.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata?.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return {
    ready: `${readyContainers}/${(spec.containers ?? []).length}`,
    status: reason,
    restarts: lastRestart ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts),
  };
}

export const podColumns: TableColumn[] = [
  column('Ready', 'string', o => podSummary(o).ready, 'The aggregate readiness state of this pod for accepting traffic.'),
  column('Status', 'string', o => podSummary(o).status, 'The aggregate status of the containers in this pod.'),
  column('Restarts', 'string', o => podSummary(o).restarts, 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
  age,
  wide('IP', 'string', o => orNone(o.status?.podIP), 'IP address allocated to the pod.'),
  wide('Node', 'string', o => orNone(o.spec?.nodeName), 'Name of the node the pod is assigned to.'),
  wide('Nominated Node', 'string', o => orNone(o.status?.nominatedNodeName), 'Name of the node where the pod is nominated to run.'),
  wide('Readiness Gates', 'string', o => {
    const gates: Obj[] = o.spec?.readinessGates ?? [];
    if (!gates.length) return '<none>';
    const conditions: Obj[] = o.status?.conditions ?? [];
    const ready = gates.filter(g => conditions.some(c => c.type === g.conditionType && c.status === 'True')).length;
    return `${ready}/${gates.length}`;
  }, 'Readiness gates of the pod.'),
];

// ── services and networking ───────────────────────────────────────────────────────────────────
const lbAddresses = (lb: Obj): string[] => (lb?.ingress ?? []).map((i: Obj) => i.ip || i.hostname).filter(Boolean);

export function serviceExternalIP(svc: Obj): string {
  const spec = svc.spec ?? {};
  const external: string[] = spec.externalIPs ?? [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const all = [...lbAddresses(svc.status?.loadBalancer), ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

export function servicePorts(svc: Obj): string {
  const ports: Obj[] = svc.spec?.ports ?? [];
  if (!ports.length) return '<none>';
  return ports.map(p => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

export const serviceColumns: TableColumn[] = [
  column('Type', 'string', o => o.spec?.type ?? 'ClusterIP', 'The type of the service.'),
  column('Cluster-IP', 'string', o => orNone(o.spec?.clusterIP), 'The IP address of the service.'),
  column('External-IP', 'string', serviceExternalIP, 'The external IP address of the service.'),
  column('Port(s)', 'string', servicePorts, 'The ports of the service.'),
  age,
  wide('Selector', 'string', o => formatLabels(o.spec?.selector), 'The label selector of the service.'),
];

export function formatEndpoints(ep: Obj): string {
  const all: string[] = [];
  for (const subset of ep.subsets ?? []) {
    const ports: Obj[] = subset.ports?.length ? subset.ports : [undefined];
    for (const port of ports) for (const a of subset.addresses ?? []) all.push(port ? `${a.ip}:${port.port}` : a.ip);
  }
  if (!all.length) return '<none>';
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

export const endpointsColumns: TableColumn[] = [column('Endpoints', 'string', formatEndpoints, 'Endpoints of the service.'), age];

export const ingressColumns: TableColumn[] = [
  column('Class', 'string', o => orNone(o.spec?.ingressClassName), 'The name of the IngressClass resource.'),
  column('Hosts', 'string', o => {
    const hosts: string[] = (o.spec?.rules ?? []).map((r: Obj) => r.host).filter(Boolean);
    if (!hosts.length) return '*';
    return hosts.length > 4 ? `${hosts.slice(0, 4).join(',')} + ${hosts.length - 4} more...` : hosts.join(',');
  }, 'Hosts that incoming requests are matched against.'),
  column('Address', 'string', o => lbAddresses(o.status?.loadBalancer).join(','), 'Address is a list containing ingress points for the load-balancer.'),
  column('Ports', 'string', o => (o.spec?.tls?.length ? '80, 443' : '80'), 'Ports of TLS configurations that open.'),
  age,
];

// ── nodes and namespaces ──────────────────────────────────────────────────────────────────────
export function nodeStatus(node: Obj): string {
  const out: string[] = [];
  const ready = (node.status?.conditions ?? []).find((c: Obj) => c.type === 'Ready');
  out.push(!ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady');
  if (node.spec?.unschedulable) out.push('SchedulingDisabled');
  return out.join(',');
}

/** roles from `node-role.<labelDomain>/<role>` keys and the `<labelDomain>/role` value */
export function nodeRoles(node: Obj, roleLabelPrefixes: readonly string[], roleLabels: readonly string[]): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries<string>(node.metadata?.labels ?? {})) {
    for (const p of roleLabelPrefixes) if (k.startsWith(p) && k.length > p.length) roles.add(k.slice(p.length));
    if (roleLabels.includes(k) && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

const nodeAddress = (node: Obj, type: string) =>
  orNone((node.status?.addresses ?? []).find((a: Obj) => a.type === type)?.address);
const nodeInfo = (node: Obj, field: string) => node.status?.nodeInfo?.[field] || '<unknown>';

export function nodeColumns(roleLabelPrefixes: readonly string[], roleLabels: readonly string[]): TableColumn[] {
  return [
    column('Status', 'string', nodeStatus, 'The status of the node'),
    column('Roles', 'string', o => nodeRoles(o, roleLabelPrefixes, roleLabels), 'The roles of the node'),
    age,
    column('Version', 'string', o => o.status?.nodeInfo?.kubeletVersion ?? '', 'Kubelet Version reported by the node.'),
    wide('Internal-IP', 'string', o => nodeAddress(o, 'InternalIP'), 'List of addresses reachable to the node. Queried from cloud provider, if available.'),
    wide('External-IP', 'string', o => nodeAddress(o, 'ExternalIP'), 'List of addresses reachable to the node. Queried from cloud provider, if available.'),
    wide('OS-Image', 'string', o => nodeInfo(o, 'osImage'), 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).'),
    wide('Kernel-Version', 'string', o => nodeInfo(o, 'kernelVersion'), "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
    wide('Container-Runtime', 'string', o => nodeInfo(o, 'containerRuntimeVersion'), 'Container runtime version reported by the node through runtime remote API (e.g. containerd://1.4.2).'),
  ];
}

// ── events ────────────────────────────────────────────────────────────────────────────────────
// Cells read both shapes of a stored event: core/v1 and events/v1 (regarding, note, deprecated* fields).
const regarding = (e: Obj) => e.involvedObject ?? e.regarding ?? {};
function eventSource(e: Obj): string {
  const src = e.source ?? e.deprecatedSource ?? {};
  const component = src.component || e.reportingComponent || e.reportingController || '';
  const host = src.host || e.reportingInstance || '';
  return host ? `${component}, ${host}` : component;
}
const eventFirst = (e: Obj) => e.firstTimestamp || e.deprecatedFirstTimestamp || e.eventTime;
const eventLast = (e: Obj) => e.series?.lastObservedTime || e.lastTimestamp || e.deprecatedLastTimestamp || eventFirst(e);

/** events print without a leading Name column: Name is the last, wide column */
export const eventColumns: TableColumn[] = [
  column('Last Seen', 'string', o => since(eventLast(o)), 'Time since the event was last seen.'),
  column('Type', 'string', o => o.type ?? '', 'Type of this event (Normal, Warning), new types could be added in the future.'),
  column('Reason', 'string', o => o.reason ?? '', 'Short, machine understandable reason for the transition into the object\'s current status.'),
  column('Object', 'string', o => `${String(regarding(o).kind ?? '').toLowerCase()}/${regarding(o).name ?? ''}`, 'The object that this event is about.'),
  wide('Subobject', 'string', o => regarding(o).fieldPath ?? '', 'The subobject (for example a container) this event is about.'),
  wide('Source', 'string', eventSource, 'The component reporting this event.'),
  column('Message', 'string', o => o.message ?? o.note ?? '', 'A human-readable description of the status of this operation.'),
  wide('First Seen', 'string', o => since(eventFirst(o)), 'The time at which the event was first recorded.'),
  wide('Count', 'string', o => o.series?.count ?? o.count ?? o.deprecatedCount ?? 1, 'The number of times this event has occurred.'),
  wide('Name', 'string', o => o.metadata?.name ?? '', 'Name of the event.'),
];

// ── workloads ─────────────────────────────────────────────────────────────────────────────────
const tmplSpec = (o: Obj) => o.spec?.template?.spec;
const n = (v: unknown) => (typeof v === 'number' ? v : 0);

export const deploymentColumns: TableColumn[] = [
  column('Ready', 'string', o => `${n(o.status?.readyReplicas)}/${n(o.spec?.replicas)}`, 'Number of the pod with ready state'),
  column('Up-to-date', 'integer', o => n(o.status?.updatedReplicas), 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
  column('Available', 'integer', o => n(o.status?.availableReplicas), 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
  age,
  ...workloadWide(tmplSpec, o => formatLabelSelector(o.spec?.selector)),
];

export const replicaSetColumns: TableColumn[] = [
  column('Desired', 'integer', o => n(o.spec?.replicas), 'Number of desired pods'),
  column('Current', 'integer', o => n(o.status?.replicas), 'Number of actual pods'),
  column('Ready', 'integer', o => n(o.status?.readyReplicas), 'Number of pods ready'),
  age,
  ...workloadWide(tmplSpec, o => formatLabelSelector(o.spec?.selector)),
];

export const replicationControllerColumns: TableColumn[] = [
  ...replicaSetColumns.slice(0, 4),
  ...workloadWide(tmplSpec, o => formatLabels(o.spec?.selector)),
];

export const statefulSetColumns: TableColumn[] = [
  column('Ready', 'string', o => `${n(o.status?.readyReplicas)}/${n(o.spec?.replicas)}`, 'Number of the pod with ready state'),
  age,
  ...workloadWide(tmplSpec),
];

export const daemonSetColumns: TableColumn[] = [
  column('Desired', 'integer', o => n(o.status?.desiredNumberScheduled), 'The total number of nodes that should be running the daemon pod.'),
  column('Current', 'integer', o => n(o.status?.currentNumberScheduled), 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.'),
  column('Ready', 'integer', o => n(o.status?.numberReady), 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
  column('Up-to-date', 'integer', o => n(o.status?.updatedNumberScheduled), 'The total number of nodes that are running updated daemon pod'),
  column('Available', 'integer', o => n(o.status?.numberAvailable), 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
  column('Node Selector', 'string', o => formatLabels(o.spec?.template?.spec?.nodeSelector), 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
  age,
  ...workloadWide(tmplSpec, o => formatLabelSelector(o.spec?.selector)),
];

export function jobCompletions(job: Obj): string {
  const succeeded = n(job.status?.succeeded);
  const completions = job.spec?.completions;
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = n(job.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export function jobDuration(job: Obj, now = Date.now()): string {
  const start = Date.parse(job.status?.startTime ?? '');
  if (Number.isNaN(start)) return '';
  const end = Date.parse(job.status?.completionTime ?? '');
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export const jobColumns: TableColumn[] = [
  column('Completions', 'string', jobCompletions, 'The desired number of successfully finished pods the job should be run with.'),
  column('Duration', 'string', o => jobDuration(o), 'Time required to complete the job.'),
  age,
  ...workloadWide(tmplSpec, o => formatLabelSelector(o.spec?.selector)),
];

export const cronJobColumns: TableColumn[] = [
  column('Schedule', 'string', o => o.spec?.schedule ?? '', 'The schedule in Cron format.'),
  column('Suspend', 'boolean', o => o.spec?.suspend ?? false, 'Whether subsequent executions are suspended.'),
  column('Active', 'integer', o => (o.status?.active ?? []).length, 'The number of currently running jobs.'),
  column('Last Schedule', 'string', o => (o.status?.lastScheduleTime ? since(o.status.lastScheduleTime) : '<none>'), 'Information when was the last time the job was successfully scheduled.'),
  age,
  ...workloadWide(o => o.spec?.jobTemplate?.spec?.template?.spec, o => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector)),
];

export const controllerRevisionColumns: TableColumn[] = [
  column('Controller', 'string', o => {
    const owner = (o.metadata?.ownerReferences ?? []).find((r: Obj) => r.controller);
    if (!owner) return '<none>';
    const group = String(owner.apiVersion ?? '').split('/').slice(0, -1).join('/');
    return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
  }, 'Controller of the object'),
  column('Revision', 'integer', o => o.revision ?? 0, 'Revision indicates the revision of the state represented by Data.'),
  age,
];

export const hpaColumns: TableColumn[] = [
  column('Reference', 'string', o => `${o.spec?.scaleTargetRef?.kind ?? ''}/${o.spec?.scaleTargetRef?.name ?? ''}`, 'Reference to the target resource'),
  column('Targets', 'string', hpaTargets, 'Targets of the autoscaler'),
  column('MinPods', 'string', o => String(o.spec?.minReplicas ?? '<unset>'), 'Minimum number of replicas'),
  column('MaxPods', 'integer', o => n(o.spec?.maxReplicas), 'Maximum number of replicas'),
  column('Replicas', 'integer', o => n(o.status?.currentReplicas), 'Current number of replicas'),
  age,
];

/** the Targets cell: current/target per metric, at most the first three */
function hpaTargets(hpa: Obj): string {
  const spec = hpa.spec ?? {};
  // autoscaling/v1 carries one CPU target
  if (!spec.metrics && 'targetCPUUtilizationPercentage' in spec) {
    const cur = hpa.status?.currentCPUUtilizationPercentage;
    return `${cur === undefined ? '<unknown>' : `${cur}%`}/${spec.targetCPUUtilizationPercentage}%`;
  }
  const metrics: Obj[] = spec.metrics ?? [];
  if (!metrics.length) return '<none>';
  const current: Obj[] = hpa.status?.currentMetrics ?? [];
  const cells = metrics.map((m, i) => {
    const src = m[typeName(m.type)] ?? {};
    const target = src.target ?? {};
    const cur = current[i]?.[typeName(m.type)]?.current ?? {};
    if (target.type === 'Utilization') return `${cur.averageUtilization === undefined ? '<unknown>' : `${cur.averageUtilization}%`}/${target.averageUtilization}%`;
    if (target.type === 'AverageValue') return `${cur.averageValue ?? '<unknown>'}/${target.averageValue}`;
    return `${cur.value ?? '<unknown>'}/${target.value}`;
  });
  return cells.length > 3 ? `${cells.slice(0, 3).join(', ')} + ${cells.length - 3} more...` : cells.join(', ');
}
const typeName = (t: string) => (t ? t[0].toLowerCase() + t.slice(1) : '');

export const pdbColumns: TableColumn[] = [
  column('Min Available', 'string', o => String(o.spec?.minAvailable ?? 'N/A'), 'The minimum number of pods that must be available.'),
  column('Max Unavailable', 'string', o => String(o.spec?.maxUnavailable ?? 'N/A'), 'The maximum number of pods that may be unavailable.'),
  column('Allowed Disruptions', 'integer', o => n(o.status?.disruptionsAllowed), 'Calculated number of pods that may be disrupted at this time.'),
  age,
];

// ── configuration, access and storage ─────────────────────────────────────────────────────────
const count = (m: unknown) => (m && typeof m === 'object' ? Object.keys(m).length : 0);

export const namespaceColumns: TableColumn[] = [
  column('Status', 'string', o => o.status?.phase ?? '', 'The status of the namespace'),
  age,
];
export const configMapColumns: TableColumn[] = [
  column('Data', 'string', o => count(o.data) + count(o.binaryData), 'Data contains the configuration data.'),
  age,
];
export const secretColumns: TableColumn[] = [
  column('Type', 'string', o => o.type ?? '', 'The type of the secret'),
  column('Data', 'string', o => count(o.data), 'The number of entries in the secret'),
  age,
];
export const serviceAccountColumns: TableColumn[] = [
  column('Secrets', 'string', o => (o.secrets ?? []).length, 'Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount.'),
  age,
];
export const leaseColumns: TableColumn[] = [
  column('Holder', 'string', o => o.spec?.holderIdentity ?? '', 'The holder of the lease.'),
  age,
];

function bindingSubjects(o: Obj, kind: string): string {
  return (o.subjects ?? []).filter((s: Obj) => s.kind === kind)
    .map((s: Obj) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : s.name)).join(', ');
}
export const roleColumns: TableColumn[] = [createdAt];
export const bindingColumns: TableColumn[] = [
  column('Role', 'string', o => `${o.roleRef?.kind ?? ''}/${o.roleRef?.name ?? ''}`, 'Role or ClusterRole of the binding.'),
  age,
  wide('Users', 'string', o => bindingSubjects(o, 'User'), 'Users in the binding'),
  wide('Groups', 'string', o => bindingSubjects(o, 'Group'), 'Groups in the binding'),
  wide('ServiceAccounts', 'string', o => bindingSubjects(o, 'ServiceAccount'), 'ServiceAccounts in the binding'),
];

const accessModeNames: Record<string, string> = {
  ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP',
};
export const accessModes = (modes: string[] | undefined) =>
  [...new Set(modes ?? [])].map(m => accessModeNames[m]).filter(Boolean).join(',');

export const persistentVolumeColumns: TableColumn[] = [
  column('Capacity', 'string', o => String(o.spec?.capacity?.storage ?? ''), 'Capacity of the volume.'),
  column('Access Modes', 'string', o => accessModes(o.spec?.accessModes), 'Access modes of the volume.'),
  column('Reclaim Policy', 'string', o => o.spec?.persistentVolumeReclaimPolicy ?? '', 'What happens to the volume when released from its claim.'),
  column('Status', 'string', o => (o.metadata?.deletionTimestamp ? 'Terminating' : o.status?.phase ?? ''), 'The phase of the volume.'),
  column('Claim', 'string', o => (o.spec?.claimRef ? `${o.spec.claimRef.namespace}/${o.spec.claimRef.name}` : ''), 'The claim bound to the volume.'),
  column('StorageClass', 'string', o => o.spec?.storageClassName ?? '', 'Storage class of the volume.'),
  column('Reason', 'string', o => o.status?.reason ?? '', 'Reason the volume is in its phase.'),
  age,
  wide('VolumeMode', 'string', o => o.spec?.volumeMode ?? 'Filesystem', 'The volume mode.'),
];

export const persistentVolumeClaimColumns: TableColumn[] = [
  column('Status', 'string', o => (o.metadata?.deletionTimestamp ? 'Terminating' : o.status?.phase ?? ''), 'The phase of the claim.'),
  column('Volume', 'string', o => o.spec?.volumeName ?? '', 'The volume bound to the claim.'),
  column('Capacity', 'string', o => (o.spec?.volumeName ? String(o.status?.capacity?.storage ?? '') : ''), 'Capacity of the bound volume.'),
  column('Access Modes', 'string', o => (o.spec?.volumeName ? accessModes(o.status?.accessModes) : ''), 'Access modes of the bound volume.'),
  column('StorageClass', 'string', o => o.spec?.storageClassName ?? '', 'Storage class of the claim.'),
  age,
  wide('VolumeMode', 'string', o => o.spec?.volumeMode ?? 'Filesystem', 'The volume mode.'),
];

export const storageClassColumns: TableColumn[] = [
  column('Provisioner', 'string', o => o.provisioner ?? '', 'Indicates the type of the provisioner.'),
  column('ReclaimPolicy', 'string', o => o.reclaimPolicy ?? 'Delete', 'Indicates the type of the reclaim policy.'),
  column('VolumeBindingMode', 'string', o => o.volumeBindingMode ?? 'Immediate', 'Indicates how PersistentVolumeClaims should be bound.'),
  column('AllowVolumeExpansion', 'string', o => o.allowVolumeExpansion ?? false, 'Indicates whether the storage class allow volume expand.'),
  age,
];

export const csrColumns: TableColumn[] = [
  age,
  column('SignerName', 'string', o => o.spec?.signerName ?? '', 'The signer of the certificate.'),
  column('Requestor', 'string', o => o.spec?.username ?? '', 'Name of the user which submitted the request.'),
  column('RequestedDuration', 'string', o => (o.spec?.expirationSeconds ? humanDuration(o.spec.expirationSeconds * 1000) : '<none>'), 'Requested duration of the certificate.'),
  column('Condition', 'string', o => {
    const conds: Obj[] = o.status?.conditions ?? [];
    const names = conds.filter(c => c.status !== 'False').map(c => c.type);
    if (!names.length) return 'Pending';
    return [...names.filter(t => t !== 'Issued'), ...(o.status?.certificate ? ['Issued'] : [])].join(',');
  }, 'State of the request (Pending, Approved, Denied, Issued, Failed).'),
];

export const priorityClassColumns: TableColumn[] = [
  column('Value', 'integer', o => o.value ?? 0, 'The value of the priority class.'),
  column('Global-Default', 'boolean', o => o.globalDefault ?? false, 'Whether the priority class is the default.'),
  age,
];

export const runtimeClassColumns: TableColumn[] = [column('Handler', 'string', o => o.handler ?? '', 'The underlying runtime.'), age];

export const networkPolicyColumns: TableColumn[] = [
  column('Pod-Selector', 'string', o => formatLabelSelector(o.spec?.podSelector), 'The pods the policy applies to.'),
  age,
];

export const ingressClassColumns: TableColumn[] = [
  column('Controller', 'string', o => o.spec?.controller ?? '', 'Controller that implements the ingress class.'),
  column('Parameters', 'string', o => {
    const p = o.spec?.parameters;
    return p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
  }, 'Configuration for the controller.'),
  age,
];

export const endpointSliceColumns: TableColumn[] = [
  column('AddressType', 'string', o => o.addressType ?? '', 'Type of address carried by the slice.'),
  column('Ports', 'string', o => {
    const ports: Obj[] = o.ports ?? [];
    if (!ports.length) return '<unset>';
    return ports.map(p => (p.port === undefined ? '<unset>' : String(p.port))).join(',');
  }, 'Ports of the slice.'),
  column('Endpoints', 'string', o => {
    const addrs: string[] = (o.endpoints ?? []).flatMap((e: Obj) => e.addresses ?? []);
    if (!addrs.length) return '<unset>';
    return addrs.length > 3 ? `${addrs.slice(0, 3).join(',')} + ${addrs.length - 3} more...` : addrs.join(',');
  }, 'Addresses of the endpoints.'),
  age,
];

export const volumeAttachmentColumns: TableColumn[] = [
  column('Attacher', 'string', o => o.spec?.attacher ?? '', 'Attacher indicates the name of the volume driver that MUST handle this request.'),
  column('PV', 'string', o => o.spec?.source?.persistentVolumeName ?? '', 'Name of the persistent volume to attach.'),
  column('Node', 'string', o => o.spec?.nodeName ?? '', 'The node that the volume should be attached to.'),
  column('Attached', 'boolean', o => o.status?.attached ?? false, 'Whether the volume is attached.'),
  age,
];

export const webhookConfigurationColumns: TableColumn[] = [
  column('Webhooks', 'integer', o => (o.webhooks ?? []).length, 'Webhooks indicates the number of webhooks.'),
  age,
];

export const apiServiceColumns: TableColumn[] = [
  column('Service', 'string', o => (o.spec?.service ? `${o.spec.service.namespace}/${o.spec.service.name}` : 'Local'), 'The reference to the service that hosts the API endpoint.'),
  column('Available', 'string', o => {
    const c = (o.status?.conditions ?? []).find((x: Obj) => x.type === 'Available');
    if (!c) return 'Unknown';
    return c.status === 'True' ? 'True' : `${c.status} (${c.reason})`;
  }, 'Whether this service is available.'),
  age,
];

export const resourceQuotaColumns: TableColumn[] = [
  age,
  column('Request', 'string', o => quotaUsage(o, false), 'Request represents a minimum amount of cpu/memory that a container may consume.'),
  column('Limit', 'string', o => quotaUsage(o, true), 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
];
function quotaUsage(q: Obj, limits: boolean): string {
  const hard = q.status?.hard ?? {};
  const used = q.status?.used ?? {};
  return Object.keys(hard).sort()
    .filter(k => k.startsWith('limits.') === limits)
    .map(k => `${k}: ${used[k] ?? '0'}/${hard[k]}`).join(', ');
}

export const podTemplateColumns: TableColumn[] = [
  column('Containers', 'string', o => containersOf(o.template?.spec).map(c => c.name).join(','), 'Names of each container in the template.'),
  column('Images', 'string', o => containersOf(o.template?.spec).map(c => c.image).join(','), 'Images referenced by each container in the template.'),
  column('Pod Labels', 'string', o => formatLabels(o.template?.metadata?.labels), 'The labels for the pod template.'),
];

export const componentStatusColumns: TableColumn[] = [
  column('Status', 'string', o => {
    const healthy = (o.conditions ?? []).find((c: Obj) => c.type === 'Healthy');
    return !healthy ? 'Unknown' : healthy.status === 'True' ? 'Healthy' : 'Unhealthy';
  }, 'Status of the component conditions'),
  column('Message', 'string', o => (o.conditions ?? []).find((c: Obj) => c.type === 'Healthy')?.message ?? '', 'Message of the component conditions'),
  column('Error', 'string', o => (o.conditions ?? []).find((c: Obj) => c.type === 'Healthy')?.error ?? '', 'Error of the component conditions'),
];
