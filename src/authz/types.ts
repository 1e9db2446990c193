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

export interface Authorizer {
  authorize(a: AuthzAttributes): Promise<{ decision: Decision; reason?: string }> | { decision: Decision; reason?: string };
}

export const alwaysAllow: Authorizer = { authorize: () => ({ decision: 'Allow', reason: '' }) };
export const alwaysDeny: Authorizer = { authorize: () => ({ decision: 'Deny', reason: 'Everything is forbidden.' }) };

/** the first decision other than NoOpinion wins; members of system:masters may do anything */
export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return {
    async authorize(a) {
      if (a.user.groups.includes('system:masters')) return { decision: 'Allow', reason: '' };
      for (const z of authorizers) {
        const d = await z.authorize(a);
        if (d.decision !== 'NoOpinion') return d;
      }
      return { decision: 'NoOpinion', reason: 'no authorizer has an opinion' };
    },
  };
}
