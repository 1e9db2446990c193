// Authorization: may this user do this. Each authorizer is one module; the union asks them in order.
import { privilegedGroup, type Authorizer, type RulesAnswer } from '../api/auth.js';

const everything: RulesAnswer = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false,
};

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: 'Allow', reason: '' }), rulesFor: () => everything };
export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/** several errors as the reference's aggregate prints them: one alone as itself, more deduplicated in brackets */
export function aggregateText(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** the first decision other than NoOpinion wins; members of system:masters may do anything */
export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return {
    async authorize(a) {
      if (a.user.groups.includes(privilegedGroup)) return { decision: 'Allow', reason: '' };
      const reasons: string[] = [], errors: string[] = [];
      for (const z of authorizers) {
        const d = await z.authorize(a);
        if (d.decision !== 'NoOpinion') return d;
        if (d.reason) reasons.push(d.reason);
        if (d.error) errors.push(d.error);
      }
      return { decision: 'NoOpinion', reason: reasons.join('\n'), ...(errors.length ? { error: errors.join(', ') } : {}) };
    },
    rulesFor(user, namespace) {
      const answers = authorizers.map(z => z.rulesFor?.(user, namespace)
        ?? { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'an authorizer in use cannot list its rules' });
      const errors = answers.map(r => r.evaluationError).filter(Boolean);
      return {
        resourceRules: answers.flatMap(r => r.resourceRules),
        nonResourceRules: answers.flatMap(r => r.nonResourceRules),
        incomplete: answers.some(r => r.incomplete),
        ...(errors.length ? { evaluationError: aggregateText(errors as string[]) } : {}),
      };
    },
  };
}
