// What the access reviews share: the request a review describes as authorization attributes, and the decision.
import type { NonResourceAttributes, SubjectAccessReviewSpec, SubjectAccessReviewStatus } from '../../../api/types/authorization-v1.js';
import type { StatusCause } from '../../../api/meta.js';
import type { AuthzAttributes, UserInfo } from '../../../api/auth.js';
import { fieldCause, invalid } from '../../../api/status.js';
import type { RestRequest } from '../../types.js';

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

export function requireOneAttributeSet(req: RestRequest, spec: SubjectAccessReviewSpec) {
  refuseInvalid(req, attributeSetCauses(spec));
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
export async function subjectReview(req: RestRequest, review: { spec: SubjectAccessReviewSpec }): Promise<SubjectAccessReviewStatus> {
  const spec = review.spec;
  refuseInvalid(req, subjectSpecCauses(spec));
  const user: UserInfo = { username: spec.user ?? '', uid: spec.uid, groups: spec.groups ?? [], extra: spec.extra };
  return decide(req, attributes(user, spec, req.path));
}
