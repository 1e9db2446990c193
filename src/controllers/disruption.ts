// The disruption controller: keeps each PodDisruptionBudget's status (expected pods, desired and current
// healthy counts, disruptions allowed, the DisruptionAllowed condition), which the eviction subresource reads
// and charges. An integer minAvailable counts the selected pods; maxUnavailable and percentages count the
// replicas their controllers want (a Deployment's through its ReplicaSets, StatefulSets, ReplicationControllers,
// ReplicaSets, any other kind through its scale subresource), pods without a controller left out of that count.
// Pods evicted a moment ago stay out of the healthy count for up to two minutes. A pod marked as a disruption's
// target (its DisruptionTarget condition True) that is still not being deleted two minutes later has that condition
// set back to False, as with the reference: the disruption did not happen.
import { nowTimestamp } from '../api/meta.js';
import { isConflict, isNotFound } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import { canonicalJson, controllerOf, keyOf, podReady, scaledValue, selects, setCondition, splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { LabelSelector, OwnerReference, Pod, PodDisruptionBudget } from './types.js';

const evictionTimeoutMs = 2 * 60_000;
const stalePodDisruptionTimeoutMs = 2 * 60_000;

/** how long until the pod's DisruptionTarget condition is stale (0: now), or undefined when it has none that can be:
 *  a pod being deleted or finished keeps it, and so does one the agent marked (TerminationByKubelet) */
function staleDisruptionIn(p: Pod, now: number): number | undefined {
  if (p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') return undefined;
  const c = p.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
  if (!c || c.status !== 'True' || c.reason === 'TerminationByKubelet') return undefined;
  return Math.max(0, Date.parse(c.lastTransitionTime ?? '') + stalePodDisruptionTimeoutMs - now) || 0;
}

/** the live pod's stale DisruptionTarget condition set to False (no reason or message left, as the reference writes it) */
async function resetStaleDisruption(ctx: ControllerContext, key: string): Promise<SyncResult | void> {
  const [namespace, name] = splitKey(key);
  const podsClient = ctx.client.resource(ctx.refs.pods, namespace);
  const pod = await podsClient.get(name!).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
  const waitMs = pod && staleDisruptionIn(pod, Date.now());
  if (!pod || waitMs === undefined) return;
  if (waitMs > 0) return { requeueAfterMs: waitMs };
  const conditions = (pod.status?.conditions ?? []).map((c) => (c.type === 'DisruptionTarget'
    ? { type: 'DisruptionTarget', status: 'False', lastProbeTime: null, lastTransitionTime: nowTimestamp() } as typeof c : c));
  await podsClient.status.update({ ...pod, status: { ...pod.status, conditions } });
}

export const disruptionController: Controller = {
  name: 'disruption',
  start(ctx) {
    const budgets = ctx.informers.informer(ctx.refs.podDisruptionBudgets);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const replicaSets = ctx.informers.informer(ctx.refs.replicaSets);
    const deployments = ctx.informers.informer(ctx.refs.deployments);
    const statefulSets = ctx.informers.informer(ctx.refs.statefulSets);
    const rcs = ctx.informers.informer(ctx.refs.replicationControllers);

    /** the replicas a pod's controller wants, by the controller's uid; undefined when it has no known scale */
    const scaleOf = async (p: Pod): Promise<ControllerScale | undefined> => {
      const ref = controllerOf(p);
      if (!ref) return undefined;
      const ns = p.metadata.namespace;
      const byName = <T extends { metadata: { uid?: string } }>(o: T | undefined) => (o?.metadata.uid === ref.uid ? o : undefined);
      if (ref.kind === 'ReplicaSet') {
        const rs = byName(replicaSets.get(`${ns}/${ref.name}`));
        if (!rs) return undefined;
        const owner = controllerOf(rs);
        const d = owner?.kind === 'Deployment' ? deployments.get(`${ns}/${owner.name}`) : undefined;
        if (d && d.metadata.uid === owner!.uid) return { uid: d.metadata.uid!, replicas: d.spec.replicas ?? 1 };
        return { uid: rs.metadata.uid!, replicas: rs.spec.replicas ?? 1 };
      }
      if (ref.kind === 'StatefulSet') { const s = byName(statefulSets.get(`${ns}/${ref.name}`)); return s && { uid: s.metadata.uid!, replicas: s.spec.replicas ?? 1 }; }
      if (ref.kind === 'ReplicationController') { const r = byName(rcs.get(`${ns}/${ref.name}`)); return r && { uid: r.metadata.uid!, replicas: r.spec.replicas ?? 1 }; }
      return scaleOfOther(ctx, ns!, ref);
    };

    const queue = startQueue(ctx, async (key) => {
      const pdb = budgets.get(key);
      if (!pdb) return;
      return syncBudget(ctx, structuredClone(pdb), pods.list(splitKey(key)[0]), scaleOf);
    });
    const stale = startQueue(ctx, (key) => resetStaleDisruption(ctx, key));
    const watchStale = (p: Pod) => { const waitMs = staleDisruptionIn(p, Date.now()); if (waitMs !== undefined) stale.addAfter(keyOf(p), waitMs); };
    const forPod = (p: Pod) => { for (const b of budgets.list(p.metadata.namespace)) if (selects(b.spec?.selector, p.metadata.labels)) queue.add(keyOf(b)); };
    const all = (o: { metadata: { namespace?: string } }) => { for (const b of budgets.list(o.metadata.namespace)) queue.add(keyOf(b)); };
    budgets.addHandler({ added: (b) => queue.add(keyOf(b)), updated: (_, b) => queue.add(keyOf(b)) });
    pods.addHandler({
      added: (p) => { forPod(p); watchStale(p); },
      updated: (old, p) => { forPod(p); if (canonicalJson(old.metadata.labels) !== canonicalJson(p.metadata.labels)) forPod(old); watchStale(p); },
      deleted: forPod,
    });
    for (const inf of [replicaSets, deployments, statefulSets, rcs] as const) {
      (inf as typeof replicaSets).addHandler({ updated: (a, b) => { if (a.spec.replicas !== b.spec.replicas) all(b); } });
    }
  },
};

type ControllerScale = { uid: string; replicas: number };

/**
 * The scale of a pod's controller of another kind (a custom resource, say) read through its scale subresource, as
 * the reference's generic finder does: undefined when that is another object than the pod's owner or is gone; a
 * kind without a scale subresource is a failure of the sync.
 */
async function scaleOfOther(ctx: ControllerContext, namespace: string, ref: OwnerReference): Promise<ControllerScale | undefined> {
  const [group, version] = ref.apiVersion.includes('/') ? ref.apiVersion.split('/') as [string, string] : ['', ref.apiVersion];
  const find = (all: Awaited<ReturnType<ControllerContext['discover']>>) =>
    all.find((r) => r.group === group && r.version === version && r.kind === ref.kind && r.namespaced);
  // a kind not known yet may be new: discovery is read afresh once, as the reference's mapper resets on a miss
  const found = find(await ctx.discover()) ?? find(await ctx.discover(Date.now()));
  if (!found) return undefined;
  const qualified = group ? `${found.resource}.${group}` : found.resource;
  if (!found.subresources.includes('scale')) throw new Error(`${qualified} does not implement the scale subresource`);
  const path = `${group ? `/apis/${group}` : '/api'}/${version}/namespaces/${namespace}/${found.resource}/${ref.name}/scale`;
  const scale = await ctx.client.request<{ metadata: { uid?: string }; spec?: { replicas?: number } }>({ method: 'GET', path })
    .catch((e) => { if (isNotFound(e)) return undefined; throw e; });
  if (!scale || scale.metadata.uid !== ref.uid) return undefined;
  return { uid: ref.uid, replicas: scale.spec?.replicas ?? 0 };
}

async function syncBudget(ctx: ControllerContext, pdb: PodDisruptionBudget, namespacePods: Pod[],
  scaleOf: (p: Pod) => Promise<ControllerScale | undefined>): Promise<SyncResult | void> {
  const now = Date.now();
  const selected = namespacePods.filter((p) => selects(pdb.spec?.selector, p.metadata.labels));
  if (!selected.length) ctx.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');
  const spec = pdb.spec ?? {};
  let expected: number;
  let desired: number;
  let failure: string | undefined;
  let unmanaged = false;
  if (spec.minAvailable !== undefined && typeof spec.minAvailable === 'number') {
    expected = selected.length;
    desired = spec.minAvailable;
  } else {
    // the controllers' replicas; pods without a controller are left out of the count (the budget still covers
    // them), one whose controller is not found fails the sync
    const scales = new Map<string, number>();
    for (const p of selected) {
      if (!controllerOf(p)) { unmanaged = true; continue; }
      const s = await scaleOf(p).catch((e: Error) => e);
      if (s instanceof Error) { failure = s.message; break; }
      if (!s) { failure = `found no controllers for pod "${p.metadata.name}"`; break; }
      scales.set(s.uid, s.replicas);
    }
    expected = [...scales.values()].reduce((a, b) => a + b, 0);
    desired = spec.maxUnavailable !== undefined
      ? Math.max(0, expected - scaledValue(spec.maxUnavailable, expected, true, 0))
      : scaledValue(spec.minAvailable, expected, true, 0);
  }
  const write = async (status: NonNullable<PodDisruptionBudget['status']>) => {
    if (canonicalJson(status) === canonicalJson(pdb.status ?? {})) return;
    await ctx.client.resource(ctx.refs.podDisruptionBudgets, pdb.metadata.namespace).status.update({ ...pdb, status }).catch((e) => {
      // a conflict means an eviction charged the budget meanwhile: its update brings another sync
      if (!isConflict(e) && !isNotFound(e)) throw e;
    });
  };
  if (failure) {
    // fail safe: no disruptions, the counts left as they were
    ctx.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${failure}`);
    const observed = pdb.status?.observedGeneration;
    await write({
      ...pdb.status, disruptionsAllowed: 0,
      currentHealthy: pdb.status?.currentHealthy ?? 0, desiredHealthy: pdb.status?.desiredHealthy ?? 0, expectedPods: pdb.status?.expectedPods ?? 0,
      conditions: setCondition(pdb.status?.conditions,
        { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: failure, ...(observed !== undefined ? { observedGeneration: observed } : {}) }, nowTimestamp()),
    });
    return;
  }
  if (unmanaged) {
    ctx.recorder.event(pdb, 'Warning', 'UnmanagedPods', `Pods selected by this PodDisruptionBudget (selector: ${selectorString(spec.selector)}) were found `
      + 'to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. '
      + 'To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.');
  }
  // evictions not yet followed by the pod's deletion hold their pods out of the count for a while
  const disrupted: Record<string, string> = {};
  let recheck: number | undefined;
  for (const [name, at] of Object.entries(pdb.status?.disruptedPods ?? {})) {
    const pod = selected.find((p) => p.metadata.name === name);
    const until = Date.parse(at) + evictionTimeoutMs;
    if (!pod || pod.metadata.deletionTimestamp || until <= now) continue;
    disrupted[name] = at;
    recheck = Math.min(recheck ?? Infinity, until - now);
  }
  const healthy = selected.filter((p) => !p.metadata.deletionTimestamp && podReady(p) && !disrupted[p.metadata.name!]).length;
  // no expected pods allows nothing: a budget's first pods must not go before it has counted them
  const allowed = expected > 0 ? Math.max(0, healthy - desired) : 0;
  const generation = pdb.metadata.generation;
  const observed = generation !== undefined ? { observedGeneration: generation } : {};
  await write({
    observedGeneration: generation,
    ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
    disruptionsAllowed: allowed,
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
    conditions: setCondition(pdb.status?.conditions, allowed > 0
      ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', ...observed }
      : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', ...observed }, nowTimestamp()),
  });
  return recheck !== undefined ? { requeueAfterMs: recheck + 100 } : undefined;
}

/** a label selector as the reference's events print it (its generated String form) */
function selectorString(sel: LabelSelector | undefined): string {
  if (!sel) return 'nil';
  const labels = Object.keys(sel.matchLabels ?? {}).sort().map((k) => `${k}: ${sel.matchLabels![k]},`).join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
