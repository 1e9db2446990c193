// Bootstrap tokens: `<id>.<secret>` checked against the Secret bootstrap-token-<id> in the system namespace.
import { timingSafeEqual } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import { timeProblem, type ApiObject } from '../api/meta.js';
import type { Authenticator } from './types.js';
import { bearerToken } from './types.js';

export const bootstrapTokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const bootstrapGroup = 'system:bootstrappers';

export interface SecretGetter { (namespace: string, name: string): Promise<ApiObject | undefined> }

const decoded = (data: Record<string, string> | undefined, key: string) =>
  data?.[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8');

export function bootstrapTokenAuthenticator(names: Naming, getSecret: SecretGetter, now = () => Date.now()): Authenticator {
  const secretType = `bootstrap.${names.labelDomain}/token`;
  return {
    async authenticate(req) {
      const token = bearerToken(req);
      const m = token ? bootstrapTokenPattern.exec(token) : null;
      if (!m) return undefined;
      const [, id, secret] = m;
      const obj = await getSecret(names.systemNamespace, `bootstrap-token-${id}`) as (ApiObject & { type?: string; data?: Record<string, string> }) | undefined;
      // a token of this form that no good Secret backs is simply not recognised (the union answers 401)
      if (!obj || obj.type !== secretType || obj.metadata.deletionTimestamp) return undefined;
      const field = (k: string) => decoded(obj.data, k);
      const stored = field('token-secret') ?? '';
      if (field('token-id') !== id || stored.length !== secret.length || !timingSafeEqual(Buffer.from(stored), Buffer.from(secret))) return undefined;
      const expiration = field('expiration');
      // a time that is not RFC 3339 (a date alone) counts as expired, as the reference reads it
      if (expiration) {
        const at = timeProblem(expiration) ? NaN : Date.parse(expiration);
        if (Number.isNaN(at) || at <= now()) return undefined;
      }
      if (field('usage-bootstrap-authentication') !== 'true') return undefined;
      const extra = (field('auth-extra-groups') ?? '').split(',').map(g => g.trim()).filter(Boolean);
      if (extra.some(g => !/^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/.test(g))) return undefined;
      return { username: `system:bootstrap:${id}`, groups: [bootstrapGroup, ...extra] };
    },
  };
}
