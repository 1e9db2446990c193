// authorization/v1 SelfSubjectRulesReview: what may I do in a namespace, as far as the authorizers can tell.
import type { SelfSubjectRulesReview } from '../../../../api/types/authorization-v1.js';
import * as s from '../../../../api/schemas/authorization-v1.js';
import { badRequest } from '../../../../api/status.js';
import { createOnly, define, only } from '../../define.js';
import { review } from '../../review.js';

export const definition = define<SelfSubjectRulesReview>({
  group: 'authorization', domainGroup: true, verbs: createOnly, resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview',
  namespaced: false, versions: only('v1', s.selfSubjectRulesReview),
  rest: review<SelfSubjectRulesReview>(async (req, r) => {
    // rules are asked of one namespace: the reference refuses a review naming none
    if (!r.spec.namespace) throw badRequest('no namespace on request');
    return req.services.authorizer.rulesFor?.(req.user!, r.spec.namespace)
      ?? { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'the authorizers in use cannot list their rules' };
  }),
});
