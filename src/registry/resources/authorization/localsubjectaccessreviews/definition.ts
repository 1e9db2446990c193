// authorization/v1 LocalSubjectAccessReview: a SubjectAccessReview about one namespace, asked in that namespace.
import type { LocalSubjectAccessReview } from '../../../../api/types/authorization-v1.js';
import * as s from '../../../../api/schemas/authorization-v1.js';
import { fieldCause } from '../../../../api/status.js';
import { createOnly, define, only } from '../../define.js';
import { review } from '../../review.js';
import { emptyMetadataCauses, goNonResource, refuseInvalid, subjectReview, subjectSpecCauses } from '../access.js';

export const definition = define<LocalSubjectAccessReview>({
  group: 'authorization', domainGroup: true, verbs: createOnly, resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview',
  namespaced: true, versions: only('v1', s.localSubjectAccessReview),
  // as the reference validates it: the review is about the namespace it is asked in, and about resources only
  rest: review<LocalSubjectAccessReview>(async (req, r) => {
    const { resourceAttributes: ra, nonResourceAttributes: nra } = r.spec;
    refuseInvalid(req, [
      ...subjectSpecCauses(r.spec),
      // (the namespace of the URL fills the object's, as on every create)
      ...emptyMetadataCauses({ ...r.metadata, namespace: req.namespace }, true),
      ...(ra && (ra.namespace ?? '') !== req.namespace
        ? [fieldCause('FieldValueInvalid', 'spec.resourceAttributes.namespace', `Invalid value: ${JSON.stringify(ra.namespace ?? '')}: must match metadata.namespace`)] : []),
      ...(nra ? [fieldCause('FieldValueInvalid', 'spec.nonResourceAttributes', `Invalid value: ${goNonResource(nra)}: disallowed on this kind of request`)] : []),
    ]);
    return subjectReview(req, r);
  }),
});
