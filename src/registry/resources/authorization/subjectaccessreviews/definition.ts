// authorization/v1 SubjectAccessReview: may this user or group do this.
import type { SubjectAccessReview } from '../../../../api/types/authorization-v1.js';
import * as s from '../../../../api/schemas/authorization-v1.js';
import { createOnly, define, only } from '../../define.js';
import { review } from '../../review.js';
import { subjectReview } from '../access.js';

export const definition = define<SubjectAccessReview>({
  group: 'authorization', domainGroup: true, verbs: createOnly, resource: 'subjectaccessreviews', kind: 'SubjectAccessReview',
  namespaced: false, versions: only('v1', s.subjectAccessReview),
  rest: review(subjectReview),
});
