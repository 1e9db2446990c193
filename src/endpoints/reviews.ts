// The review resources: objects that are created, answered and never stored. Who am I (SelfSubjectReview),
// may I / may they (the access reviews), what may I do (SelfSubjectRulesReview), is this token good (TokenReview).
import type { ApiObject } from '../api/meta.js';
import type { TokenRequestDeps } from './token-request.js';
import type { RequestContext } from '../api/request.js';
import { badRequest, invalid, ApiError } from '../api/status.js';
import { readObject } from './body.js';
import { sendObject } from './respond.js';
import type { Scope } from './scope.js';
import { type Authorizer, type AuthzAttributes, type AuthnRequest, type AuthnResult, type UserInfo, intersect } from '../api/auth.js';

export interface ReviewDeps {
  authorizer: Authorizer;
  authenticate(req: AuthnRequest): Promise<AuthnResult>;
  /** audiences tokens are meant for when a TokenReview names none */
  apiAudiences?: string[];
  /** serviceaccounts/<name>/token; absent: the subresource is not served */
  tokenRequest?: TokenRequestDeps;
}

type Review = (ctx: RequestContext, body: any, scope: Scope, namespace: string) => Promise<Record<string, unknown>>;

const userInfo = (u: UserInfo) => ({ username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}) });

function attributes(user: UserInfo, spec: any, path: string): AuthzAttributes {
  const r = spec?.resourceAttributes, n = spec?.nonResourceAttributes;
  if (r) return {
    user, verb: r.verb ?? '', isResourceRequest: true, path, apiGroup: r.group ?? '', apiVersion: r.version ?? '',
    namespace: r.namespace ?? '', resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
  };
  return { user, verb: n?.verb ?? '', isResourceRequest: false, path: n?.path ?? '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

function requireOneAttributeSet(scope: Scope, spec: any) {
  const has = !!spec?.resourceAttributes, hasNon = !!spec?.nonResourceAttributes;
  if (has === hasNon) throw invalid(scope.info.group, scope.info.kind, '', [{ reason: 'FieldValueRequired', field: 'spec.resourceAttributes',
    message: has ? 'Invalid value: cannot be specified in combination with nonResourceAttributes' : 'Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified' }]);
}

async function decide(deps: ReviewDeps, a: AuthzAttributes) {
  try {
    const d = await deps.authorizer.authorize(a);
    return { allowed: d.decision === 'Allow', ...(d.decision === 'Deny' ? { denied: true } : {}), ...(d.reason ? { reason: d.reason } : {}) };
  } catch (e) {
    return { allowed: false, evaluationError: (e as Error).message };
  }
}

export function reviewHandlers(deps: ReviewDeps): Record<string, Review> {
  return {
    selfsubjectreviews: async ctx => ({ status: { userInfo: userInfo(ctx.user!) } }),
    selfsubjectaccessreviews: async (ctx, body, scope) => {
      requireOneAttributeSet(scope, body.spec);
      return { status: await decide(deps, attributes(ctx.user!, body.spec, ctx.path)) };
    },
    localsubjectaccessreviews: async (ctx, body, scope, namespace) => {
      requireOneAttributeSet(scope, body.spec);
      if (!body.spec.resourceAttributes) throw badRequest('localsubjectaccessreviews must have resourceAttributes');
      const ns = body.spec.resourceAttributes.namespace ?? '';
      if (ns !== namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
      return subjectReview(deps, ctx, body, scope);
    },
    subjectaccessreviews: async (ctx, body, scope) => {
      requireOneAttributeSet(scope, body.spec);
      return subjectReview(deps, ctx, body, scope);
    },
    selfsubjectrulesreviews: async (ctx, body) => {
      const namespace = body.spec?.namespace ?? '';
      const rules = deps.authorizer.rulesFor?.(ctx.user!, namespace)
        ?? { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'the authorizers in use cannot list their rules' };
      return { status: rules };
    },
    tokenreviews: async (_ctx, body, scope) => {
      const token = body.spec?.token;
      if (!token) throw invalid(scope.info.group, scope.info.kind, '', [{ reason: 'FieldValueRequired', field: 'spec.token', message: 'Required value' }]);
      const requested: string[] = Array.isArray(body.spec.audiences) ? body.spec.audiences : [];
      const apiAudiences = deps.apiAudiences ?? [];
      const refuse = (error: string) => ({ status: { authenticated: false, user: {}, error } });
      if (typeof token !== 'string' || /[\r\n]/.test(token)) return refuse('invalid bearer token');
      try {
        const user = await deps.authenticate({ headers: { authorization: `Bearer ${token}` }, ...(requested.length ? { audiences: requested } : {}) });
        if (user.username === 'system:anonymous') return refuse('invalid bearer token');
        // tokens that carry no audiences of their own are good for the API audiences only
        const audiences = user.audiences ?? (requested.length ? intersect(requested, apiAudiences) : apiAudiences);
        if (requested.length && !audiences.length) return refuse('token audiences are invalid for the target audiences');
        return { status: { authenticated: true, user: userInfo(user), audiences } };
      } catch (e) {
        return refuse(e instanceof ApiError ? (e.message === 'Unauthorized' ? 'invalid bearer token' : e.message.replace(/^Unauthorized: /, '')) : (e as Error).message);
      }
    },
  };
}

async function subjectReview(deps: ReviewDeps, ctx: RequestContext, body: any, scope: Scope) {
  const spec = body.spec;
  if (!spec.user && !(spec.groups?.length))
    throw invalid(scope.info.group, scope.info.kind, '', [{ reason: 'FieldValueRequired', field: 'spec.user', message: 'Invalid value: "": at least one of user or group must be specified' }]);
  const user: UserInfo = { username: spec.user ?? '', uid: spec.uid, groups: spec.groups ?? [], extra: spec.extra };
  return { status: await decide(deps, attributes(user, spec, ctx.path)) };
}

/** create on a review resource: decode, answer, return the object with its status; nothing is stored */
export async function createReview(ctx: RequestContext, scope: Scope, namespace: string, review: Review) {
  const { value } = await readObject(ctx, scope.names);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('the request body must be an object');
  const body = value as ApiObject & { spec?: unknown };
  if (body.kind !== undefined && body.kind !== scope.info.kind) throw badRequest(`the kind in the body (${body.kind}) does not match the kind on the URL (${scope.info.kind})`);
  if (body.apiVersion !== undefined && body.apiVersion !== scope.info.apiVersion)
    throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${scope.info.apiVersion})`);
  const answer = await review(ctx, { ...body, spec: body.spec ?? {} }, scope, namespace);
  const metadata = { ...(body.metadata ?? {}), creationTimestamp: null, ...(namespace ? { namespace } : {}) };
  sendObject(ctx, 201, { kind: scope.info.kind, apiVersion: scope.info.apiVersion, metadata, spec: body.spec ?? {}, ...answer });
}
