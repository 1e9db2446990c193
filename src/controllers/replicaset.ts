// The ReplicaSet controller: keeps `spec.replicas` pods that match the selector, adopting orphans that
// match and releasing pods that stopped matching; creates in batches that double (1, 2, 4, ...) and stops
// at the first refusal; deletes the least useful pods first; and reports replicas, fully labeled, ready and
// available counts. The same engine runs ReplicationControllers (replication-controller.ts).
import { isConflict, isNotFound, type ResourceRef, serverMessage } from '../client/rest-client.js';
import type { SyncResult } from '../client/workqueue.js';
import { ownerUidIndex } from '../client/informer.js';
import { nowTimestamp } from '../api/meta.js';
import {
  claimOwned, controllerOf, controllerRef, createExpectations, liveOwner, deletionRank, ignoreNotFound, keyOf, msUntilAvailable, podActive,
  podAvailable, podFromTemplate, podReady, removeCondition, selects, setCondition, slowStartCreations, splitKey, startQueue,
  omitZeroCounts,
} from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Condition, LabelSelector, Obj, Pod, PodTemplateSpec, ReplicaSetStatus } from './types.js';

/** at most this many pods are created or deleted in one sync, as the reference's burstReplicas */
const burstReplicas = 500;

/** What differs between ReplicaSets and ReplicationControllers. */
export interface ReplicaKind<T extends Obj> {
  name: string;
  component: string;
  kind: string;
  apiVersion: string;
  ref(ctx: ControllerContext): ResourceRef<T>;
  selector(o: T): LabelSelector | undefined;
  replicas(o: T): number;
  minReadySeconds(o: T): number;
  template(o: T): PodTemplateSpec | undefined;
  status(o: T): ReplicaSetStatus | undefined;
}

export function replicaController<T extends Obj>(k: ReplicaKind<T>): Controller {
  return {
    name: k.name,
    component: k.component,
    start(ctx) {
      const ref = k.ref(ctx);
      const owners = ctx.informers.informer(ref);
      const pods = ctx.informers.informer(ctx.refs.pods);
      pods.addIndex('owner', ownerUidIndex);
      const expectations = createExpectations();

      const sync = async (key: string): Promise<SyncResult | void> => {
        const owner = owners.get(key);
        if (!owner) { expectations.forget(key); return; }
        const [namespace] = splitKey(key);
        const needsSync = expectations.satisfied(key) && !owner.metadata.deletionTimestamp;
        const selector = k.selector(owner);
        const candidates = pods.list(namespace).filter(podActive);
        const active = await claimOwned(ctx, ctx.refs.pods, owner, k, selector, candidates, liveOwner(ctx, ref as ResourceRef<Obj>, owner));
        let failure: { reason: string; message: string } | undefined;
        if (needsSync) failure = await manageReplicas(ctx, k, owner, key, active, expectations);
        const result = await updateStatus(ctx, k, ref, owner, active, failure);
        // a refused create or delete is tried again with back-off, as the reference does: no event may come to retry it
        if (failure) throw new Error(`${failure.reason}: ${failure.message}`);
        return result;
      };
      const queue = startQueue(ctx, sync);

      const enqueueOwnerOf = (pod: Pod) => {
        const ref = controllerOf(pod);
        if (ref) {
          if (ref.kind !== k.kind) return;
          const owner = owners.get(`${pod.metadata.namespace}/${ref.name}`);
          if (owner?.metadata.uid === ref.uid) queue.add(keyOf(owner));
          return;
        }
        // an orphan: every owner that selects it may adopt it
        for (const owner of owners.list(pod.metadata.namespace)) if (selects(k.selector(owner), pod.metadata.labels)) queue.add(keyOf(owner));
      };
      const ownerKeyOf = (pod: Pod) => {
        const ref = controllerOf(pod);
        return ref?.kind === k.kind ? `${pod.metadata.namespace}/${ref.name}` : undefined;
      };
      owners.addHandler({
        added: (o) => queue.add(keyOf(o)),
        updated: (_, o) => queue.add(keyOf(o)),
        deleted: (o) => { expectations.forget(keyOf(o)); queue.add(keyOf(o)); },
      });
      pods.addHandler({
        added: (p) => {
          const ownerKey = ownerKeyOf(p);
          if (ownerKey) expectations.created(ownerKey);
          if (p.metadata.deletionTimestamp && ownerKey) expectations.deleted(ownerKey, keyOf(p));
          enqueueOwnerOf(p);
        },
        updated: (old, cur) => {
          if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
          const ownerKey = ownerKeyOf(cur);
          if (cur.metadata.deletionTimestamp && ownerKey) expectations.deleted(ownerKey, keyOf(cur));
          const oldRef = controllerOf(old);
          if (oldRef && oldRef.uid !== controllerOf(cur)?.uid) enqueueOwnerOf(old);
          enqueueOwnerOf(cur);
        },
        deleted: (p) => {
          const ownerKey = ownerKeyOf(p);
          if (ownerKey) expectations.deleted(ownerKey, keyOf(p));
          enqueueOwnerOf(p);
        },
      });
    },
  };
}

async function manageReplicas<T extends Obj>(ctx: ControllerContext, k: ReplicaKind<T>, owner: T, key: string, active: Pod[],
  expectations: ReturnType<typeof createExpectations>): Promise<{ reason: string; message: string } | undefined> {
  const diff = active.length - k.replicas(owner);
  const namespace = owner.metadata.namespace!;
  const pods = ctx.client.resource(ctx.refs.pods, namespace);
  if (diff < 0) {
    const template = k.template(owner);
    if (!template) return;
    const count = Math.min(-diff, burstReplicas);
    const ref = controllerRef(owner, k.kind, k.apiVersion);
    const { error } = await slowStartCreations(expectations, key, count, async () => {
      const pod = await pods.create(podFromTemplate(template, namespace, ref));
      ctx.recorder.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
    });
    if (error) {
      const message = serverMessage(error);
      ctx.recorder.event(owner, 'Warning', 'FailedCreate', `Error creating: ${message}`);
      return { reason: 'FailedCreate', message };
    }
  } else if (diff > 0) {
    const victims = [...active].sort(deletionRank).slice(0, Math.min(diff, burstReplicas));
    expectations.expectDeletions(key, victims.map(keyOf));
    let failure: { reason: string; message: string } | undefined;
    await Promise.all(victims.map(async (p) => {
      try {
        await pods.delete(p.metadata.name!, { preconditions: { uid: p.metadata.uid } });
        ctx.recorder.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      } catch (e) {
        expectations.deletionFailed(key, keyOf(p));
        if (isNotFound(e)) return;
        failure = { reason: 'FailedDelete', message: serverMessage(e) };
        ctx.recorder.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${serverMessage(e)}`);
      }
    }));
    return failure;
  }
  return undefined;
}

async function updateStatus<T extends Obj>(ctx: ControllerContext, k: ReplicaKind<T>, ref: ResourceRef<T>, owner: T, active: Pod[],
  failure: { reason: string; message: string } | undefined): Promise<SyncResult | void> {
  const minReady = k.minReadySeconds(owner);
  const templateLabels = k.template(owner)?.metadata?.labels ?? {};
  const now = Date.now();
  const prev = k.status(owner);
  let conditions: Condition[] | undefined = prev?.conditions;
  // as in the reference, the first failure's condition stays while failures go on: a message naming each refused pod
  // would rewrite the status, and the write would bring the owner straight back past its back-off
  const failing = conditions?.some((c) => c.type === 'ReplicaFailure');
  if (failure && !failing) conditions = setCondition(conditions, { type: 'ReplicaFailure', status: 'True', reason: failure.reason, message: failure.message }, nowTimestamp());
  else if (!failure && failing) conditions = removeCondition(conditions, 'ReplicaFailure');
  const status: ReplicaSetStatus = {
    replicas: active.length,
    fullyLabeledReplicas: active.filter((p) => Object.entries(templateLabels).every(([l, v]) => p.metadata.labels?.[l] === v)).length,
    readyReplicas: active.filter(podReady).length,
    availableReplicas: active.filter((p) => podAvailable(p, minReady, now)).length,
    observedGeneration: owner.metadata.generation,
    ...(conditions?.length ? { conditions } : {}),
  };
  // replicas is always written (no omitempty in the reference), the other counts only when above zero
  omitZeroCounts(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']);
  const same = prev && ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']
    .every((f) => (prev as any)[f] === (status as any)[f]) && JSON.stringify(prev.conditions ?? []) === JSON.stringify(status.conditions ?? []);
  if (!same) {
    await ctx.client.resource(ref, owner.metadata.namespace).status.update({ ...owner, status } as T).catch((e) => {
      // a newer version is on its way through the informer, and with it another sync
      if (!isConflict(e)) ignoreNotFound(e);
    });
  }
  // pods ready but not yet available count once minReadySeconds have passed
  const waits = active.map((p) => msUntilAvailable(p, minReady, now)).filter((w): w is number => w !== undefined);
  return waits.length ? { requeueAfterMs: Math.min(...waits) + 50 } : undefined;
}

export const replicaSetController = replicaController({
  name: 'replicaset', component: 'replicaset-controller', kind: 'ReplicaSet', apiVersion: 'apps/v1',
  ref: (ctx) => ctx.refs.replicaSets,
  selector: (rs) => rs.spec.selector,
  replicas: (rs) => rs.spec.replicas ?? 1,
  minReadySeconds: (rs) => rs.spec.minReadySeconds ?? 0,
  template: (rs) => rs.spec.template,
  status: (rs) => rs.status,
});
