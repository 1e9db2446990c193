// The Deployment controller: one ReplicaSet per pod template (named and labelled by the template's hash),
// rolled to with the RollingUpdate strategy (at most maxSurge pods above and maxUnavailable below the
// desired count) or Recreate (old pods gone before new ones start); revisions numbered on the ReplicaSets
// so `rollout undo` finds an old template, history trimmed to revisionHistoryLimit, scaling spread
// proportionally over the ReplicaSets of a rollout in progress, pause and resume, and the Available and
// Progressing conditions (with the progress deadline) that `rollout status` reads.
import { nowTimestamp } from '../api/meta.js';
import { ownerUidIndex } from '../client/informer.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import {
  canonicalJson, claimOwned, scaledValue, controllerOf, controllerRef, ignoreNotFound, keyOf, liveOwner, podFinished, removeCondition, selects,
  selectsEverything, semanticJson, splitKey, startQueue, templateHash,
  omitZeroCounts,
} from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Condition, Deployment, DeploymentStatus, IntOrString, Pod, PodTemplateSpec, ReplicaSet } from './types.js';
import { compareStrings } from '../util/order.js';

export const templateHashLabel = 'pod-template-hash';
const maxInt32 = 2 ** 31 - 1;

/** maxSurge and maxUnavailable as numbers; both zero would stall, so unavailability is then 1 */
export function fenceposts(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = d.spec.replicas ?? 1;
  const ru = d.spec.strategy?.rollingUpdate;
  const maxSurge = scaledValue(ru?.maxSurge, replicas, true, '25%');
  let maxUnavailable = scaledValue(ru?.maxUnavailable, replicas, false, '25%');
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, replicas) };
}

const isRolling = (d: Deployment) => (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
const replicasOf = (d: Deployment) => d.spec.replicas ?? 1;
const specReplicas = (rs: ReplicaSet) => rs.spec.replicas ?? 0;
const sum = (rss: ReplicaSet[], f: (rs: ReplicaSet) => number) => rss.reduce((n, rs) => n + f(rs), 0);
const created = (o: { metadata: { creationTimestamp?: string | null } }) => Date.parse(o.metadata.creationTimestamp ?? '') || 0;
const byAge = (a: ReplicaSet, b: ReplicaSet) => created(a) - created(b) || compareStrings(a.metadata.name!, b.metadata.name!);

/** the template without the hash label, for comparing a ReplicaSet's template with the Deployment's */
function templateKey(t: PodTemplateSpec): string {
  const copy = structuredClone(t);
  if (copy.metadata?.labels) delete copy.metadata.labels[templateHashLabel];
  return semanticJson(copy);
}

export const deploymentController: Controller = {
  name: 'deployment',
  start(ctx) {
    const deployments = ctx.informers.informer(ctx.refs.deployments);
    const replicaSets = ctx.informers.informer(ctx.refs.replicaSets);
    const pods = ctx.informers.informer(ctx.refs.pods);
    replicaSets.addIndex('owner', ownerUidIndex);
    pods.addIndex('owner', ownerUidIndex);
    const a = annotations(ctx);

    const queue = startQueue(ctx, async (key) => {
      const d = deployments.get(key);
      if (!d) return;
      const claim = (dd: Deployment) => claimOwned(ctx, ctx.refs.replicaSets, dd, { kind: 'Deployment', apiVersion: 'apps/v1' }, dd.spec.selector,
        replicaSets.list(splitKey(key)[0]), liveOwner(ctx, ctx.refs.deployments, dd));
      return syncDeployment(ctx, a, structuredClone(d), claim, (rs) => pods.byIndex('owner', rs.metadata.uid!));
    });

    const ownerOf = (rs: ReplicaSet) => {
      const ref = controllerOf(rs);
      if (ref) {
        if (ref.kind !== 'Deployment') return;
        const d = deployments.get(`${rs.metadata.namespace}/${ref.name}`);
        if (d?.metadata.uid === ref.uid) queue.add(keyOf(d));
        return;
      }
      for (const d of deployments.list(rs.metadata.namespace)) if (selects(d.spec.selector, rs.metadata.labels)) queue.add(keyOf(d));
    };
    deployments.addHandler({ added: (d) => queue.add(keyOf(d)), updated: (_, d) => queue.add(keyOf(d)), deleted: (d) => queue.add(keyOf(d)) });
    replicaSets.addHandler({ added: ownerOf, updated: (old, cur) => { if (controllerOf(old)?.uid !== controllerOf(cur)?.uid) ownerOf(old); ownerOf(cur); }, deleted: ownerOf });
    // Recreate waits for old pods to go
    pods.addHandler({
      deleted: (p) => {
        const ref = controllerOf(p);
        const rs = ref?.kind === 'ReplicaSet' ? replicaSets.get(`${p.metadata.namespace}/${ref.name}`) : undefined;
        if (rs) ownerOf(rs);
      },
    });
  },
};

function annotations(ctx: ControllerContext) {
  const prefix = `deployment.${ctx.names.labelDomain}`;
  return {
    revision: `${prefix}/revision`,
    revisionHistory: `${prefix}/revision-history`,
    desiredReplicas: `${prefix}/desired-replicas`,
    maxReplicas: `${prefix}/max-replicas`,
    /** annotations of the Deployment not copied to its ReplicaSets */
    notCopied: new Set([`${prefix}/revision`, `${prefix}/revision-history`, `${prefix}/desired-replicas`, `${prefix}/max-replicas`,
      'deprecated.deployment.rollback.to', ...ctx.names.lastAppliedAnnotations]),
  };
}
type Annotations = ReturnType<typeof annotations>;

const revisionOf = (a: Annotations, rs: ReplicaSet) => Number(rs.metadata.annotations?.[a.revision] ?? 0) || 0;

async function syncDeployment(ctx: ControllerContext, a: Annotations, d: Deployment,
  claim: (d: Deployment) => Promise<ReplicaSet[]>, podsOf: (rs: ReplicaSet) => Pod[]): Promise<SyncResult | void> {
  if (selectsEverything(d.spec.selector)) {
    ctx.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
    if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
      await writeStatus(ctx, d, { ...d.status, observedGeneration: d.metadata.generation });
    }
    return;
  }
  const rsList = await claim(d);
  if (d.metadata.deletionTimestamp) return syncStatusOnly(ctx, d, rsList);

  // pause and resume show in the Progressing condition
  const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
  if (hasProgressDeadline(d)) {
    // as the reference, a rollout reported timed out keeps saying so when paused
    if (d.spec.paused && progressing?.reason !== 'DeploymentPaused' && progressing?.reason !== 'ProgressDeadlineExceeded') {
      await writeStatus(ctx, d, { ...d.status, conditions: setDeploymentCondition(d.status?.conditions, 'Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused') });
      return;
    }
    if (!d.spec.paused && progressing?.reason === 'DeploymentPaused') {
      await writeStatus(ctx, d, { ...d.status, conditions: setDeploymentCondition(d.status?.conditions, 'Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed') });
      return;
    }
  }
  const sets = await replicaSetsAndRevision(ctx, a, d, rsList, false);
  // paused, or a change of replicas alone (a scaling event): no rollout
  const scaling = !!sets.newRS && sets.all.some((rs) => specReplicas(rs) > 0 && rs.metadata.annotations?.[a.desiredReplicas] !== String(replicasOf(d)));
  if (d.spec.paused || scaling) return scaleOnly(ctx, a, d, sets);
  return isRolling(d) ? rolloutRolling(ctx, a, d, rsList, sets) : rolloutRecreate(ctx, a, d, rsList, sets, podsOf);
}

interface Sets { newRS?: ReplicaSet; oldRSs: ReplicaSet[]; all: ReplicaSet[] }

/** the new ReplicaSet (its template is the Deployment's) and the old ones; creates the new one when asked */
async function replicaSetsAndRevision(ctx: ControllerContext, a: Annotations, d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<Sets> {
  const wanted = templateKey(d.spec.template);
  const sorted = [...rsList].sort(byAge);
  const existing = sorted.find((rs) => templateKey(rs.spec.template) === wanted);
  const oldRSs = sorted.filter((rs) => rs !== existing);
  const maxOld = Math.max(0, ...oldRSs.map((rs) => revisionOf(a, rs)));
  const revision = String(maxOld + 1);
  const { maxSurge } = fenceposts(d);
  const desired = String(replicasOf(d));
  const maxReplicas = String(replicasOf(d) + (isRolling(d) ? maxSurge : 0));
  let newRS = existing;
  if (existing) {
    // the revision moves forward when an old template becomes current again (rollout undo)
    const ann = { ...(existing.metadata.annotations ?? {}) };
    let changed = false;
    const oldRevision = ann[a.revision];
    // the Deployment's own annotations (a change-cause added after the rollout began) follow it to its current
    // ReplicaSet; ones the ReplicaSet has that the Deployment lost stay, as its history
    for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
      if (!a.notCopied.has(k) && ann[k] !== v) { ann[k] = v; changed = true; }
    }
    if (revisionOf(a, existing) < maxOld + 1) {
      if (oldRevision) ann[a.revisionHistory] = ann[a.revisionHistory] ? `${ann[a.revisionHistory]},${oldRevision}` : oldRevision;
      ann[a.revision] = revision;
      changed = true;
    }
    // desired-replicas and max-replicas are left as they are: they record the size the ReplicaSet was last scaled
    // for, which proportional scaling divides by (scaleReplicaSet writes them when it scales)
    const minReady = d.spec.minReadySeconds ?? 0;
    if (changed || (existing.spec.minReadySeconds ?? 0) !== minReady) {
      newRS = await ctx.client.resource(ctx.refs.replicaSets, d.metadata.namespace).update({
        ...existing, metadata: { ...existing.metadata, annotations: ann }, spec: { ...existing.spec, minReadySeconds: minReady },
      });
    }
  } else if (create) {
    newRS = await createReplicaSet(ctx, a, d, sorted, revision, desired, maxReplicas);
  }
  // the Deployment carries the revision of its current ReplicaSet
  const current = newRS?.metadata.annotations?.[a.revision];
  if (current && d.metadata.annotations?.[a.revision] !== current) {
    // an update, as the reference's controller writes (its role grants update, not patch)
    const updated = await ctx.client.resource(ctx.refs.deployments, d.metadata.namespace).update({
      ...d, metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [a.revision]: current } },
    });
    d.metadata = updated.metadata;
  }
  const all = newRS ? [...oldRSs, newRS] : oldRSs;
  return { newRS, oldRSs, all };
}

async function createReplicaSet(ctx: ControllerContext, a: Annotations, d: Deployment, existing: ReplicaSet[], revision: string,
  desired: string, maxReplicas: string): Promise<ReplicaSet> {
  const namespace = d.metadata.namespace!;
  const rsClient = ctx.client.resource(ctx.refs.replicaSets, namespace);
  for (let attempt = 0; attempt < 10; attempt++) {
    const collisionCount = d.status?.collisionCount ?? 0;
    const hash = templateHash(d.spec.template, collisionCount);
    const template = structuredClone(d.spec.template);
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [templateHashLabel]: hash } };
    const selector = structuredClone(d.spec.selector);
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [templateHashLabel]: hash };
    const copied = Object.fromEntries(Object.entries(d.metadata.annotations ?? {}).filter(([k]) => !a.notCopied.has(k)));
    const allRSs = existing;
    // a new ReplicaSet of a rolling update starts with as many pods as the surge allows
    const replicas = isRolling(d) ? newReplicaCount(d, allRSs, undefined) : 0;
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`, namespace,
        labels: { ...(template.metadata.labels ?? {}) },
        annotations: { ...copied, [a.revision]: revision, [a.desiredReplicas]: desired, [a.maxReplicas]: maxReplicas },
        ownerReferences: [controllerRef(d, 'Deployment', 'apps/v1')],
      },
      spec: { replicas, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template },
    };
    try {
      const made = await rsClient.create(rs);
      if (replicas > 0) ctx.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${made.metadata.name} to ${replicas}`);
      await writeStatus(ctx, d, { ...d.status, conditions: setDeploymentCondition(d.status?.conditions, 'Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${made.metadata.name}"`) });
      return made;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      // a ReplicaSet of this name exists: ours with the same template, or a hash collision
      const other = await rsClient.get(rs.metadata.name!).catch(() => undefined);
      if (other && controllerOf(other)?.uid === d.metadata.uid && templateKey(other.spec.template) === templateKey(d.spec.template)) return other;
      const status = { ...d.status, collisionCount: collisionCount + 1 };
      await writeStatus(ctx, d, status);
      d.status = status;
    }
  }
  throw new Error('too many ReplicaSet name collisions');
}

/** how many pods the new ReplicaSet may have now, within maxSurge */
function newReplicaCount(d: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): number {
  const current = newRS ? specReplicas(newRS) : 0;
  const { maxSurge } = fenceposts(d);
  const total = sum(all, specReplicas) + (newRS && !all.includes(newRS) ? current : 0);
  const maxTotal = replicasOf(d) + maxSurge;
  if (total >= maxTotal) return current;
  return current + Math.max(0, Math.min(maxTotal - total, replicasOf(d) - current));
}

async function scaleReplicaSet(ctx: ControllerContext, a: Annotations, d: Deployment, rs: ReplicaSet, replicas: number): Promise<ReplicaSet> {
  const desired = String(replicasOf(d));
  const maxReplicas = String(replicasOf(d) + (isRolling(d) ? fenceposts(d).maxSurge : 0));
  const ann = rs.metadata.annotations ?? {};
  if (specReplicas(rs) === replicas && ann[a.desiredReplicas] === desired && ann[a.maxReplicas] === maxReplicas) return rs;
  const updated = await ctx.client.resource(ctx.refs.replicaSets, rs.metadata.namespace).update({
    ...rs,
    metadata: { ...rs.metadata, annotations: { ...ann, [a.desiredReplicas]: desired, [a.maxReplicas]: maxReplicas } },
    spec: { ...rs.spec, replicas },
  });
  if (specReplicas(rs) !== replicas) {
    ctx.recorder.event(d, 'Normal', 'ScalingReplicaSet',
      `Scaled ${replicas > specReplicas(rs) ? 'up' : 'down'} replica set ${rs.metadata.name} to ${replicas} from ${specReplicas(rs)}`);
  }
  return updated;
}

async function rolloutRolling(ctx: ControllerContext, a: Annotations, d: Deployment, rsList: ReplicaSet[], sets: Sets): Promise<SyncResult | void> {
  const { newRS, oldRSs, all } = sets.newRS ? sets : await replicaSetsAndRevision(ctx, a, d, rsList, true);
  // scale up the new ReplicaSet within the surge
  if (newRS) {
    const target = specReplicas(newRS) > replicasOf(d) ? replicasOf(d) : newReplicaCount(d, all, newRS);
    if (target !== specReplicas(newRS)) {
      await scaleReplicaSet(ctx, a, d, newRS, target);
      return syncRolloutStatus(ctx, d, all, newRS);
    }
  }
  // scale down old ones within the unavailability allowance
  if (await reconcileOld(ctx, a, d, all, oldRSs.filter((rs) => specReplicas(rs) > 0), newRS)) return syncRolloutStatus(ctx, d, all, newRS);
  if (complete(d, calculateStatus(d, all, newRS))) await cleanup(ctx, a, d, oldRSs);
  return syncRolloutStatus(ctx, d, all, newRS);
}

async function reconcileOld(ctx: ControllerContext, a: Annotations, d: Deployment, all: ReplicaSet[], oldActive: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<boolean> {
  if (sum(oldActive, specReplicas) === 0) return false;
  const { maxUnavailable } = fenceposts(d);
  const minAvailable = replicasOf(d) - maxUnavailable;
  const newUnavailable = newRS ? specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0) : 0;
  let maxScaledDown = sum(all, specReplicas) - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return false;
  let scaled = 0;
  // first the old pods that are not available anyway, oldest ReplicaSets first
  const remaining = new Map<ReplicaSet, number>();
  for (const rs of [...oldActive].sort(byAge)) {
    let target = specReplicas(rs);
    const unhealthy = target - (rs.status?.availableReplicas ?? 0);
    if (maxScaledDown > 0 && unhealthy > 0) {
      const down = Math.min(maxScaledDown, unhealthy);
      target -= down;
      maxScaledDown -= down;
      scaled += down;
    }
    remaining.set(rs, target);
  }
  // then available ones, as long as enough stay available
  const allAvailable = sum(all, (rs) => rs.status?.availableReplicas ?? 0);
  let allowance = allAvailable - minAvailable;
  for (const [rs, target] of remaining) {
    let t = target;
    if (allowance > 0 && t > 0) {
      const down = Math.min(allowance, t);
      t -= down;
      allowance -= down;
      scaled += down;
    }
    if (t !== specReplicas(rs)) await scaleReplicaSet(ctx, a, d, rs, t);
  }
  return scaled > 0;
}

async function rolloutRecreate(ctx: ControllerContext, a: Annotations, d: Deployment, rsList: ReplicaSet[], sets: Sets,
  podsOf: (rs: ReplicaSet) => Pod[]): Promise<SyncResult | void> {
  let { newRS, oldRSs, all } = sets;
  const activeOld = oldRSs.filter((rs) => specReplicas(rs) > 0);
  if (activeOld.length) {
    for (const rs of activeOld) await scaleReplicaSet(ctx, a, d, rs, 0);
    return syncRolloutStatus(ctx, d, all, newRS);
  }
  // the new pods start only when every old pod is gone
  if (oldRSs.some((rs) => podsOf(rs).some((p) => !podFinished(p)))) return syncRolloutStatus(ctx, d, all, newRS);
  if (!newRS) ({ newRS, oldRSs, all } = await replicaSetsAndRevision(ctx, a, d, rsList, true));
  if (newRS && specReplicas(newRS) !== replicasOf(d)) {
    await scaleReplicaSet(ctx, a, d, newRS, replicasOf(d));
    return syncRolloutStatus(ctx, d, all, newRS);
  }
  if (complete(d, calculateStatus(d, all, newRS))) await cleanup(ctx, a, d, oldRSs);
  return syncRolloutStatus(ctx, d, all, newRS);
}

/** scaling without a rollout (paused, or only the replica count changed): spread over the active ReplicaSets */
async function scaleOnly(ctx: ControllerContext, a: Annotations, d: Deployment, { newRS, oldRSs, all }: Sets): Promise<SyncResult | void> {
  await scale(ctx, a, d, newRS, oldRSs);
  if (d.spec.paused) await cleanup(ctx, a, d, oldRSs);
  return syncStatusOnly(ctx, d, all, newRS);
}

async function scale(ctx: ControllerContext, a: Annotations, d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]) {
  const all = newRS ? [newRS, ...oldRSs] : oldRSs;
  const active = all.filter((rs) => specReplicas(rs) > 0);
  // one ReplicaSet with pods (or none at all): it takes the whole count
  const only = active.length === 1 ? active[0] : active.length === 0 ? newRS ?? [...oldRSs].sort(byAge).at(-1) : undefined;
  if (only) {
    await scaleReplicaSet(ctx, a, d, only, replicasOf(d));
    return;
  }
  // the new ReplicaSet is complete (for the current size): the old ones go
  if (newRS && specReplicas(newRS) === replicasOf(d) && newRS.metadata.annotations?.[a.desiredReplicas] === String(replicasOf(d))
    && (newRS.status?.availableReplicas ?? 0) === replicasOf(d)) {
    for (const rs of oldRSs.filter((r) => specReplicas(r) > 0)) await scaleReplicaSet(ctx, a, d, rs, 0);
    return;
  }
  if (!isRolling(d)) return;
  // proportional: each active ReplicaSet gets its share of the change, the rest goes to the first in order
  const allowed = replicasOf(d) > 0 ? replicasOf(d) + fenceposts(d).maxSurge : 0;
  const toAdd = allowed - sum(active, specReplicas);
  // largest first; among equals, the newest when growing and the oldest when shrinking
  const ordered = [...active].sort((x, y) => specReplicas(y) - specReplicas(x) || (toAdd > 0 ? byAge(y, x) : byAge(x, y)));
  let added = 0;
  const targets = new Map<ReplicaSet, number>();
  for (const rs of ordered) {
    const share = proportion(a, d, rs, toAdd, added);
    added += share;
    targets.set(rs, specReplicas(rs) + share);
  }
  const first = ordered[0]!;
  targets.set(first, Math.max(0, targets.get(first)! + toAdd - added));
  // every active ReplicaSet is written, even at its size, so that its annotations record the new size
  for (const [rs, n] of targets) await scaleReplicaSet(ctx, a, d, rs, Math.max(0, n));
}

/** what a ReplicaSet gains (or loses) of `toAdd`: its size scaled from the Deployment's maximum it was last sized for
 *  (its max-replicas annotation) to the current one, within what is left to hand out */
function proportion(a: Annotations, d: Deployment, rs: ReplicaSet, toAdd: number, added: number): number {
  const size = specReplicas(rs);
  if (size === 0 || toAdd === 0 || toAdd === added) return 0;
  const left = toAdd - added;
  const fraction = shareOfChange(a, d, rs);
  return toAdd > 0 ? Math.min(fraction, left) : Math.max(fraction, left);
}

function shareOfChange(a: Annotations, d: Deployment, rs: ReplicaSet): number {
  const size = specReplicas(rs);
  // scaling to zero: the whole ReplicaSet goes
  if (replicasOf(d) === 0) return -size;
  const maxNow = replicasOf(d) + fenceposts(d).maxSurge;
  let maxBefore = Number(rs.metadata.annotations?.[a.maxReplicas]) || 0;
  if (maxBefore <= 0) {
    // no annotation (a ReplicaSet adopted from elsewhere): the Deployment's current pod count stands in for it; with
    // nothing to divide by, the ReplicaSet gets no share (the leftover goes to the first in order)
    maxBefore = d.status?.replicas ?? 0;
    if (maxBefore <= 0) return 0;
  }
  return roundHalfAwayFromZero((size * maxNow) / maxBefore) - size;
}

const roundHalfAwayFromZero = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

/** old ReplicaSets beyond revisionHistoryLimit that have no pods left go, oldest revision first */
async function cleanup(ctx: ControllerContext, a: Annotations, d: Deployment, oldRSs: ReplicaSet[]) {
  const limit = d.spec.revisionHistoryLimit ?? 10;
  const idle = oldRSs.filter((rs) => specReplicas(rs) === 0 && (rs.status?.replicas ?? 0) === 0 && !rs.metadata.deletionTimestamp
    && rs.metadata.generation === rs.status?.observedGeneration);
  const surplus = idle.length - limit;
  if (surplus <= 0) return;
  const victims = idle.sort((x, y) => revisionOf(a, x) - revisionOf(a, y) || byAge(x, y)).slice(0, surplus);
  for (const rs of victims) {
    await ctx.client.resource(ctx.refs.replicaSets, rs.metadata.namespace).delete(rs.metadata.name!, { preconditions: { uid: rs.metadata.uid } }).catch(ignoreNotFound);
  }
}

// ---- status ----

const hasProgressDeadline = (d: Deployment) => d.spec.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== maxInt32;

/** as the reference: a condition of the same status and reason stays as it is (its message too); any other change
 *  removes the old condition and appends the new one at the end, its lastTransitionTime kept when the status is the same */
function setDeploymentCondition(conditions: Condition[] | undefined, type: string, status: Condition['status'], reason: string, message: string): Condition[] {
  const now = nowTimestamp();
  const prev = conditions?.find((c) => c.type === type);
  if (prev && prev.status === status && prev.reason === reason) return conditions!;
  const next: Condition = { type, status, lastUpdateTime: now, lastTransitionTime: prev?.status === status ? prev.lastTransitionTime : now, reason, message };
  return [...removeCondition(conditions, type), next];
}

function calculateStatus(d: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): DeploymentStatus {
  const available = sum(all, (rs) => rs.status?.availableReplicas ?? 0);
  const replicas = replicasOf(d);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: sum(all, (rs) => rs.status?.replicas ?? 0),
    updatedReplicas: newRS?.status?.replicas ?? 0,
    readyReplicas: sum(all, (rs) => rs.status?.readyReplicas ?? 0),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, replicas - available),
    conditions: d.status?.conditions,
    ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
  };
  omitZeroCounts(status, ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']);
  const minAvailable = replicas - (isRolling(d) ? fenceposts(d).maxUnavailable : 0);
  status.conditions = available >= minAvailable
    ? setDeploymentCondition(status.conditions, 'Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')
    : setDeploymentCondition(status.conditions, 'Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.');
  return status;
}

/** every pod updated and available, and nothing else left */
const complete = (d: Deployment, s: DeploymentStatus) => (s.updatedReplicas ?? 0) === replicasOf(d) && (s.replicas ?? 0) === replicasOf(d)
  && (s.availableReplicas ?? 0) === replicasOf(d) && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);

async function syncStatusOnly(ctx: ControllerContext, d: Deployment, rsList: ReplicaSet[], newRS?: ReplicaSet): Promise<SyncResult | void> {
  const found = newRS ?? [...rsList].sort(byAge).find((rs) => templateKey(rs.spec.template) === templateKey(d.spec.template));
  const status = calculateStatus(d, rsList, found);
  if (!sameStatus(d.status, status)) await writeStatus(ctx, d, status);
}

async function syncRolloutStatus(ctx: ControllerContext, d: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): Promise<SyncResult | void> {
  const status = calculateStatus(d, all, newRS);
  const prev = d.status ?? {};
  let requeueAfterMs: number | undefined;
  if (!hasProgressDeadline(d)) {
    status.conditions = removeCondition(status.conditions, 'Progressing');
  } else {
    const cur = status.conditions?.find((c) => c.type === 'Progressing');
    const subject = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
    // as in the reference, a finished rollout followed by a change of size alone (all pods of the current template) is
    // left as it is: a scale is not a rollout, and is not timed against the rollout's deadline
    const finished = (status.replicas ?? 0) === (status.updatedReplicas ?? 0) && cur?.reason === 'NewReplicaSetAvailable';
    if (!finished) {
      if (complete(d, status)) {
        status.conditions = setDeploymentCondition(status.conditions, 'Progressing', 'True', 'NewReplicaSetAvailable', `${subject} has successfully progressed.`);
      } else if (madeProgress(prev, status)) {
        // progress moves lastUpdateTime, which the deadline counts from (and ends a timeout: the rollout goes on)
        const now = nowTimestamp();
        const next: Condition = { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `${subject} is progressing.`, lastUpdateTime: now,
          lastTransitionTime: cur?.status === 'True' ? cur.lastTransitionTime : now };
        status.conditions = [...removeCondition(status.conditions, 'Progressing'), next];
      } else if (cur && cur.reason !== 'ProgressDeadlineExceeded' && cur.reason !== 'NewReplicaSetAvailable' && timedOut(d, cur)) {
        status.conditions = setDeploymentCondition(status.conditions, 'Progressing', 'False', 'ProgressDeadlineExceeded', `${subject} has timed out progressing.`);
        ctx.recorder.event(d, 'Warning', 'ProgressDeadlineExceeded', `Deployment "${d.metadata.name}" has timed out progressing.`);
      }
    }
    // look again when the deadline would pass without progress
    const after = status.conditions?.find((c) => c.type === 'Progressing');
    if (after && after.status === 'True' && after.reason !== 'NewReplicaSetAvailable') {
      const at = Date.parse(after.lastUpdateTime ?? '') + d.spec.progressDeadlineSeconds! * 1000;
      if (Number.isFinite(at)) requeueAfterMs = Math.max(0, at - Date.now()) + 1000;
    }
  }
  // a ReplicaSet that cannot create pods says so on the Deployment
  const failure = all.map((rs) => rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True')).find(Boolean);
  status.conditions = failure
    ? setDeploymentCondition(status.conditions, 'ReplicaFailure', 'True', failure.reason ?? 'FailedCreate', failure.message ?? '')
    : removeCondition(status.conditions, 'ReplicaFailure');
  if (!sameStatus(d.status, status)) await writeStatus(ctx, d, status);
  return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
}

/** more pods updated, ready or available, or fewer old ones left (as the reference: fewer pods alone is no progress) */
const madeProgress = (prev: DeploymentStatus, cur: DeploymentStatus) => {
  const old = (s: DeploymentStatus) => (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (cur.updatedReplicas ?? 0) > (prev.updatedReplicas ?? 0) || (cur.readyReplicas ?? 0) > (prev.readyReplicas ?? 0)
    || (cur.availableReplicas ?? 0) > (prev.availableReplicas ?? 0) || old(cur) < old(prev);
};

const timedOut = (d: Deployment, c: Condition) =>
  Date.parse(c.lastUpdateTime ?? '') + d.spec.progressDeadlineSeconds! * 1000 < Date.now();

function sameStatus(a: DeploymentStatus | undefined, b: DeploymentStatus): boolean {
  const strip = (s: DeploymentStatus | undefined) => canonicalJson({ ...(s ?? {}), conditions: (s?.conditions ?? []).map((c) => ({ ...c, lastUpdateTime: undefined, lastTransitionTime: undefined })) });
  return strip(a) === strip(b) && (a?.conditions?.length ?? 0) === (b.conditions?.length ?? 0);
}

async function writeStatus(ctx: ControllerContext, d: Deployment, status: DeploymentStatus) {
  const updated = await ctx.client.resource(ctx.refs.deployments, d.metadata.namespace).status.update({ ...d, status }).catch((e) => {
    if (isConflict(e) || isNotFound(e)) return undefined;   // a newer version brings another sync
    throw e;
  });
  if (updated) { d.metadata = updated.metadata; d.status = updated.status; }
}
