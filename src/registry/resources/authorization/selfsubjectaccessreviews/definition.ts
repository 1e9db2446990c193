// authorization/v1 SelfSubjectAccessReview: may I do this.
import type { SelfSubjectAccessReview } from '../../../../api/types/authorization-v1.js';
import * as s from '../../../../api/schemas/authorization-v1.js';
import { createOnly, define, only } from '../../define.js';
import { review } from '../../review.js';
import { attributeSetCauses, attributes, decide, emptyMetadataCauses, refuseInvalid } from '../access.js';

export const definition = define<SelfSubjectAccessReview>({
  group: 'authorization', domainGroup: true, verbs: createOnly, resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview',
  namespaced: false, versions: only('v1', s.selfSubjectAccessReview),
  rest: review<SelfSubjectAccessReview>(async (req, r) => {
    refuseInvalid(req, [...attributeSetCauses(r.spec), ...emptyMetadataCauses(r.metadata, false)]);
    return decide(req, attributes(req.user!, r.spec, req.path));
  }),
});
