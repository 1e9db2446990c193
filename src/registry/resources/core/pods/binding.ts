// Binding: a pod is assigned to a node, once, through pods/<name>/binding or the bindings resource (which names the
// pod in the body).
import { nowTimestamp, type ApiObject, type Stored, type Status } from '../../../../api/meta.js';
import type { AdmissionHooks } from '../../../../api/admission.js';
import { noAdmission } from '../../../store.js';
import { deepCopy } from '../../../../util/objects.js';
import type { Binding, Pod } from '../../../../api/types/core-v1.js';
import { badRequest, conflict, invalid, successStatus } from '../../../../api/status.js';
import type { FieldPath, ResourceAccess } from '../../../types.js';

/** the fields a binding writes */
export const bindingChanges: FieldPath[] = [['spec', 'nodeName'], ['status', 'conditions']];

/**
 * Binds the pod `name` (which the body must name too; when empty, the one the body names) to the body's target node. The Binding goes through
 * `admission` (the request's: a create of pods/binding or of bindings), as the reference's does; the pod's update does not.
 */
export async function bind(pods: ResourceAccess, namespace: string, name: string, body: unknown, dryRun: boolean, admission: AdmissionHooks): Promise<Status> {
  const binding = { apiVersion: 'v1', kind: 'Binding', ...(body ?? {}) } as ApiObject & Partial<Binding>;
  binding.metadata = { ...binding.metadata, namespace: binding.metadata?.namespace || namespace };
  await admission.mutate('CREATE', binding, undefined);
  // pods/<name>/binding: the body names the same pod, as the reference requires (a body without a name binds nothing)
  if (name && (binding.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Binding object');
  const podName = name || binding.metadata?.name;
  if (!podName) throw badRequest('the binding names no pod: set metadata.name');
  const node = binding.target?.name;
  if (!node) throw invalid('', 'Binding', podName, [{ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' }]);
  if (binding.target?.kind && binding.target.kind !== 'Node')
    throw invalid('', 'Binding', podName, [{ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: "${binding.target.kind}": supported values: "Node"` }]);
  await admission.validate('CREATE', deepCopy(binding), undefined);
  const { group, resource } = pods.info;
  await pods.store.guaranteedUpdate(namespace, podName, 'binding', current => {
    if (!current) return { metadata: { name: podName } };   // the store answers 404
    const pod = current as Stored<Pod>;
    const spec = pod.spec ??= { containers: [] };
    if (pod.metadata.deletionTimestamp) throw conflict(group, resource, podName, 'pod is being deleted, cannot be assigned to a host');
    if (spec.nodeName) throw conflict(group, resource, podName, `pod ${podName} is already assigned to node "${spec.nodeName}"`);
    spec.nodeName = node;
    const status = pod.status ??= {};
    const conditions = (status.conditions ?? []).filter(c => c.type !== 'PodScheduled');
    status.conditions = [...conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: nowTimestamp() }];
    return current;
  }, noAdmission, { dryRun });
  return { ...successStatus(), code: 201 };
}
