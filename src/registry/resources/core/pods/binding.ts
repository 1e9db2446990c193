// Binding: a pod is assigned to a node, once, through pods/<name>/binding or the bindings resource (which names the
// pod in the body).
import { nowTimestamp, type Stored, type Status } from '../../../../api/meta.js';
import type { Binding, Pod } from '../../../../api/types/core-v1.js';
import { badRequest, conflict, invalid, successStatus } from '../../../../api/status.js';
import type { FieldPath, ResourceAccess } from '../../../types.js';

/** the fields a binding writes */
export const bindingChanges: FieldPath[] = [['spec', 'nodeName'], ['status', 'conditions']];

/** binds the pod `name` (or, when empty, the one the body names) to the body's target node */
export async function bind(pods: ResourceAccess, namespace: string, name: string, body: unknown, dryRun: boolean): Promise<Status> {
  const binding = (body ?? {}) as Partial<Binding>;
  const podName = name || binding.metadata?.name;
  if (!podName) throw badRequest('the binding names no pod: set metadata.name');
  const node = binding.target?.name;
  if (!node) throw invalid('', 'Binding', podName, [{ reason: 'FieldValueRequired', field: 'target.name', message: 'Required value' }]);
  if (binding.target?.kind && binding.target.kind !== 'Node')
    throw invalid('', 'Binding', podName, [{ reason: 'FieldValueNotSupported', field: 'target.kind', message: `Unsupported value: "${binding.target.kind}": supported values: "Node"` }]);
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
  }, pods.admission({ name: podName, dryRun }), { dryRun });
  return { ...successStatus(), code: 201 };
}
