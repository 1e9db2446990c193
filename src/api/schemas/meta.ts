// Object metadata and the other apimachinery definitions every kind shares.
import type { Schema } from '../schema.js';
import {
  arr, atomicList, atomicObj, bool, int64, mapList, metaRef, obj, oneOf, patch, setList, str, stringMap, time, anyJson,
} from './build.js';

export const ownerReference = atomicObj(metaRef('OwnerReference'), {
  apiVersion: str(),
  kind: str(),
  name: str(),
  uid: str(),
  controller: bool(),
  blockOwnerDeletion: bool(),
}, { required: ['apiVersion', 'kind', 'name', 'uid'] });

export const fieldsV1: Schema = { ...obj(metaRef('FieldsV1'), {}), 'x-kubernetes-preserve-unknown-fields': true };

export const managedFieldsEntry = obj(metaRef('ManagedFieldsEntry'), {
  manager: str(),
  operation: str(),
  apiVersion: str(),
  time,
  fieldsType: str(),
  fieldsV1,
  subresource: str(),
});

export const objectMeta = obj(metaRef('ObjectMeta'), {
  name: str(),
  generateName: str(),
  namespace: str(),
  selfLink: str(),
  uid: str(),
  resourceVersion: str(),
  generation: int64(),
  creationTimestamp: time,
  deletionTimestamp: time,
  deletionGracePeriodSeconds: int64(),
  labels: stringMap(),
  annotations: stringMap(),
  ownerReferences: mapList(ownerReference, ['uid'], patch('uid')),
  finalizers: setList(str(), patch(undefined)),
  managedFields: arr(managedFieldsEntry),
});

/** the options of a delete: a DELETE request's body, and an Eviction's */
export const deleteOptions = obj(metaRef('DeleteOptions'), {
  apiVersion: str(),
  kind: str(),
  gracePeriodSeconds: int64(),
  preconditions: obj(metaRef('Preconditions'), { uid: str(), resourceVersion: str() }),
  orphanDependents: bool(),
  propagationPolicy: str(),
  dryRun: arr(str()),
});

export const listMeta = obj(metaRef('ListMeta'), {
  selfLink: str(),
  resourceVersion: str(),
  continue: str(),
  remainingItemCount: int64(),
});

export const labelSelectorRequirement = obj(metaRef('LabelSelectorRequirement'), {
  key: str(),
  operator: str(),
  values: atomicList(str()),
}, { required: ['key', 'operator'] });

export const labelSelector = atomicObj(metaRef('LabelSelector'), {
  matchLabels: stringMap(),
  matchExpressions: atomicList(labelSelectorRequirement),
});

/** metav1.Condition, the standard condition shape */
export const condition = obj(metaRef('Condition'), {
  type: str(),
  status: oneOf('True', 'False', 'Unknown'),
  observedGeneration: int64(),
  lastTransitionTime: time,
  reason: str(),
  message: str(),
}, { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] });

/** conditions []metav1.Condition as most newer types declare them */
export const conditionList = mapList(condition, ['type'], patch('type'));

/** the whole object of a kind: apiVersion, kind, metadata and the kind's own fields */
export function kind(ref: string, properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return obj(ref, { apiVersion: str(), kind: str(), metadata: objectMeta, ...properties }, extra);
}

/** a kind whose fields are not catalogued yet: metadata is checked, everything else is kept */
export function permissive(ref: string): Schema {
  return { ...kind(ref, {}), 'x-kubernetes-preserve-unknown-fields': true };
}

/** free-form JSON value used by a few kinds (webhook payloads, CRD defaults) */
export const json = anyJson;
