// Token-review webhook: a bearer token nothing else recognised is sent to a remote service as a TokenReview.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import type { Authenticator } from './types.js';
import { bearerToken } from './types.js';
import { postRetrying, ttlCache, type WebhookClient } from '../util/webhook-client.js';
import { unauthorized } from '../api/status.js';
import { type AuthnResult, intersect } from '../api/auth.js';

export interface TokenWebhookConfig {
  client: WebhookClient; version: 'v1' | 'v1beta1'; cacheTtlMs: number; apiAudiences: string[];
  /** where a failure of the webhook itself is reported: the client, not yet authenticated, is only told Unauthorized */
  warn?(message: string): void;
}

const strings = (v: unknown) => Array.isArray(v) && v.every(x => typeof x === 'string');

/** the user of an answer has the reference's types: strings, a list of strings, a map of lists of strings */
function wellTyped(u: any): boolean {
  if (!u || typeof u !== 'object' || Array.isArray(u)) return false;
  if (u.username !== undefined && typeof u.username !== 'string') return false;
  if (u.uid !== undefined && typeof u.uid !== 'string') return false;
  if (u.groups !== undefined && u.groups !== null && !strings(u.groups)) return false;
  if (u.extra === undefined || u.extra === null) return true;
  return typeof u.extra === 'object' && !Array.isArray(u.extra) && Object.values(u.extra).every(v => v === null || strings(v));
}

/** the extra of a well-typed user, without keys whose value is null (as the reference decodes them: no values) */
function extraOf(extra: Record<string, string[] | null> | null | undefined): { extra?: Record<string, string[]> } {
  const kept = Object.entries(extra ?? {}).filter((e): e is [string, string[]] => e[1] !== null);
  return kept.length ? { extra: Object.fromEntries(kept) } : {};
}

export function tokenWebhookAuthenticator(names: Naming, c: TokenWebhookConfig, now = () => Date.now()): Authenticator {
  const apiVersion = `${names.group('authentication')}/${c.version}`;
  const cache = ttlCache<{ user?: AuthnResult; error?: string }>(now);
  let warned = 0;
  /** a webhook that fails (down, garbage, the wrong kind) is the server's problem: logged now and then, never shown to the caller */
  const failed = (why: string) => {
    if (now() - warned > 10_000) { warned = now(); c.warn?.(`token review webhook: ${why}`); }
    return unauthorized();
  };
  return {
    async authenticate(req) {
      const token = bearerToken(req);
      if (!token) return undefined;
      const audiences = req.audiences?.length ? req.audiences : c.apiAudiences;
      const key = createHash('sha256').update(`${audiences.join(',')}\n${token}`).digest('hex');
      let answer = cache.get(key);
      if (!answer) {
        let reply: any;
        try {
          reply = await postRetrying(c.client, { apiVersion, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec: { token, ...(audiences.length ? { audiences } : {}) }, status: { user: {} } });
        } catch (e) {
          throw failed((e as Error).message);
        }
        if (reply?.apiVersion && reply.apiVersion !== apiVersion) throw failed(`answered ${reply.apiVersion}, not ${apiVersion}`);
        const s = reply?.status ?? {};
        // a user the reference could not decode (groups not strings, extra values not lists of strings) is the webhook's fault
        if (s.authenticated === true && !wellTyped(s.user)) throw failed('answered a user whose fields are not of their types');
        if (s.authenticated === true && typeof s.user?.username === 'string' && s.user.username) {
          // audiences in the answer must be a subset of those asked; none means the API audiences were understood
          const got: string[] = Array.isArray(s.audiences) && s.audiences.length ? s.audiences : audiences;
          const ok = intersect(audiences, got);
          answer = audiences.length && !ok.length ? { error: 'token audiences are invalid for the target audiences' } : {
            user: {
              username: s.user.username, ...(s.user.uid ? { uid: String(s.user.uid) } : {}),
              groups: Array.isArray(s.user.groups) ? s.user.groups.map(String) : [],
              ...extraOf(s.user.extra), audiences: ok,
            },
          };
        } else answer = { error: typeof s.error === 'string' && s.error ? s.error : undefined };
        cache.set(key, answer, c.cacheTtlMs);
      }
      if (!answer.user) throw unauthorized(answer.error ? `Unauthorized: ${answer.error}` : 'Unauthorized');
      return { ...answer.user, groups: [...answer.user.groups] };
    },
  };
}
