// authentication SelfSubjectReview: who am I; v1beta1 in 1.27 (enabled by default) and v1alpha1 (alpha: served only
// when --runtime-config enables it; kubectl 1.27 falls back to it when v1beta1 is not served).
import type { SelfSubjectReview } from '../../../../api/types/authentication-v1beta1.js';
import * as s from '../../../../api/schemas/authentication.js';
import { createOnly, define } from '../../define.js';
import { review } from '../../review.js';
import { userInfo } from '../tokenreviews/definition.js';

export const definition = define<SelfSubjectReview>({
  group: 'authentication', domainGroup: true, namespaced: false, verbs: createOnly, resource: 'selfsubjectreviews', kind: 'SelfSubjectReview',
  versions: [
    { name: 'v1beta1', served: true, storage: true, schema: s.selfSubjectReview },
    { name: 'v1alpha1', served: true, storage: false, schema: s.selfSubjectReview },
  ],
  rest: review<SelfSubjectReview>(async req => ({ userInfo: userInfo(req.user!) }), { hasSpec: false }),
});
