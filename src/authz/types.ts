// Authorization: may this user do this. Each authorizer is one module; the union asks them in order.
import type { UserInfo } from '../server/context.js';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthzAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** what a user may do in a namespace, as SelfSubjectRulesReview reports it */
export interface RulesAnswer {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  authorize(a: AuthzAttributes): Promise<{ decision: Decision; reason?: string }> | { decision: Decision; reason?: string };
  /** the rules behind the decisions, for authorizers that can list them */
  rulesFor?(user: UserInfo, namespace: string): RulesAnswer;
}

const everything: RulesAnswer = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false,
};

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: 'Allow', reason: '' }), rulesFor: () => everything };
export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

export const privilegedGroup = 'system:masters';

/** the first decision other than NoOpinion wins; members of system:masters may do anything */
export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return {
    async authorize(a) {
      if (a.user.groups.includes(privilegedGroup)) return { decision: 'Allow', reason: '' };
      const reasons: string[] = [];
      for (const z of authorizers) {
        const d = await z.authorize(a);
        if (d.decision !== 'NoOpinion') return d;
        if (d.reason) reasons.push(d.reason);
      }
      return { decision: 'NoOpinion', reason: reasons.join(', ') };
    },
    rulesFor(user, namespace) {
      const answers = authorizers.map(z => z.rulesFor?.(user, namespace)
        ?? { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'an authorizer in use cannot list its rules' });
      const errors = answers.map(r => r.evaluationError).filter(Boolean);
      return {
        resourceRules: answers.flatMap(r => r.resourceRules),
        nonResourceRules: answers.flatMap(r => r.nonResourceRules),
        incomplete: answers.some(r => r.incomplete),
        ...(errors.length ? { evaluationError: errors.join(', ') } : {}),
      };
    },
  };
}
