// authentication/v1 TokenReview: is this token good, and whose is it.
import type { TokenReview, TokenReviewStatus, UserInfo as UserInfoV1 } from '../../../../api/types/authentication-v1.js';
import * as s from '../../../../api/schemas/authentication.js';
import { intersect, type UserInfo } from '../../../../api/auth.js';
import { invalid, ApiError } from '../../../../api/status.js';
import { createOnly, define } from '../../define.js';
import { review } from '../../review.js';

/** a user as reviews report it: uid and extra only when set */
export const userInfo = (u: UserInfo): UserInfoV1 =>
  ({ username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}) });

export const definition = define<TokenReview>({
  group: 'authentication', domainGroup: true, namespaced: false, verbs: createOnly, resource: 'tokenreviews', kind: 'TokenReview',
  versions: [{ name: 'v1', served: true, storage: true, schema: s.tokenReview }],
  rest: review<TokenReview>(async (req, r): Promise<TokenReviewStatus> => {
    const token: unknown = r.spec.token;
    if (!token) throw invalid(req.info.group, req.info.kind, '', [{ reason: 'FieldValueRequired', field: 'spec.token', message: 'Required value' }]);
    const requested = Array.isArray(r.spec.audiences) ? r.spec.audiences : [];
    const apiAudiences = req.services.apiAudiences ?? [];
    const refuse = (error: string): TokenReviewStatus => ({ authenticated: false, user: {}, error });
    if (typeof token !== 'string' || /[\r\n]/.test(token)) return refuse('invalid bearer token');
    try {
      const user = await req.services.authenticate({ headers: {}, token, ...(requested.length ? { audiences: requested } : {}) });
      if (user.username === 'system:anonymous') return refuse('invalid bearer token');
      // tokens that carry no audiences of their own are good for the API audiences only
      const audiences = user.audiences ?? (requested.length ? intersect(requested, apiAudiences) : apiAudiences);
      if (requested.length && !audiences.length) return refuse('token audiences are invalid for the target audiences');
      return { authenticated: true, user: userInfo(user), audiences };
    } catch (e) {
      return refuse(e instanceof ApiError ? (e.message === 'Unauthorized' ? 'invalid bearer token' : e.message.replace(/^Unauthorized: /, '')) : (e as Error).message);
    }
  }),
});
