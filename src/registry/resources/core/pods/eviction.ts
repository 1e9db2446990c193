// Eviction: a delete of the pod, unless a disruption budget that selects it allows no disruption now. A pod that is not
// running (pending, finished) or already going needs no budget; one that runs but is not ready needs none when its
// budget says AlwaysAllow, or (IfHealthyBudget, the default) while the budget has the healthy pods it wants; such a
// delete, and that of a pending pod, holds only while the pod is as it was read (a resourceVersion precondition). A
// pending pod that changed meanwhile is read again and its eviction tried again, as the reference does.
import { setTimeout as sleep } from 'node:timers/promises';
import { nowTimestamp, type ApiObject, type Stored, type Status } from '../../../../api/meta.js';
import { deepCopy } from '../../../../util/objects.js';
import { noAdmission } from '../../../store.js';
import type { Pod } from '../../../../api/types/core-v1.js';
import type { Eviction, PodDisruptionBudget } from '../../../../api/types/policy-v1.js';
import { badRequest, conflict, forbidden, statusBody, successStatus, tooManyRequests, ApiError } from '../../../../api/status.js';
import { parseDryRun } from '../../../../api/request.js';
import { labelSelectorFromObject, matchLabels } from '../../../../api/selectors.js';
import type { RestRequest } from '../../../types.js';
import { podReady } from '../../../../api/pods.js';

/** a pending pod's eviction meeting a changed pod: how many tries in all, and the pause between them (the reference's) */
const evictionTries = 20;
const evictionRetryMs = 500;

/** evictions taken from a budget that its controller has not yet seen the pods of: past this many, no more */
const maxDisruptedPods = 2000;

/** the refusal of an eviction that the budget does not allow now, and why */
function budgetRefusal(why: string, retryAfterSeconds = 0): ApiError {
  const e = tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', retryAfterSeconds);
  e.status.details = { causes: [{ reason: 'DisruptionBudget', message: why }] };
  return e;
}
const budgetForbids = (pdb: Stored<PodDisruptionBudget>, why: string) => forbidden(`poddisruptionbudget.policy "${pdb.metadata.name}" is forbidden: ${why}`,
  { name: pdb.metadata.name, group: 'policy', kind: 'poddisruptionbudget' });

/** the budget's status with one disruption taken, or why not */
function takeDisruption(pdb: Stored<PodDisruptionBudget>, podName: string): void {
  const status = pdb.status;
  // a budget whose status is older than its spec is not trusted
  if (!status || (status.observedGeneration ?? -1) < (pdb.metadata.generation ?? 0)) throw budgetRefusal(`The disruption budget ${pdb.metadata.name} is still being processed by the server.`, 10);
  if ((status.disruptionsAllowed ?? 0) < 0) throw budgetForbids(pdb, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > maxDisruptedPods) throw budgetForbids(pdb, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (!status.disruptionsAllowed) throw budgetRefusal(`The disruption budget ${pdb.metadata.name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`);
  status.disruptionsAllowed -= 1;
  // the eviction that takes the last disruption says so at once, as the reference's does, not at the controller's next sync
  if (status.disruptionsAllowed === 0) status.conditions = noDisruptionAllowed(status.conditions, status.observedGeneration);
  status.disruptedPods = { ...(status.disruptedPods ?? {}), [podName]: nowTimestamp() };
}

type BudgetCondition = NonNullable<NonNullable<PodDisruptionBudget['status']>['conditions']>[number];

/** the DisruptionAllowed condition set to False (InsufficientPods) in place, its transition time kept if it was False already */
function noDisruptionAllowed(conditions: BudgetCondition[] | undefined, observedGeneration: number | undefined): BudgetCondition[] {
  const prev = conditions?.find(c => c.type === 'DisruptionAllowed');
  const next: BudgetCondition = { type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '',
    ...(observedGeneration !== undefined ? { observedGeneration } : {}), lastTransitionTime: prev?.status === 'False' ? prev.lastTransitionTime : nowTimestamp() };
  return prev ? conditions!.map(c => (c === prev ? next : c)) : [...(conditions ?? []), next];
}


/** whether the unready pod may go without taking a disruption from its budget */
const unreadyMayGo = (pdb: Stored<PodDisruptionBudget>) => pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow'
  || ((pdb.status?.currentHealthy ?? 0) >= (pdb.status?.desiredHealthy ?? 0) && (pdb.status?.desiredHealthy ?? 0) > 0);

export async function evict(req: RestRequest, body: unknown): Promise<Status> {
  const { namespace, name } = req;
  // the Eviction goes through admission as a create of pods/eviction, as the reference's does; the delete it makes does not
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', ...(body ?? {}) } as ApiObject & Partial<Eviction>;
  eviction.metadata = { ...eviction.metadata, namespace: eviction.metadata?.namespace || namespace };
  const admission = req.admission();
  await admission.mutate('CREATE', eviction, undefined);
  // the body names the pod, as the reference requires: a body without the name (`{}`, `null`) evicts nothing
  if ((eviction.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Eviction object');
  await admission.validate('CREATE', deepCopy(eviction), undefined);
  const options = eviction.deleteOptions ?? {};
  const dryRun = req.dryRun || parseDryRun(Array.isArray(options.dryRun) ? options.dryRun : []);
  const remove = (preconditions: Preconditions | undefined) => deletePod(req, preconditions, options.gracePeriodSeconds, dryRun);
  // a pod that is not running (pending, finished) or is already going needs no budget; a pending one goes only as it
  // was read, lest it start meanwhile, and a conflict is tried again on the pod read afresh unless the caller named the
  // version it deletes (then the caller's precondition decides)
  const callerVersion = options.preconditions?.resourceVersion !== undefined;
  let pod: Stored<Pod>;
  for (let attempt = 1; ; attempt++) {
    pod = await req.store.get(namespace, name) as Stored<Pod>;
    if (!needsNoBudget(pod)) break;
    const pending = !pod.metadata.deletionTimestamp && pod.status?.phase === 'Pending';
    try {
      await remove(pending && !callerVersion ? { ...options.preconditions, resourceVersion: pod.metadata.resourceVersion } : options.preconditions);
      return { ...successStatus(), code: 201 };
    } catch (e) {
      if (callerVersion || !(e instanceof ApiError && e.code === 409) || attempt >= evictionTries) throw e;
      await sleep(evictionRetryMs);
    }
  }
  let preconditions = options.preconditions;
  const budgets = (await req.resource('policy', 'poddisruptionbudgets')?.list(namespace) ?? []) as Stored<PodDisruptionBudget>[];
  const matching = budgets.filter(pdb => {
    const sel = pdb.spec?.selector;
    return sel && matchLabels(labelSelectorFromObject(sel), pod.metadata.labels);
  });
  if (matching.length > 1) throw new ApiError(statusBody(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.'));
  const pdb = matching[0];
  const unreadyGoes = !!pdb && !podReady(pod) && unreadyMayGo(pdb);
  if (unreadyGoes) {
    preconditions = { ...preconditions, resourceVersion: pod.metadata.resourceVersion };
  } else if (pdb) {
    // one disruption is taken from the budget by compare-and-swap first, so concurrent evictions never exceed it
    await req.resource('policy', 'poddisruptionbudgets', 'status')!.store.guaranteedUpdate(namespace, pdb.metadata.name!, 'status', cur => {
      if (!cur) throw budgetRefusal(`The disruption budget ${pdb.metadata.name} is gone.`);
      takeDisruption(cur as Stored<PodDisruptionBudget>, name);
      return cur;
    }, noAdmission, { dryRun });
  }
  await remove(preconditions).catch((e: unknown) => {
    // the unready pod changed meanwhile (it may be ready now): as the reference, the client is told to come back
    if (unreadyGoes && !callerVersion && e instanceof ApiError && e.code === 409) throw budgetRefusal(`The disruption budget ${pdb!.metadata.name} is still being processed by the server.`, 10);
    throw e;
  });
  return { ...successStatus(), code: 201 };
}

/** a pod that is not running (pending, finished) or is already going */
const needsNoBudget = (pod: Stored<Pod>) => !!pod.metadata.deletionTimestamp || ['Pending', 'Succeeded', 'Failed'].includes(pod.status?.phase ?? '');

type Preconditions = NonNullable<NonNullable<Eviction['deleteOptions']>['preconditions']>;

/** the pod marked as a disruption's target, then deleted, both while the preconditions hold */
async function deletePod(req: RestRequest, preconditions: Preconditions | undefined, gracePeriodSeconds: number | undefined, dryRun: boolean) {
  const { namespace, name } = req;
  if (!dryRun) preconditions = await markDisruptionTarget(req, namespace, name, preconditions);
  await req.store.delete(namespace, name, { gracePeriodSeconds, preconditions, dryRun }, noAdmission);
}

/**
 * The pod is marked as the target of a disruption (a DisruptionTarget condition through its status) before it goes,
 * so that its controllers can tell an eviction from a failure (a Job's pod failure policy). The delete's preconditions
 * are checked here against the latest pod, and a resourceVersion one moves to the version this write made.
 */
async function markDisruptionTarget(req: RestRequest, namespace: string, name: string, preconditions: Preconditions | undefined): Promise<Preconditions | undefined> {
  const status = req.resource('', 'pods', 'status');
  if (!status) return preconditions;
  const { obj } = await status.store.guaranteedUpdate(namespace, name, 'status', cur => {
    const pod = cur as Stored<Pod>;
    if (preconditions?.uid && preconditions.uid !== pod.metadata.uid) throw conflict('', 'Pod', name,
      `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${pod.metadata.uid}). The object might have been deleted and then recreated`);
    if (preconditions?.resourceVersion && preconditions.resourceVersion !== pod.metadata.resourceVersion) throw conflict('', 'Pod', name,
      `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${pod.metadata.resourceVersion}). The object might have been modified`);
    const conditions = [...(pod.status?.conditions ?? [])];
    const i = conditions.findIndex(c => c.type === 'DisruptionTarget');
    const prev = i >= 0 ? conditions[i] : undefined;
    const next = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting',
      lastProbeTime: prev?.lastProbeTime ?? null, lastTransitionTime: prev?.status === 'True' ? prev.lastTransitionTime : nowTimestamp() };
    if (i >= 0) conditions[i] = next; else conditions.push(next);
    pod.status = { ...pod.status, conditions };
    return cur!;
  }, noAdmission, { dryRun: false });
  return preconditions?.resourceVersion ? { ...preconditions, resourceVersion: obj.metadata.resourceVersion } : preconditions;
}
