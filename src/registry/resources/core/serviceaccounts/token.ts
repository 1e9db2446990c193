// TokenRequest (`serviceaccounts/<name>/token`): a signed, expiring service-account token for chosen audiences,
// optionally bound to a Pod or Secret so it dies with that object.
import { nowTimestamp, type ApiObject } from '../../../../api/meta.js';
import type { Pod } from '../../../../api/types/core-v1.js';
import type { TokenRequest, TokenRequestSpec } from '../../../../api/types/authentication-v1.js';
import { badRequest, conflict, invalid, notFound, statusBody, ApiError } from '../../../../api/status.js';
import type { RestRequest } from '../../../types.js';
import { objectBody } from '../../review.js';

const minSeconds = 600;
const maxSeconds = 2 ** 32;
/** the lifetime the node agent asks for its projected tokens, and the one they get when extended */
const agentTokenSeconds = 3607;
const extendedSeconds = 365 * 24 * 3600;

export async function requestToken(req: RestRequest, body: unknown): Promise<TokenRequest> {
  const { namespace, name, names, services: { tokens, maxTokenExpirationMs = 0, extendTokenExpiration = false } } = req;
  if (!tokens) throw new ApiError(statusBody(405, 'MethodNotAllowed', `the ${req.info.resource}/${req.subresource} subresource is not supported by this server yet`));
  const authGroup = names.group('authentication');
  const request = objectBody(body) as Partial<TokenRequest>;
  if (request.kind !== undefined && request.kind !== 'TokenRequest') throw badRequest(`the kind in the body (${request.kind}) must be TokenRequest`);
  // the request goes through admission as the reference's does: mutating plugins and webhooks see it as decoded (its
  // lifetime defaulted) and may change it; validating ones see it checked, with its audiences and names filled in
  const admission = req.admission();
  const reviewed = { apiVersion: `${authGroup}/v1`, kind: 'TokenRequest', metadata: { ...request.metadata },
    spec: { ...request.spec, expirationSeconds: request.spec?.expirationSeconds ?? 3600 } } as ApiObject & Partial<TokenRequest>;
  await admission.mutate('CREATE', reviewed, undefined);
  const spec: Partial<TokenRequestSpec> = { ...(reviewed.spec ?? {}) };
  const fail = (field: string, message: string) => invalid(authGroup, 'TokenRequest', name, [{ reason: 'FieldValueInvalid', field, message }]);
  // a name or namespace in the body must be the account's
  const named = reviewed.metadata;
  if (named.name && named.name !== name) throw fail('metadata.name', `Invalid value: ${JSON.stringify(named.name)}: must match the service account name if specified`);
  if (named.namespace && named.namespace !== namespace)
    throw fail('metadata.namespace', `Invalid value: ${JSON.stringify(named.namespace)}: must match the service account namespace if specified`);
  const asked = spec.expirationSeconds ?? 3600;
  if (!Number.isInteger(asked)) throw fail('spec.expirationSeconds', `Invalid value: ${JSON.stringify(asked)}: must be an integer`);
  if (asked < minSeconds) throw fail('spec.expirationSeconds', `Invalid value: ${asked}: may not specify a duration less than 10 minutes`);
  if (asked > maxSeconds) throw fail('spec.expirationSeconds', `Invalid value: ${asked}: may not specify a duration larger than 2^32 seconds`);
  if (spec.audiences != null && !(Array.isArray(spec.audiences) && spec.audiences.every(a => typeof a === 'string')))
    throw fail('spec.audiences', 'Invalid value: must be a list of strings');
  const audiences = spec.audiences = spec.audiences?.length ? spec.audiences : tokens.apiAudiences;

  const sa = await req.store.get(namespace, name);
  // validating admission sees the request, as the reference's does (NodeRestriction: an agent's token must be bound to a pod of its own)
  await admission.validate('CREATE', { ...reviewed, metadata: { ...reviewed.metadata, name, namespace }, spec: structuredClone(spec) } as ApiObject, undefined);
  const expirationSeconds = spec.expirationSeconds = maxTokenExpirationMs > 0 ? Math.min(asked, Math.floor(maxTokenExpirationMs / 1000)) : asked;
  let pod, secret;
  const ref = spec.boundObjectRef;
  if (ref) {
    // the reference reads the reference's group alone (any version of the core group), and names a refused type as
    // Go prints a group, version and kind: "/v1, Kind=Node", "apps/v1, Kind=Deployment"
    const apiVersion = ref.apiVersion ?? '';
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) as [string, string] : ['', apiVersion];
    const resource = group ? undefined : ref.kind === 'Pod' ? 'pods' : ref.kind === 'Secret' ? 'secrets' : undefined;
    if (!resource) throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
    if (!ref.name) throw fail('spec.boundObjectRef.name', 'Required value');
    const obj = await req.listers.get('', resource, namespace, ref.name);
    if (!obj) throw notFound('', resource, ref.name);
    if (ref.uid && ref.uid !== obj.metadata.uid)
      // the reference names the kind, not the resource, in this conflict: `Operation cannot be fulfilled on Pod "web"`
      throw conflict('', ref.kind!, ref.name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    if (resource === 'pods') {
      const podSa = (obj as Pod).spec?.serviceAccountName || 'default';
      if (podSa !== name) throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      pod = { name: ref.name, uid: obj.metadata.uid! };
    } else secret = { name: ref.name, uid: obj.metadata.uid! };
    spec.boundObjectRef = { kind: ref.kind, apiVersion: 'v1', name: ref.name, uid: obj.metadata.uid };
  }
  // the agent's projected tokens (3607 s, for the API's own audiences) live a year, warning after the asked end, for
  // clients that never read the refreshed token; the answer still states the asked end
  const extended = extendTokenExpiration && pod && expirationSeconds === agentTokenSeconds && audiences.every(a => tokens.apiAudiences.includes(a));
  const { token } = await tokens.sign({ namespace, serviceAccount: { name, uid: sa.metadata.uid! }, pod, secret, audiences,
    ...(extended ? { expirationSeconds: extendedSeconds, warnAfterSeconds: expirationSeconds } : { expirationSeconds }) });
  return {
    kind: 'TokenRequest', apiVersion: `${authGroup}/v1`,
    metadata: { name, namespace, creationTimestamp: nowTimestamp() },
    spec: { ...spec, audiences, expirationSeconds }, status: { token, expirationTimestamp: nowTimestamp(new Date(Date.now() + expirationSeconds * 1000)) },
  };
}
