// authentication/v1beta1 SelfSubjectReview: who am I (beta in 1.27 and enabled by default).
import type { SelfSubjectReview } from '../../../../api/types/authentication-v1beta1.js';
import * as s from '../../../../api/schemas/authentication.js';
import { createOnly, define } from '../../define.js';
import { review } from '../../review.js';
import { userInfo } from '../tokenreviews/definition.js';

export const definition = define<SelfSubjectReview>({
  group: 'authentication', domainGroup: true, namespaced: false, verbs: createOnly, resource: 'selfsubjectreviews', kind: 'SelfSubjectReview',
  versions: [{ name: 'v1beta1', served: true, storage: true, schema: s.selfSubjectReview }],
  rest: review<SelfSubjectReview>(async req => ({ userInfo: userInfo(req.user!) })),
});
