// The StatefulSet controller: pods with stable names `<set>-<ordinal>`, host names and volume claims made from
// the claim templates (`<template>-<pod>`, kept when pods go). OrderedReady creates pods in ordinal order, each
// once the ones before it run and are ready, and removes them from the highest ordinal down one at a time;
// Parallel does both at once. Templates are kept as ControllerRevisions: a RollingUpdate replaces pods from the
// highest ordinal down to the partition, one at a time, each once those above it are ready again; OnDelete waits for
// pods to be deleted by someone else. Status counts current and updated pods by revision. The claims' retention
// policy is kept through their owner references, which the garbage collector follows: whenDeleted Delete makes the
// set an owner of its claims, whenScaled Delete makes each pod beyond the replicas the owner of its claims before the
// pod goes (Retain for both, the default, leaves claims owned by neither).
import { ownerUidIndex } from '../client/informer.js';
import { isAlreadyExists, isConflict, isNotFound, serverMessage } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import {
  canonicalJson, claimOwned, controllerOf, controllerRef, keyOf, liveOwner, msUntilAvailable, podAvailable, podFromTemplate, podReady,
  selects, splitKey, startQueue,
  omitZeroCounts,
} from './common.js';
import type { Controller, ControllerContext } from './context.js';
import { currentRevision, ownedRevisions, revisionHashLabel, templateOf, trimHistory } from './revisions.js';
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus } from './types.js';
import type { OwnerReference } from '../api/meta.js';

const kind = { kind: 'StatefulSet', apiVersion: 'apps/v1' };
const runningAndReady = (p: Pod) => p.status?.phase === 'Running' && podReady(p);
const claimName = (template: PersistentVolumeClaim, podName: string) => `${template.metadata.name}-${podName}`;

/** the ordinal of a pod named `<set>-<n>`, or undefined */
export function ordinalOf(set: string, podName: string): number | undefined {
  if (!podName.startsWith(`${set}-`)) return undefined;
  const rest = podName.slice(set.length + 1);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

export const statefulSetController: Controller = {
  name: 'statefulset',
  start(ctx) {
    const sets = ctx.informers.informer(ctx.refs.statefulSets);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const revisions = ctx.informers.informer(ctx.refs.controllerRevisions);
    const claims = ctx.informers.informer(ctx.refs.persistentVolumeClaims);
    pods.addIndex('owner', ownerUidIndex);
    const queue = startQueue(ctx, async (key) => {
      const set = sets.get(key);
      if (!set) return;
      const [namespace] = splitKey(key);
      return syncSet(ctx, structuredClone(set), pods.list(namespace), revisions.list(namespace),
        (name) => claims.get(`${namespace}/${name}`));
    });
    const ownerOf = (o: Pod | ControllerRevision) => {
      const ref = controllerOf(o);
      if (ref) { if (ref.kind === 'StatefulSet') queue.add(`${o.metadata.namespace}/${ref.name}`); return; }
      for (const s of sets.list(o.metadata.namespace)) if (selects(s.spec.selector, o.metadata.labels)) queue.add(keyOf(s));
    };
    sets.addHandler({ added: (s) => queue.add(keyOf(s)), updated: (_, s) => queue.add(keyOf(s)) });
    pods.addHandler({ added: ownerOf, updated: (_, p) => ownerOf(p), deleted: ownerOf });
    revisions.addHandler({ added: ownerOf, deleted: ownerOf });
  },
};

async function syncSet(ctx: ControllerContext, set: StatefulSet, namespacePods: Pod[], namespaceRevisions: ControllerRevision[],
  claimFor: (name: string) => PersistentVolumeClaim | undefined): Promise<SyncResult | void> {
  const namespace = set.metadata.namespace!;
  const name = set.metadata.name!;
  const history = await ownedRevisions(ctx, set, kind, ctx.refs.statefulSets, namespaceRevisions);
  const { revision: update, collisionCount } = await currentRevision(ctx, set, kind, history);
  const current = history.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
  const owned = await claimOwned(ctx, ctx.refs.pods, set, kind, set.spec.selector,
    namespacePods.filter((p) => ordinalOf(name, p.metadata.name!) !== undefined), liveOwner(ctx, ctx.refs.statefulSets, set));

  const replicas = set.spec.replicas ?? 1;
  const start = set.spec.ordinals?.start ?? 0;
  const slots: Array<Pod | undefined> = Array.from({ length: replicas }, () => undefined);
  const condemned: Pod[] = [];
  for (const p of owned) {
    const ord = ordinalOf(name, p.metadata.name!)!;
    if (ord >= start && ord < start + replicas) slots[ord - start] = p;
    else condemned.push(p);
  }
  condemned.sort((a, b) => ordinalOf(name, b.metadata.name!)! - ordinalOf(name, a.metadata.name!)!);
  const ordered = set.spec.podManagementPolicy !== 'Parallel';
  const rolling = (set.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
  const partition = rolling ? set.spec.updateStrategy?.rollingUpdate?.partition ?? 0 : 0;
  const minReady = set.spec.minReadySeconds ?? 0;
  const podClient = ctx.client.resource(ctx.refs.pods, namespace);
  const revisionOfOrdinal = (i: number) => (rolling && i < partition ? current : update);
  const deletePod = async (p: Pod) => {
    await podClient.delete(p.metadata.name!, { preconditions: { uid: p.metadata.uid } }).catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
    ctx.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${p.metadata.name} in StatefulSet ${name} successful`);
  };

  const act = async (): Promise<void> => {
    if (set.metadata.deletionTimestamp) return;
    // claims owned as the retention policy says, before any pod beyond the replicas goes
    for (const p of owned) await keepClaimOwners(ctx, set, p, claimFor);
    // pods missing or failed are made anew, in order when ordered
    for (let i = 0; i < replicas; i++) {
      const p = slots[i];
      if (!p) {
        await createPod(ctx, set, start + i, revisionOfOrdinal(i), claimFor);
        if (ordered) return;
        continue;
      }
      if (p.status?.phase === 'Failed' && !p.metadata.deletionTimestamp) {
        await deletePod(p);
        if (ordered) return;
        continue;
      }
      if (ordered && (p.metadata.deletionTimestamp || !runningAndReady(p) || !podAvailable(p, minReady))) return;
    }
    // surplus pods go from the highest ordinal, one at a time when ordered
    for (const p of condemned) {
      if (p.metadata.deletionTimestamp) { if (ordered) return; continue; }
      if (ordered && slots.some((s) => !s || !runningAndReady(s))) return;
      await deletePod(p);
      if (ordered) return;
    }
    // a rolling update replaces pods from the highest ordinal down to the partition, one at a time: a pod of another
    // revision goes, and the update waits on the first pod it meets that is missing, going or not ready. Pods it has
    // not reached do not hold it up (with Parallel management they may be unready: a broken template being fixed)
    if (!rolling) return;
    for (let i = replicas - 1; i >= partition; i--) {
      const p = slots[i];
      if (p && !p.metadata.deletionTimestamp && p.metadata.labels?.[revisionHashLabel] !== update.metadata.name) { await deletePod(p); return; }
      if (!p || p.metadata.deletionTimestamp || !runningAndReady(p)) return;
    }
  };
  // the status is written even when a pod could not be made or removed, as the reference writes it, so clients see
  // the generation observed (kubectl rollout status waits for it); the error then puts the set back in the queue
  const failed = await act().then(() => undefined, (e: unknown) => e ?? new Error('statefulset sync failed'));

  // status from what the pods are
  const present = owned;
  const revisionOf = (p: Pod) => p.metadata.labels?.[revisionHashLabel];
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata.generation,
    replicas: present.length,
    readyReplicas: present.filter(runningAndReady).length,
    availableReplicas: present.filter((p) => runningAndReady(p) && podAvailable(p, minReady)).length,
    currentReplicas: present.filter((p) => revisionOf(p) === current.metadata.name).length,
    updatedReplicas: present.filter((p) => revisionOf(p) === update.metadata.name).length,
    currentRevision: current.metadata.name,
    updateRevision: update.metadata.name,
    collisionCount,
    ...(set.status?.conditions ? { conditions: set.status.conditions } : {}),
  };
  // once every pod is updated and ready, the update revision is the current one
  if (status.updatedReplicas === replicas && status.readyReplicas === replicas && present.length === replicas) {
    status.currentRevision = update.metadata.name;
    status.currentReplicas = status.updatedReplicas;
  }
  // replicas and availableReplicas are always written (no omitempty in the reference), the other counts only above zero
  omitZeroCounts(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas']);
  if (canonicalJson(status) !== canonicalJson(set.status ?? {})) {
    await ctx.client.resource(ctx.refs.statefulSets, namespace).status.update({ ...set, status }).catch((e) => {
      if (!isConflict(e) && !isNotFound(e)) throw e;
    });
  }
  if (failed) throw failed;
  const inUse = new Set([status.currentRevision!, status.updateRevision!, ...owned.map(revisionOf).filter((r): r is string => !!r)]);
  await trimHistory(ctx, set, history, inUse);
  const waits = owned.map((p) => msUntilAvailable(p, minReady)).filter((w): w is number => w !== undefined);
  return waits.length ? { requeueAfterMs: Math.min(...waits) + 50 } : undefined;
}

/** whether a pod's ordinal is beyond the set's replicas (the pod goes when the set is scaled down) */
const scaledDown = (set: StatefulSet, ordinal: number) => {
  const start = set.spec.ordinals?.start ?? 0;
  return ordinal < start || ordinal >= start + (set.spec.replicas ?? 1);
};

/** a claim's owner references as the set's retention policy wants them: references to the set and to the pod (once
 *  it exists) added or removed, any other owner kept */
function claimOwners(set: StatefulSet, ordinal: number, pod: Pod | undefined, refs: OwnerReference[]): { ownerReferences?: OwnerReference[] } {
  const policy = set.spec.persistentVolumeClaimRetentionPolicy;
  const byPod = policy?.whenScaled === 'Delete' && scaledDown(set, ordinal);
  const bySet = policy?.whenDeleted === 'Delete' && !byPod;
  const others = refs.filter((r) => r.uid !== set.metadata.uid && r.uid !== pod?.metadata.uid);
  const wanted = [
    ...others,
    ...(bySet ? [{ apiVersion: kind.apiVersion, kind: kind.kind, name: set.metadata.name!, uid: set.metadata.uid! }] : []),
    ...(byPod && pod ? [{ apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid! }] : []),
  ];
  return wanted.length ? { ownerReferences: wanted } : {};
}

/** owner references as text whatever their order */
const ownersText = (refs: OwnerReference[]) => canonicalJson([...refs].sort((a, b) => a.uid.localeCompare(b.uid)));

/** the pod's claims updated (compare-and-swap, a conflict retried on the next sync) where their owners differ
 *  from what the retention policy wants */
async function keepClaimOwners(ctx: ControllerContext, set: StatefulSet, pod: Pod, claimFor: (name: string) => PersistentVolumeClaim | undefined) {
  const ordinal = ordinalOf(set.metadata.name!, pod.metadata.name!)!;
  for (const template of set.spec.volumeClaimTemplates ?? []) {
    const claim = claimFor(claimName(template, pod.metadata.name!));
    if (!claim || claim.metadata.deletionTimestamp) continue;
    const refs = claim.metadata.ownerReferences ?? [];
    const wanted = claimOwners(set, ordinal, pod, refs).ownerReferences ?? [];
    if (ownersText(wanted) === ownersText(refs)) continue;
    const metadata = { ...claim.metadata, ownerReferences: wanted.length ? wanted : undefined };
    await ctx.client.resource(ctx.refs.persistentVolumeClaims, claim.metadata.namespace!).update({ ...claim, metadata });
  }
}

async function createPod(ctx: ControllerContext, set: StatefulSet, ordinal: number, revision: ControllerRevision,
  claimFor: (name: string) => PersistentVolumeClaim | undefined) {
  const namespace = set.metadata.namespace!;
  const podName = `${set.metadata.name}-${ordinal}`;
  // the claims first: a pod never starts without its volumes
  for (const template of set.spec.volumeClaimTemplates ?? []) {
    const name = claimName(template, podName);
    if (claimFor(name)) continue;
    const claim: PersistentVolumeClaim = {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: {
        name, namespace, ...claimOwners(set, ordinal, undefined, []),
        labels: { ...(template.metadata.labels ?? {}), ...(set.spec.selector.matchLabels ?? {}) },
        ...(template.metadata.annotations ? { annotations: template.metadata.annotations } : {}),
      },
      spec: structuredClone(template.spec),
    };
    try {
      await ctx.client.resource(ctx.refs.persistentVolumeClaims, namespace).create(claim);
      ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata.name} success`);
    } catch (e) {
      if (!isAlreadyExists(e)) {
        ctx.recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${podName} in StatefulSet ${set.metadata.name} failed error: ${serverMessage(e)}`);
        throw e;
      }
    }
  }
  const pod = podFromTemplate(templateOf(revision), namespace, controllerRef(set, kind.kind, kind.apiVersion), {
    name: podName,
    labels: { [revisionHashLabel]: revision.metadata.name!, [`statefulset.${ctx.names.labelDomain}/pod-name`]: podName },
  });
  pod.spec.hostname = podName;
  if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
  const claimVolumes = (set.spec.volumeClaimTemplates ?? []).map((t) => ({ name: t.metadata.name!, persistentVolumeClaim: { claimName: claimName(t, podName) } }));
  pod.spec.volumes = [...(pod.spec.volumes ?? []).filter((v) => !claimVolumes.some((c) => c.name === v.name)), ...claimVolumes];
  try {
    await ctx.client.resource(ctx.refs.pods, namespace).create(pod);
    ctx.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${set.metadata.name} successful`);
  } catch (e) {
    if (isAlreadyExists(e)) return;   // the cache had not seen it yet
    ctx.recorder.event(set, 'Warning', 'FailedCreate', `create Pod ${podName} in StatefulSet ${set.metadata.name} failed error: ${serverMessage(e)}`);
    throw e;
  }
}
