// Eviction: a delete of the pod, unless a disruption budget that selects it allows no disruption now.
import { nowTimestamp, type Stored, type Status } from '../../../../api/meta.js';
import { noAdmission } from '../../../store.js';
import type { Pod } from '../../../../api/types/core-v1.js';
import type { Eviction, PodDisruptionBudget } from '../../../../api/types/policy-v1.js';
import { badRequest, statusBody, successStatus, tooManyRequests, ApiError } from '../../../../api/status.js';
import { parseDryRun } from '../../../../api/request.js';
import { labelSelectorFromObject, matchLabels } from '../../../../api/selectors.js';
import type { RestRequest } from '../../../types.js';

/** the refusal of an eviction that the budget does not allow now */
function budgetRefusal(pdb: Stored<PodDisruptionBudget>): ApiError {
  const e = tooManyRequests('Cannot evict pod as it would violate the pod\'s disruption budget.', 0);
  e.status.details = { causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb.metadata.name} needs ${pdb.status?.desiredHealthy ?? 0} healthy pods and has ${pdb.status?.currentHealthy ?? 0} currently` }] };
  return e;
}

export async function evict(req: RestRequest, body: unknown): Promise<Status> {
  const eviction = (body ?? {}) as Partial<Eviction>;
  const { namespace, name } = req;
  if (eviction.metadata?.name && eviction.metadata.name !== name) throw badRequest('name in URL does not match name in Eviction object');
  const pod = await req.store.get(namespace, name) as Stored<Pod>;
  const options = eviction.deleteOptions ?? {};
  const dryRun = req.dryRun || parseDryRun(Array.isArray(options.dryRun) ? options.dryRun : []);
  // a pod that has finished or is already going needs no budget
  const phase = pod.status?.phase;
  if (!pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') {
    const budgets = (await req.resource('policy', 'poddisruptionbudgets')?.list(namespace) ?? []) as Stored<PodDisruptionBudget>[];
    const matching = budgets.filter(pdb => {
      const sel = pdb.spec?.selector;
      return sel && matchLabels(labelSelectorFromObject(sel), pod.metadata.labels);
    });
    if (matching.length > 1) throw new ApiError(statusBody(500, 'InternalError', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.'));
    const pdb = matching[0];
    if (pdb) {
      // a budget whose status is older than its spec is not trusted, as in the reference
      if ((pdb.status?.observedGeneration ?? -1) < (pdb.metadata.generation ?? 0)) throw budgetRefusal(pdb);
      // one disruption is taken from the budget by compare-and-swap first, so concurrent evictions never exceed it
      await req.resource('policy', 'poddisruptionbudgets', 'status')!.store.guaranteedUpdate(namespace, pdb.metadata.name!, 'status', cur => {
        const current = cur as Stored<PodDisruptionBudget> | undefined;
        const status = current?.status;
        if (!current || !status || !((status.disruptionsAllowed ?? 0) > 0)) throw budgetRefusal(current ?? pdb);
        status.disruptionsAllowed -= 1;
        status.disruptedPods = { ...(status.disruptedPods ?? {}), [name]: nowTimestamp() };
        return cur!;
      }, noAdmission, { dryRun });
    }
  }
  await req.store.delete(namespace, name, {
    gracePeriodSeconds: options.gracePeriodSeconds, preconditions: options.preconditions, dryRun,
  }, req.admission({ dryRun }));
  return { ...successStatus(), code: 201 };
}
