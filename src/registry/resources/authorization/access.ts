// What the access reviews share: the request a review describes as authorization attributes, and the decision.
import type { NonResourceAttributes, SubjectAccessReviewSpec, SubjectAccessReviewStatus } from '../../../api/types/authorization-v1.js';
import type { StatusCause } from '../../../api/meta.js';
import type { AuthzAttributes, UserInfo } from '../../../api/auth.js';
import { fieldCause, invalid } from '../../../api/status.js';
import type { RestRequest } from '../../types.js';
import { goStringList } from '../../validation/fields.js';

/** the attributes of the request a review describes (resource attributes or non-resource ones) */
export function attributes(user: UserInfo, spec: SubjectAccessReviewSpec, path: string): AuthzAttributes {
  const r = spec.resourceAttributes, n = spec.nonResourceAttributes;
  if (r) return {
    user, verb: r.verb ?? '', isResourceRequest: true, path, apiGroup: r.group ?? '', apiVersion: r.version ?? '',
    namespace: r.namespace ?? '', resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
  };
  return { user, verb: n?.verb ?? '', isResourceRequest: false, path: n?.path ?? '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

/** non-resource attributes as the reference prints the value in a message (Go's %#v of its internal type) */
export const goNonResource = (n: NonResourceAttributes) => `authorization.NonResourceAttributes{Path:${JSON.stringify(n.path ?? '')}, Verb:${JSON.stringify(n.verb ?? '')}}`;

/** Go's %#v of a time as metav1.Time prints it (its GoString), or of an absent one */
const goTime = (t: unknown) => {
  const d = typeof t === 'string' ? new Date(t) : undefined;
  if (!d || Number.isNaN(d.getTime())) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const month = d.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
  return `time.Date(${d.getUTCFullYear()}, time.${month}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, ${d.getUTCMilliseconds() * 1e6}, time.UTC)`;
};
const goMap = (m: unknown) => {
  if (!m || typeof m !== 'object') return 'map[string]string(nil)';
  const entries = Object.entries(m as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[string]string{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(String(v ?? ''))}`).join(', ')}}`;
};
const goOwnerRef = (r: Record<string, unknown>) => `v1.OwnerReference{APIVersion:${JSON.stringify(r.apiVersion ?? '')}, Kind:${JSON.stringify(r.kind ?? '')}, Name:${
  JSON.stringify(r.name ?? '')}, UID:${JSON.stringify(r.uid ?? '')}, Controller:(*bool)(${r.controller === undefined || r.controller === null ? 'nil' : '...'}), BlockOwnerDeletion:(*bool)(${
  r.blockOwnerDeletion === undefined || r.blockOwnerDeletion === null ? 'nil' : '...'})}`;
const goStr = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : '');
const emptyValue = (v: unknown) => v === undefined || v === null || v === '' || v === 0
  || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** a review's metadata as the reference prints it in a message (Go's %#v of metav1.ObjectMeta; pointers it shows as addresses shown as `...`) */
function goObjectMeta(m: Record<string, unknown>): string {
  const list = (v: unknown) => (Array.isArray(v) ? v : undefined);
  const refs = list(m.ownerReferences), managed = list(m.managedFields);
  return `v1.ObjectMeta{Name:${goStr(m.name)}, GenerateName:${goStr(m.generateName)}, Namespace:${goStr(m.namespace)}, SelfLink:${goStr(m.selfLink)}, UID:${
    goStr(m.uid)}, ResourceVersion:${goStr(m.resourceVersion)}, Generation:${typeof m.generation === 'number' ? m.generation : 0}, CreationTimestamp:${
    goTime(m.creationTimestamp)}, DeletionTimestamp:${m.deletionTimestamp ? goTime(m.deletionTimestamp) : '<nil>'}, DeletionGracePeriodSeconds:(*int64)(${
    m.deletionGracePeriodSeconds === undefined || m.deletionGracePeriodSeconds === null ? 'nil' : '...'}), Labels:${goMap(m.labels)}, Annotations:${goMap(m.annotations)}, OwnerReferences:${
    refs ? `[]v1.OwnerReference{${refs.map((r) => goOwnerRef((r ?? {}) as Record<string, unknown>)).join(', ')}}` : '[]v1.OwnerReference(nil)'}, Finalizers:${
    goStringList(list(m.finalizers)?.map((f) => String(f ?? '')))}, ManagedFields:${managed ? `[]v1.ManagedFieldsEntry{...}` : '[]v1.ManagedFieldsEntry(nil)'}}`;
}

/**
 * A review is answered, not stored: its metadata must be empty (managedFields aside; a local review's namespace
 * aside), as the reference validates it.
 */
export function emptyMetadataCauses(metadata: unknown, allowNamespace: boolean): StatusCause[] {
  const m = (metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? metadata : {}) as Record<string, unknown>;
  const set = Object.entries(m).filter(([k, v]) => k !== 'managedFields' && !(allowNamespace && k === 'namespace') && !emptyValue(v));
  if (!set.length) return [];
  return [fieldCause('FieldValueInvalid', 'metadata', `Invalid value: ${goObjectMeta(m)}: must be empty${allowNamespace ? ' except for namespace' : ''}`)];
}

/** a review names either resource attributes or non-resource ones */
export function attributeSetCauses(spec: SubjectAccessReviewSpec): StatusCause[] {
  const has = !!spec.resourceAttributes, hasNon = !!spec.nonResourceAttributes;
  if (!has && !hasNon) return [fieldCause('FieldValueRequired', 'spec.resourceAttributes', 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  if (has && hasNon) return [fieldCause('FieldValueInvalid', 'spec.nonResourceAttributes',
    `Invalid value: ${goNonResource(spec.nonResourceAttributes!)}: cannot be specified in combination with resourceAttributes`)];
  return [];
}

/** what a review about someone else's access must say: the attributes, and a user or groups */
export function subjectSpecCauses(spec: SubjectAccessReviewSpec): StatusCause[] {
  return [...attributeSetCauses(spec),
    ...(!spec.user && !(spec.groups?.length) ? [fieldCause('FieldValueInvalid', 'spec.user', 'Invalid value: "": at least one of user or group must be specified')] : [])];
}

export function refuseInvalid(req: RestRequest, causes: StatusCause[]) {
  if (causes.length) throw invalid(req.info.group, req.info.kind, '', causes);
}

/** the authorizer's decision on the attributes; an authorizer that fails gives an evaluation error, not a refusal */
export async function decide(req: RestRequest, a: AuthzAttributes): Promise<SubjectAccessReviewStatus> {
  try {
    const d = await req.services.authorizer.authorize(a);
    return { allowed: d.decision === 'Allow', ...(d.decision === 'Deny' ? { denied: true } : {}), ...(d.reason ? { reason: d.reason } : {}),
      ...(d.error ? { evaluationError: d.error } : {}) };
  } catch (e) {
    return { allowed: false, evaluationError: (e as Error).message };
  }
}

/** may the user of the review's spec do what it describes */
export async function subjectReview(req: RestRequest, review: { spec: SubjectAccessReviewSpec; metadata?: unknown }): Promise<SubjectAccessReviewStatus> {
  const spec = review.spec;
  refuseInvalid(req, [...subjectSpecCauses(spec), ...emptyMetadataCauses(review.metadata, !!req.namespace)]);
  const user: UserInfo = { username: spec.user ?? '', uid: spec.uid, groups: spec.groups ?? [], extra: spec.extra };
  return decide(req, attributes(user, spec, req.path));
}
