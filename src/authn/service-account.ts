// Service-account tokens: JWTs this server signs (TokenRequest) and verifies, bound to audiences, an expiry,
// and optionally to a Pod or Secret. With lookup on, a token dies with its account or bound object.
import { createPrivateKey, generateKeyPairSync, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Naming } from '../api/naming.js';
import type { ApiObject } from '../api/meta.js';
import type { Authenticator } from './types.js';
import { bearerToken } from './types.js';
import { algorithmFor, keyId, loadJose, peekClaims, publicKeysFromPem } from './jwt.js';
import { unauthorized } from '../api/status.js';
import { type AuthnResult, type ObjectRef, type ServiceAccountTokenSigner, intersect } from '../api/auth.js';

export const serviceAccountGroup = 'system:serviceaccounts';
export const serviceAccountUsername = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;
export const serviceAccountGroups = (namespace: string) => [serviceAccountGroup, `${serviceAccountGroup}:${namespace}`];
/** system:serviceaccount:<namespace>:<name>, split; undefined for other users */
export function parseServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m ? { namespace: m[1], name: m[2] } : undefined;
}


export interface ServiceAccountTokens extends ServiceAccountTokenSigner {
  issuers: string[];
  /** the keys that verify the tokens, as a JSON Web Key Set's keys (the issuer's discovery serves them) */
  publicJwks(): Promise<Array<Record<string, unknown>>>;
  /** the signing key (PEM), for the controller manager that fills legacy token Secrets in the server's process */
  signingKeyPem: string;
  authenticator(lookup?: ObjectGetter): Authenticator;
}

export type ObjectGetter = (resource: 'serviceaccounts' | 'pods' | 'secrets', namespace: string, name: string) => Promise<ApiObject | undefined>;

export interface ServiceAccountKeyOptions {
  signingKeyFile?: string;
  /** used for signing and verifying when no signing key is given */
  tlsPrivateKeyFile?: string;
  keyFiles: string[];
  /** where a signing key is generated on first start when none is given */
  certDir: string;
  issuers: string[];
  apiAudiences: string[];
}

export const defaultIssuer = (names: Naming) => `https://${names.vendor}.default.svc.cluster.local`;

/** the issuer of legacy tokens, kept in `<domain>/service-account-token` Secrets by the token controller */
export const legacyIssuer = (names: Naming) => `${names.vendor}/serviceaccount`;
/** a claim of a legacy token: `<label domain>/serviceaccount/<name>` */
export const legacyClaim = (names: Naming, name: string) => `${names.labelDomain}/serviceaccount/${name}`;

function signingKey(o: ServiceAccountKeyOptions): KeyObject {
  const file = o.signingKeyFile ?? o.tlsPrivateKeyFile;
  if (file) return createPrivateKey(readFileSync(file, 'utf8'));
  const generated = join(o.certDir, 'sa.key');
  if (!existsSync(generated)) {
    mkdirSync(o.certDir, { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    writeFileSync(generated, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
  }
  return createPrivateKey(readFileSync(generated, 'utf8'));
}

export function serviceAccountTokens(names: Naming, o: ServiceAccountKeyOptions, now = () => Date.now()): ServiceAccountTokens {
  const key = signingKey(o);
  const alg = algorithmFor(key);
  const kid = keyId(key);
  const verifyKeys = [createPublicKey(key), ...o.keyFiles.flatMap(f => publicKeysFromPem(readFileSync(f, 'utf8'), f))];
  const claimKey = names.labelDomain;
  const extraKey = (k: string) => `authentication.${names.labelDomain}/${k}`;
  const issuers = o.issuers;

  const legacy = legacyIssuer(names);
  let jwks: Promise<Array<Record<string, unknown>>> | undefined;

  /** a legacy token: valid while its Secret holds it and its account (the same one) exists */
  async function legacyUser(token: string, lookup: ObjectGetter | undefined): Promise<AuthnResult> {
    const jose = await loadJose();
    let claims: Record<string, any> | undefined;
    for (const k of verifyKeys) {
      try { claims = (await jose.jwtVerify(token, k, { issuer: legacy })).payload; break; } catch { /* the next key */ }
    }
    if (!claims) throw unauthorized('Unauthorized: service account token signature is invalid');
    const claim = (n: string) => claims![legacyClaim(names, n)];
    const namespace = claim('namespace'), secretName = claim('secret.name'), name = claim('service-account.name'), uid = claim('service-account.uid');
    if (typeof namespace !== 'string' || typeof secretName !== 'string' || typeof name !== 'string' || claims.sub !== serviceAccountUsername(namespace, name))
      throw unauthorized('Unauthorized: service account token claims are malformed');
    if (lookup) {
      const secret = await lookup('secrets', namespace, secretName) as (ApiObject & { data?: Record<string, string> }) | undefined;
      if (!secret || secret.metadata.deletionTimestamp || Buffer.from(secret.data?.token ?? '', 'base64').toString('utf8') !== token)
        throw unauthorized(`Unauthorized: secret ${namespace}/${secretName} no longer holds this token`);
      const account = await lookup('serviceaccounts', namespace, name);
      if (!account || (uid && account.metadata.uid !== uid)) throw unauthorized(`Unauthorized: service account ${namespace}/${name} has been deleted`);
    }
    return { username: serviceAccountUsername(namespace, name), groups: serviceAccountGroups(namespace), audiences: o.apiAudiences, ...(uid ? { uid } : {}) };
  }

  return {
    issuers,
    signingKeyPem: key.export({ type: 'pkcs8', format: 'pem' }) as string,
    apiAudiences: o.apiAudiences,
    publicJwks() {
      // the keys never change while the server runs
      jwks ??= loadJose().then(jose => Promise.all(verifyKeys.map(async k => ({ use: 'sig', ...await jose.exportJWK(k), kid: keyId(k), alg: algorithmFor(k) }))));
      return jwks;
    },
    async sign(t) {
      const jose = await loadJose();
      const iat = Math.floor(now() / 1000);
      const exp = iat + t.expirationSeconds;
      const priv = {
        namespace: t.namespace,
        ...(t.pod ? { pod: t.pod } : {}),
        ...(t.secret ? { secret: t.secret } : {}),
        serviceaccount: t.serviceAccount,
        ...(t.warnAfterSeconds ? { warnafter: iat + t.warnAfterSeconds } : {}),
      };
      const token = await new jose.SignJWT({ [claimKey]: priv })
        .setProtectedHeader({ alg, kid })
        .setIssuer(issuers[0]).setAudience(t.audiences).setSubject(serviceAccountUsername(t.namespace, t.serviceAccount.name))
        .setIssuedAt(iat).setNotBefore(iat).setExpirationTime(exp)
        .sign(key);
      return { token, exp };
    },
    authenticator(lookup) {
      return {
        async authenticate(req) {
          const token = bearerToken(req);
          const peek = token ? peekClaims(token) : undefined;
          if (token && peek?.iss === legacy && !issuers.includes(legacy)) return legacyUser(token, lookup);
          if (!token || !peek || typeof peek.iss !== 'string' || !issuers.includes(peek.iss)) return undefined;
          const jose = await loadJose();
          let claims: Record<string, any> | undefined;
          for (const k of verifyKeys) {
            try {
              claims = (await jose.jwtVerify(token, k, { issuer: issuers, currentDate: new Date(now()), clockTolerance: 0 })).payload;
              break;
            } catch (e) {
              if ((e as { code?: string }).code === 'ERR_JWT_EXPIRED') throw unauthorized('Unauthorized: service account token has expired');
              if ((e as { code?: string }).code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') throw unauthorized(`Unauthorized: invalid service account token: ${(e as Error).message}`);
            }
          }
          if (!claims) throw unauthorized('Unauthorized: service account token signature is invalid');
          const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud as string[] : [];
          const audiences = intersect(req.audiences?.length ? req.audiences : o.apiAudiences, aud);
          if (!audiences.length) throw unauthorized('Unauthorized: token audiences are invalid for the target audiences');
          const p = claims[claimKey];
          const sa = p?.serviceaccount;
          if (!p || typeof p.namespace !== 'string' || typeof sa?.name !== 'string' || claims.sub !== serviceAccountUsername(p.namespace, sa.name))
            throw unauthorized('Unauthorized: service account token claims are malformed');
          if (lookup) {
            const gone = async (resource: 'serviceaccounts' | 'pods' | 'secrets', ref: ObjectRef, what: string) => {
              const obj = await lookup(resource, p.namespace, ref.name);
              if (!obj || (ref.uid && obj.metadata.uid !== ref.uid)) return `${what} ${p.namespace}/${ref.name} has been deleted`;
              if (resource !== 'serviceaccounts' && obj.metadata.deletionTimestamp) return `${what} ${p.namespace}/${ref.name} is being deleted`;
              return undefined;
            };
            const why = await gone('serviceaccounts', sa, 'service account')
              ?? (p.pod ? await gone('pods', p.pod, 'pod') : undefined)
              ?? (p.secret ? await gone('secrets', p.secret, 'secret') : undefined);
            if (why) throw unauthorized(`Unauthorized: ${why}`);
          }
          const user: AuthnResult = { username: serviceAccountUsername(p.namespace, sa.name), groups: serviceAccountGroups(p.namespace), audiences };
          if (sa.uid) user.uid = sa.uid;
          if (p.pod) user.extra = { [extraKey('pod-name')]: [p.pod.name], [extraKey('pod-uid')]: [p.pod.uid] };
          return user;
        },
      };
    },
  };
}
