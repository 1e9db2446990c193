// TokenRequest (`serviceaccounts/<name>/token`): a signed, expiring service-account token for chosen audiences,
// optionally bound to a Pod or Secret so it dies with that object.
import type { ApiObject } from '../api/meta.js';
import type { RequestContext } from '../api/request.js';
import type { ServiceAccountTokenSigner } from '../api/auth.js';
import { badRequest, conflict, invalid, notFound } from '../api/status.js';
import { readObject } from './body.js';
import { sendObject } from './respond.js';
import type { Scope } from './scope.js';

export interface TokenRequestDeps {
  tokens: ServiceAccountTokenSigner;
  /** longest lifetime in ms; 0: no limit */
  maxExpirationMs: number;
  get(resource: 'pods' | 'secrets', namespace: string, name: string): Promise<ApiObject | undefined>;
}

const minSeconds = 600;
const maxSeconds = 2 ** 32;

export async function tokenRequest(ctx: RequestContext, scope: Scope, namespace: string, name: string, d: TokenRequestDeps) {
  const authGroup = scope.names.group('authentication');
  const { value } = await readObject(ctx, scope.names);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('the request body must be an object');
  const body = value as ApiObject & { spec?: any };
  if (body.kind !== undefined && body.kind !== 'TokenRequest') throw badRequest(`the kind in the body (${body.kind}) must be TokenRequest`);
  const spec = { ...(body.spec ?? {}) };
  const fail = (field: string, message: string) => invalid(authGroup, 'TokenRequest', name, [{ reason: 'FieldValueInvalid', field, message }]);
  spec.expirationSeconds ??= 3600;
  if (!Number.isInteger(spec.expirationSeconds)) throw fail('spec.expirationSeconds', `Invalid value: ${JSON.stringify(spec.expirationSeconds)}: must be an integer`);
  if (spec.expirationSeconds < minSeconds) throw fail('spec.expirationSeconds', `Invalid value: ${spec.expirationSeconds}: may not specify a duration less than 10 minutes`);
  if (spec.expirationSeconds > maxSeconds) throw fail('spec.expirationSeconds', `Invalid value: ${spec.expirationSeconds}: may not specify a duration larger than 2^32 seconds`);
  if (d.maxExpirationMs > 0) spec.expirationSeconds = Math.min(spec.expirationSeconds, Math.floor(d.maxExpirationMs / 1000));
  if (spec.audiences != null && !(Array.isArray(spec.audiences) && spec.audiences.every((a: unknown) => typeof a === 'string')))
    throw fail('spec.audiences', 'Invalid value: must be a list of strings');
  if (!spec.audiences?.length) spec.audiences = d.tokens.apiAudiences;

  const sa = await scope.store.get(namespace, name);
  let pod, secret;
  const ref = spec.boundObjectRef;
  if (ref) {
    const resource = ref.kind === 'Pod' ? 'pods' : ref.kind === 'Secret' ? 'secrets' : undefined;
    if (!resource || (ref.apiVersion ?? 'v1') !== 'v1') throw badRequest(`cannot bind token to object of type ${ref.apiVersion ?? ''}, Kind=${ref.kind ?? ''}`);
    if (!ref.name) throw fail('spec.boundObjectRef.name', 'Required value');
    const obj = await d.get(resource, namespace, ref.name);
    if (!obj) throw notFound('', resource, ref.name);
    if (ref.uid && ref.uid !== obj.metadata.uid)
      throw conflict('', resource, ref.name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    if (resource === 'pods') {
      const podSa = (obj as { spec?: { serviceAccountName?: string } }).spec?.serviceAccountName || 'default';
      if (podSa !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      pod = { name: ref.name, uid: obj.metadata.uid! };
    } else secret = { name: ref.name, uid: obj.metadata.uid! };
    spec.boundObjectRef = { kind: ref.kind, apiVersion: 'v1', name: ref.name, uid: obj.metadata.uid };
  }
  const { token, exp } = await d.tokens.sign({
    namespace, serviceAccount: { name, uid: sa.metadata.uid! }, pod, secret, audiences: spec.audiences, expirationSeconds: spec.expirationSeconds,
  });
  sendObject(ctx, 201, {
    kind: 'TokenRequest', apiVersion: `${authGroup}/v1`,
    metadata: { name, namespace, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
    spec, status: { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d+Z$/, 'Z') },
  });
}
