// The Webhook authorizer: asks a remote service with a SubjectAccessReview, caching allowed and denied answers
// for their own times. A service that fails gives no opinion (the next authorizer decides) and an error.
import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import { postRetrying, ttlCache, type WebhookClient } from '../util/webhook-client.js';
import type { Authorizer, Decision } from '../api/auth.js';

export interface WebhookAuthorizerConfig {
  client: WebhookClient;
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

/** the fields that have a value: not undefined, not an empty string, list or object */
function withoutEmpty<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && !v.length)
    && !(v && typeof v === 'object' && !Array.isArray(v) && !Object.keys(v).length))) as Partial<T>;
}

export function webhookAuthorizer(names: Naming, c: WebhookAuthorizerConfig, now = () => Date.now()): Authorizer {
  const apiVersion = `${names.group('authorization')}/${c.version}`;
  const cache = ttlCache<{ decision: Decision; reason: string }>(now);
  return {
    async authorize(a) {
      // empty fields are left out, as the reference's encoding leaves them out: policies often test a field's absence
      // (a cluster-scoped request has no namespace, a request of a resource itself no subresource)
      const spec = withoutEmpty({
        ...(a.isResourceRequest
          ? { resourceAttributes: withoutEmpty({ namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name }) }
          : { nonResourceAttributes: withoutEmpty({ path: a.path, verb: a.verb }) }),
        // v1beta1 names the groups field `group`
        user: a.user.username, [c.version === 'v1' ? 'groups' : 'group']: a.user.groups, uid: a.user.uid, extra: a.user.extra,
      });
      const key = createHash('sha256').update(JSON.stringify(spec)).digest('hex');
      const hit = cache.get(key);
      if (hit) return hit;
      let status: any;
      try {
        const reply = await postRetrying(c.client, { apiVersion, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec, status: { allowed: false } });
        if (reply?.apiVersion && reply.apiVersion !== apiVersion) throw new Error(`the webhook answered ${reply.apiVersion}, not ${apiVersion}`);
        status = reply?.status ?? {};
      } catch (e) {
        return { decision: 'NoOpinion', error: `authorization webhook failed: ${(e as Error).message}` };
      }
      const reason = typeof status.reason === 'string' ? status.reason : '';
      const answer = { decision: (status.allowed === true ? 'Allow' : status.denied === true ? 'Deny' : 'NoOpinion') as Decision, reason };
      cache.set(key, answer, answer.decision === 'Allow' ? c.authorizedTtlMs : c.unauthorizedTtlMs);
      return answer;
    },
    // a remote service cannot list what a user may do: the rules review says so as the reference words it
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' }),
  };
}
