// authorization/v1 LocalSubjectAccessReview: a SubjectAccessReview about one namespace, asked in that namespace.
import type { LocalSubjectAccessReview } from '../../../../api/types/authorization-v1.js';
import * as s from '../../../../api/schemas/authorization-v1.js';
import { badRequest } from '../../../../api/status.js';
import { createOnly, define, only } from '../../define.js';
import { review } from '../../review.js';
import { requireOneAttributeSet, subjectReview } from '../access.js';

export const definition = define<LocalSubjectAccessReview>({
  group: 'authorization', domainGroup: true, verbs: createOnly, resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview',
  namespaced: true, versions: only('v1', s.localSubjectAccessReview),
  rest: review<LocalSubjectAccessReview>(async (req, r) => {
    requireOneAttributeSet(req, r.spec);
    if (!r.spec.resourceAttributes) throw badRequest('localsubjectaccessreviews must have resourceAttributes');
    const ns = r.spec.resourceAttributes.namespace ?? '';
    if (ns !== req.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${req.namespace}`);
    return subjectReview(req, r);
  }),
});
