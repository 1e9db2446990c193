// The DaemonSet controller: one pod on every node the template may run on (node selector, required node
// affinity, taints it tolerates once the daemon tolerations are added), placed through a required node
// affinity on the node's name for the scheduler to honour; extra and misplaced pods go, failed ones are
// replaced. Templates are kept as ControllerRevisions and a RollingUpdate replaces old pods within
// maxUnavailable (or starts the new pod first within maxSurge). Status counts nodes, not pods.
import { ownerUidIndex } from '../client/informer.js';
import { isConflict, isNotFound, serverMessage } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import {
  canonicalJson, claimOwned, controllerOf, controllerRef, keyOf, liveOwner, msUntilAvailable, podAvailable, podFromTemplate,
  podReady, selects, splitKey, startQueue, toleratesTaint,
  scaledValue,
  omitZeroCounts,
} from './common.js';
import type { Controller, ControllerContext } from './context.js';
import { currentRevision, ownedRevisions, revisionHashLabel, templateOf, trimHistory } from './revisions.js';
import type { ControllerRevision, DaemonSet, DaemonSetStatus, Node, Pod, PodSpec, Taint, Toleration } from './types.js';

const kind = { kind: 'DaemonSet', apiVersion: 'apps/v1' };

interface NodeSelectorRequirement { key: string; operator: string; values?: string[] }
interface NodeSelectorTerm { matchExpressions?: NodeSelectorRequirement[]; matchFields?: NodeSelectorRequirement[] }

function requirementHolds(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt': return value !== undefined && /^-?\d+$/.test(value) && Number(value) > Number(values[0]);
    case 'Lt': return value !== undefined && /^-?\d+$/.test(value) && Number(value) < Number(values[0]);
    default: return false;
  }
}

/** whether a pod spec's node selector and required node affinity admit the node */
export function nodeMatches(spec: PodSpec, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(spec.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const terms: NodeSelectorTerm[] | undefined = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  return terms.some((t) => (t.matchExpressions?.length || t.matchFields?.length)
    && (t.matchExpressions ?? []).every((r) => requirementHolds(r, labels[r.key]))
    && (t.matchFields ?? []).every((r) => requirementHolds(r, r.key === 'metadata.name' ? node.metadata.name : undefined)));
}

export const tolerates = (tolerations: Toleration[], taint: Taint) => tolerations.some((t) => toleratesTaint(t, taint));

/** the tolerations the reference gives every daemon pod, so that node problems do not evict it */
export function daemonTolerations(labelDomain: string, spec: PodSpec): Toleration[] {
  const key = (k: string) => `node.${labelDomain}/${k}`;
  const wanted: Toleration[] = [
    { key: key('not-ready'), operator: 'Exists', effect: 'NoExecute' },
    { key: key('unreachable'), operator: 'Exists', effect: 'NoExecute' },
    { key: key('disk-pressure'), operator: 'Exists', effect: 'NoSchedule' },
    { key: key('memory-pressure'), operator: 'Exists', effect: 'NoSchedule' },
    { key: key('pid-pressure'), operator: 'Exists', effect: 'NoSchedule' },
    { key: key('unschedulable'), operator: 'Exists', effect: 'NoSchedule' },
    ...(spec.hostNetwork ? [{ key: key('network-unavailable'), operator: 'Exists', effect: 'NoSchedule' } satisfies Toleration] : []),
  ];
  const have = spec.tolerations ?? [];
  return [...have, ...wanted.filter((w) => !have.some((h) => h.key === w.key && h.effect === w.effect && h.operator === w.operator))];
}

/**
 * whether a daemon pod should be started on the node, and whether one already there may stay: a taint it does not
 * tolerate keeps new pods off, but only a NoExecute one removes a running pod (as the taint manager would evict it)
 */
export function placement(spec: PodSpec, node: Node, labelDomain: string): { run: boolean; keep: boolean } {
  if (!nodeMatches(spec, node)) return { run: false, keep: false };
  const tolerations = daemonTolerations(labelDomain, spec);
  const untolerated = (node.spec?.taints ?? []).filter((t) => !tolerates(tolerations, t));
  return { run: !untolerated.some((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute'), keep: !untolerated.some((t) => t.effect === 'NoExecute') };
}


/** the node a daemon pod is for: where it runs, or where its node-name affinity sends it */
function targetNode(p: Pod): string | undefined {
  if (p.spec.nodeName) return p.spec.nodeName;
  const terms: NodeSelectorTerm[] = p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) for (const f of t.matchFields ?? []) if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
  return undefined;
}

/** the template generation the API server keeps on a daemon set, and the label its pods carry it in */
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';
const templateGenerationLabel = 'pod-template-generation';

export const daemonSetController: Controller = {
  name: 'daemonset',
  component: 'daemonset-controller',
  serviceAccount: 'daemon-set-controller',
  start(ctx) {
    const sets = ctx.informers.informer(ctx.refs.daemonSets);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const nodes = ctx.informers.informer(ctx.refs.nodes);
    const revisions = ctx.informers.informer(ctx.refs.controllerRevisions);
    pods.addIndex('owner', ownerUidIndex);
    const queue = startQueue(ctx, async (key) => {
      const ds = sets.get(key);
      if (!ds) return;
      const [namespace] = splitKey(key);
      return syncDaemonSet(ctx, structuredClone(ds), nodes.list(), pods.list(namespace), revisions.list(namespace));
    });
    const ownerOf = (o: Pod | ControllerRevision) => {
      const ref = controllerOf(o);
      if (ref) { if (ref.kind === 'DaemonSet') queue.add(`${o.metadata.namespace}/${ref.name}`); return; }
      for (const s of sets.list(o.metadata.namespace)) if (selects(s.spec.selector, o.metadata.labels)) queue.add(keyOf(s));
    };
    const all = () => { for (const s of sets.list()) queue.add(keyOf(s)); };
    sets.addHandler({ added: (s) => queue.add(keyOf(s)), updated: (_, s) => queue.add(keyOf(s)) });
    pods.addHandler({ added: ownerOf, updated: (_, p) => ownerOf(p), deleted: ownerOf });
    revisions.addHandler({ added: ownerOf, deleted: ownerOf });
    nodes.addHandler({
      added: all,
      updated: (old, cur) => {
        if (canonicalJson([old.metadata.labels, old.spec, old.status?.conditions?.map((c) => c.status)])
          !== canonicalJson([cur.metadata.labels, cur.spec, cur.status?.conditions?.map((c) => c.status)])) all();
      },
      deleted: all,
    });
  },
};

async function syncDaemonSet(ctx: ControllerContext, ds: DaemonSet, nodes: Node[], namespacePods: Pod[], namespaceRevisions: ControllerRevision[]): Promise<SyncResult | void> {
  const namespace = ds.metadata.namespace!;
  const history = await ownedRevisions(ctx, ds, kind, ctx.refs.daemonSets, namespaceRevisions);
  const { revision: update, collisionCount } = await currentRevision(ctx, ds, kind, history);
  const hash = update.metadata.labels?.[`controller.${ctx.names.labelDomain}/hash`] ?? update.metadata.name!;
  const owned = await claimOwned(ctx, ctx.refs.pods, ds, kind, ds.spec.selector, namespacePods, liveOwner(ctx, ctx.refs.daemonSets, ds));
  const podClient = ctx.client.resource(ctx.refs.pods, namespace);
  const minReady = ds.spec.minReadySeconds ?? 0;
  const template = templateOf(update);
  const byNode = new Map<string, Pod[]>();
  for (const p of owned) {
    const n = targetNode(p);
    if (n) byNode.set(n, [...(byNode.get(n) ?? []), p]);
  }
  // as the reference, a pod of the current template generation counts as updated too (pods made before the hash label)
  const generation = ds.metadata.annotations?.[templateGenerationAnnotation];
  const isUpdated = (p: Pod) => p.metadata.labels?.[revisionHashLabel] === hash || (!!generation && p.metadata.labels?.[templateGenerationLabel] === generation);
  const creates: string[] = [];
  const deletes: Pod[] = [];
  const placed = new Map(nodes.map((n) => [n.metadata.name!, placement(template.spec, n, ctx.names.labelDomain)]));
  const wanted = nodes.filter((n) => placed.get(n.metadata.name!)!.run);
  const wantedNames = new Set(wanted.map((n) => n.metadata.name!));

  if (!ds.metadata.deletionTimestamp) {
    for (const node of wanted) {
      const here = (byNode.get(node.metadata.name!) ?? []).filter((p) => !p.metadata.deletionTimestamp);
      const failed = here.filter((p) => p.status?.phase === 'Failed');
      deletes.push(...failed);
      const alive = here.filter((p) => p.status?.phase !== 'Failed');
      if (alive.length === 0 && !failed.length) creates.push(node.metadata.name!);
      // more than one: the oldest stays (an updated one before an old one)
      const sorted = [...alive].sort((a, b) => Number(isUpdated(b)) - Number(isUpdated(a))
        || (Date.parse(a.metadata.creationTimestamp ?? '') || 0) - (Date.parse(b.metadata.creationTimestamp ?? '') || 0));
      const surplus = sorted.slice(1);
      // during a surge an old and a new pod may share the node until the new one is available
      const surge = scaledValue(ds.spec.updateStrategy?.rollingUpdate?.maxSurge, wanted.length, true, 0);
      if (surge > 0 && sorted.length === 2 && isUpdated(sorted[0]!) && !isUpdated(sorted[1]!) && !podAvailable(sorted[0]!, minReady)) continue;
      deletes.push(...surplus);
    }
    for (const [node, list] of byNode) {
      if (wantedNames.has(node)) continue;
      const here = list.filter((p) => !p.metadata.deletionTimestamp);
      // pods on nodes that should not run them; on a node that only refuses new ones, a failed pod and extra ones go
      if (!placed.get(node)?.keep) deletes.push(...here);
      else deletes.push(...here.filter((p) => p.status?.phase === 'Failed'), ...here.filter((p) => p.status?.phase !== 'Failed').slice(1));
    }
    deletes.push(...owned.filter((p) => !targetNode(p) && !p.metadata.deletionTimestamp));
    // the rolling update
    if ((ds.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
      rollingUpdate(ds, wanted.map((n) => n.metadata.name!), byNode, isUpdated, minReady, creates, deletes);
    }
  }

  const ref = controllerRef(ds, kind.kind, kind.apiVersion);
  // the status is written even when a pod could not be made, as the reference writes it, so clients see the
  // generation observed (kubectl rollout status waits for it); the error then puts the set back in the queue
  let failed: unknown;
  await Promise.all(creates.map(async (node) => {
    const pod = podFromTemplate(template, namespace, ref, { generateName: `${ds.metadata.name}-`,
      labels: { [revisionHashLabel]: hash, ...(generation ? { [templateGenerationLabel]: generation } : {}) } });
    pod.spec.tolerations = daemonTolerations(ctx.names.labelDomain, pod.spec);
    const affinity = pod.spec.affinity ?? {};
    pod.spec.affinity = {
      ...affinity,
      nodeAffinity: {
        ...(affinity.nodeAffinity ?? {}),
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
      },
    };
    try {
      const made = await podClient.create(pod);
      ctx.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${made.metadata.name}`);
    } catch (e) {
      ctx.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${serverMessage(e)}`);
      failed ??= e;
    }
  }));
  await Promise.all([...new Set(deletes)].map(async (p) => {
    await podClient.delete(p.metadata.name!, { preconditions: { uid: p.metadata.uid } }).catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
    ctx.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
  }));

  // status, by node
  const live = (n: string) => (byNode.get(n) ?? []).filter((p) => !p.metadata.deletionTimestamp);
  const scheduled = wanted.filter((n) => live(n.metadata.name!).length > 0).map((n) => n.metadata.name!);
  const first = (n: string) => live(n).sort((a, b) => Number(isUpdated(b)) - Number(isUpdated(a)))[0]!;
  const status: DaemonSetStatus = {
    desiredNumberScheduled: wanted.length,
    currentNumberScheduled: scheduled.length,
    numberMisscheduled: [...byNode.keys()].filter((n) => !wantedNames.has(n) && live(n).length).length,
    numberReady: scheduled.filter((n) => podReady(first(n))).length,
    observedGeneration: ds.metadata.generation,
    updatedNumberScheduled: scheduled.filter((n) => live(n).some(isUpdated)).length,
    numberAvailable: scheduled.filter((n) => podAvailable(first(n), minReady)).length,
    // written once a revision name has collided (the count is then kept), as the reference's controller does
    ...(collisionCount || ds.status?.collisionCount !== undefined ? { collisionCount } : {}),
    ...(ds.status?.conditions ? { conditions: ds.status.conditions } : {}),
  };
  status.numberUnavailable = Math.max(0, status.desiredNumberScheduled - status.numberAvailable!);
  // the four counts above are always written (no omitempty in the reference), these only when above zero
  omitZeroCounts(status, ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']);
  if (canonicalJson(status) !== canonicalJson(ds.status ?? {})) {
    await ctx.client.resource(ctx.refs.daemonSets, namespace).status.update({ ...ds, status }).catch((e) => {
      if (!isConflict(e) && !isNotFound(e)) throw e;
    });
  }
  if (failed) throw failed;
  const inUse = new Set([update.metadata.name!, ...history.filter((r) => owned.some((p) => p.metadata.labels?.[revisionHashLabel] === r.metadata.labels?.[`controller.${ctx.names.labelDomain}/hash`])).map((r) => r.metadata.name!)]);
  await trimHistory(ctx, ds, history, inUse);
  const waits = owned.map((p) => msUntilAvailable(p, minReady)).filter((w): w is number => w !== undefined);
  return waits.length ? { requeueAfterMs: Math.min(...waits) + 50 } : undefined;
}

/** old pods are replaced on at most maxUnavailable nodes at a time (or, with maxSurge, new pods start beside them) */
function rollingUpdate(ds: DaemonSet, nodeNames: string[], byNode: Map<string, Pod[]>, isUpdated: (p: Pod) => boolean, minReady: number,
  creates: string[], deletes: Pod[]) {
  const ru = ds.spec.updateStrategy?.rollingUpdate;
  const maxSurge = scaledValue(ru?.maxSurge, nodeNames.length, true, 0);
  const maxUnavailable = maxSurge > 0 ? scaledValue(ru?.maxUnavailable, nodeNames.length, true, 0) : Math.max(1, scaledValue(ru?.maxUnavailable, nodeNames.length, true, 1));
  const live = (n: string) => (byNode.get(n) ?? []).filter((p) => !p.metadata.deletionTimestamp && !deletes.includes(p));
  let unavailable = nodeNames.filter((n) => !live(n).some((p) => podAvailable(p, minReady)) || creates.includes(n)).length;
  // the surge in use: nodes where a new pod beside an old one is not available yet
  let surged = nodeNames.filter((n) => live(n).some((p) => !isUpdated(p)) && live(n).some((p) => isUpdated(p) && !podAvailable(p, minReady))).length;
  for (const n of nodeNames) {
    const pods = live(n);
    const old = pods.filter((p) => !isUpdated(p));
    if (!old.length) continue;
    if (pods.some(isUpdated)) {
      // a surged node: the old pod goes once the new one is available
      if (pods.some((p) => isUpdated(p) && podAvailable(p, minReady))) deletes.push(...old);
      continue;
    }
    const oldAvailable = old.some((p) => podAvailable(p, minReady));
    if (maxSurge > 0) {
      // an old pod that is not available gets its new pod at once, beyond the surge (it serves nothing meanwhile)
      if (!oldAvailable) creates.push(n);
      else if (surged < maxSurge) { creates.push(n); surged++; }
      continue;
    }
    if (!oldAvailable) { deletes.push(...old); continue; }
    if (unavailable < maxUnavailable) { deletes.push(...old); unavailable++; }
  }
}
