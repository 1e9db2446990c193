// The disruption controller: keeps each PodDisruptionBudget's status (expected pods, desired and current
// healthy counts, disruptions allowed, the DisruptionAllowed condition), which the eviction subresource reads
// and charges. An integer minAvailable counts the selected pods; maxUnavailable and percentages count the
// replicas their controllers want (a Deployment's through its ReplicaSets, StatefulSets, ReplicationControllers,
// ReplicaSets). Pods evicted a moment ago stay out of the healthy count for up to two minutes.
import { nowTimestamp } from '../api/meta.js';
import { isConflict, isNotFound } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import { canonicalJson, controllerOf, keyOf, podReady, scaledValue, selects, setCondition, splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Pod, PodDisruptionBudget } from './types.js';

const evictionTimeoutMs = 2 * 60_000;

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
    const scaleOf = (p: Pod): { uid: string; replicas: number } | undefined => {
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
      return undefined;
    };

    const queue = startQueue(ctx, async (key) => {
      const pdb = budgets.get(key);
      if (!pdb) return;
      return syncBudget(ctx, structuredClone(pdb), pods.list(splitKey(key)[0]), scaleOf);
    });
    const forPod = (p: Pod) => { for (const b of budgets.list(p.metadata.namespace)) if (selects(b.spec?.selector, p.metadata.labels)) queue.add(keyOf(b)); };
    const all = (o: { metadata: { namespace?: string } }) => { for (const b of budgets.list(o.metadata.namespace)) queue.add(keyOf(b)); };
    budgets.addHandler({ added: (b) => queue.add(keyOf(b)), updated: (_, b) => queue.add(keyOf(b)) });
    pods.addHandler({ added: forPod, updated: (old, p) => { forPod(p); if (canonicalJson(old.metadata.labels) !== canonicalJson(p.metadata.labels)) forPod(old); }, deleted: forPod });
    for (const inf of [replicaSets, deployments, statefulSets, rcs] as const) {
      (inf as typeof replicaSets).addHandler({ updated: (a, b) => { if (a.spec.replicas !== b.spec.replicas) all(b); } });
    }
  },
};

async function syncBudget(ctx: ControllerContext, pdb: PodDisruptionBudget, namespacePods: Pod[],
  scaleOf: (p: Pod) => { uid: string; replicas: number } | undefined): Promise<SyncResult | void> {
  const now = Date.now();
  const selected = namespacePods.filter((p) => selects(pdb.spec?.selector, p.metadata.labels));
  const spec = pdb.spec ?? {};
  let expected: number;
  let desired: number;
  let failure: string | undefined;
  if (spec.minAvailable !== undefined && typeof spec.minAvailable === 'number') {
    expected = selected.length;
    desired = spec.minAvailable;
  } else {
    // the controllers' replicas
    const scales = new Map<string, number>();
    for (const p of selected) {
      const s = scaleOf(p);
      if (!s) { failure = `found no controllers for pod "${p.metadata.name}"`; break; }
      scales.set(s.uid, s.replicas);
    }
    expected = [...scales.values()].reduce((a, b) => a + b, 0);
    desired = spec.maxUnavailable !== undefined
      ? Math.max(0, expected - scaledValue(spec.maxUnavailable, expected, true, 0))
      : scaledValue(spec.minAvailable, expected, true, 0);
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
  const allowed = failure ? 0 : Math.max(0, healthy - desired);
  const status: NonNullable<PodDisruptionBudget['status']> = {
    observedGeneration: pdb.metadata.generation,
    ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
    disruptionsAllowed: allowed,
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
    conditions: setCondition(pdb.status?.conditions, failure
      ? { type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed', message: failure }
      : allowed > 0
        ? { type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '' }
        : { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '' }, nowTimestamp()),
  };
  if (canonicalJson(status) !== canonicalJson(pdb.status ?? {})) {
    await ctx.client.resource(ctx.refs.podDisruptionBudgets, pdb.metadata.namespace).updateStatus({ ...pdb, status }).catch((e) => {
      // a conflict means an eviction charged the budget meanwhile: its update brings another sync
      if (!isConflict(e) && !isNotFound(e)) throw e;
    });
  }
  return recheck !== undefined ? { requeueAfterMs: recheck + 100 } : undefined;
}
