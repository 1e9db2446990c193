// OpenID Connect ID tokens from one trusted issuer: keys found by discovery over TLS, claims mapped to a user.
import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import type { Authenticator } from './types.js';
import { bearerToken } from './types.js';
import { loadJose, peekClaims } from './jwt.js';
import { unauthorized } from '../api/status.js';
import { boundedChunks, settledWithin } from '../util/bounded-body.js';

function fetchJson(url: string, ca: string | undefined, timeoutMs = 10_000): Promise<any> {
  const u = new URL(url);
  if (u.protocol !== 'https:') return Promise.reject(new Error(`${url}: only https is allowed`));
  // the whole document within the time: an issuer trickling it would otherwise stall the reading of the keys for good
  const call = settledWithin<unknown>(timeoutMs, `${url}: no answer in time`, e => req.destroy(e));
  const req = get(u, { ca, timeout: timeoutMs, headers: { accept: 'application/json' } }, res => {
    const chunks = boundedChunks(res);
    res.on('error', call.reject);
    res.on('end', () => {
      if (res.statusCode !== 200) return call.reject(new Error(`${url}: status ${res.statusCode}`));
      try { call.resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch { call.reject(new Error(`${url}: not JSON`)); }
    });
  });
  req.on('timeout', () => req.destroy(new Error(`${url}: no answer in time`)));
  req.on('error', call.reject);
  return call.promise;
}

export interface OidcOptions {
  issuerUrl: string;
  clientId: string;
  usernameClaim: string;
  /** undefined: the reference's default (issuer URL and '#' unless the claim is email); '-' disables */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix: string;
  requiredClaims: Record<string, string>;
  caFile?: string;
  signingAlgs: string[];
}

/** how long before its nbf a token is already good, as in the reference's verifier */
const nbfLeewaySeconds = 60;
/** how often the issuer is asked again while its keys could not be read, as the reference retries */
const initRetryMs = 10_000;

export function oidcAuthenticator(o: OidcOptions, now = () => Date.now(), opts: { warn?(message: string): void } = {}): Authenticator & { stop(): void } {
  const ca = o.caFile ? readFileSync(o.caFile, 'utf8') : undefined;
  const issuer = o.issuerUrl;
  type Keys = { set: any; fetchedAt: number };
  const fetchKeys = async (): Promise<Keys> => {
    const jose = await loadJose();
    const discovery = await fetchJson(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, ca);
    if (discovery.issuer !== issuer) throw new Error(`the discovery document names issuer ${discovery.issuer}, expected ${issuer}`);
    const jwks = await fetchJson(discovery.jwks_uri, ca);
    return { set: jose.createLocalJWKSet(jwks), fetchedAt: now() };
  };
  // The keys are read from the start, apart from any request, and again every 10 s until they are: as in the
  // reference, a token that comes before is refused at once, so an issuer that is slow or down holds no request
  // (and no stream of tokens makes this server call it more often). Once known, they are read again (at most every
  // 10 s) when a token names a key not in the set.
  let keys: Keys | undefined;
  let refreshing: Promise<Keys> | undefined;
  let retry: NodeJS.Timeout | undefined, stopped = false;
  const init = () => {
    fetchKeys().then(k => { keys = k; }, e => {
      if (stopped) return;
      opts.warn?.(`OpenID issuer ${issuer}: reading its keys: ${(e as Error).message}; trying again in ${initRetryMs / 1000} s`);
      retry = setTimeout(init, initRetryMs).unref();
    });
  };
  init();
  const usernamePrefix = o.usernamePrefix === '-' ? '' : o.usernamePrefix ?? (o.usernameClaim === 'email' ? '' : `${issuer}#`);

  return {
    stop() { stopped = true; clearTimeout(retry); },
    async authenticate(req) {
      const token = bearerToken(req);
      const peek = token ? peekClaims(token) : undefined;
      if (!token || peek?.iss !== issuer) return undefined;
      const jose = await loadJose();
      let claims: Record<string, any>;
      if (!keys) throw unauthorized('Unauthorized: the OpenID authenticator is not initialized: the issuer\'s keys are not known yet');
      try {
        let k = keys;
        // an ID token without an expiry is refused, as the reference's verifier reads a missing exp as long past; as
        // there, a token is good up to a minute before its nbf (the issuer's clock may run ahead), never past its exp
        const verify = async () => {
          const verified = await jose.jwtVerify(token, k.set, { issuer, audience: o.clientId, algorithms: o.signingAlgs, currentDate: new Date(now()), requiredClaims: ['exp'], clockTolerance: nbfLeewaySeconds });
          if ((verified.payload.exp as number) * 1000 < now()) throw new Error('the token has expired');
          return verified;
        };
        try { claims = (await verify()).payload; } catch (e) {
          if ((e as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || now() - k.fetchedAt < 10_000) throw e;
          // one read for every token waiting on it; a failed read keeps the keys known and waits its 10 s too
          refreshing ??= fetchKeys().then(fresh => (keys = fresh), err => { keys = { ...k, fetchedAt: now() }; throw err; })
            .finally(() => { refreshing = undefined; });
          k = await refreshing;
          claims = (await verify()).payload;
        }
      } catch (e) {
        throw unauthorized(`Unauthorized: invalid OpenID token: ${(e as Error).message}`);
      }
      const name = claims[o.usernameClaim];
      if (typeof name !== 'string' || !name) throw unauthorized(`Unauthorized: the OpenID token has no claim ${o.usernameClaim}`);
      if (o.usernameClaim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true)
        throw unauthorized('Unauthorized: the OpenID token\'s email is not verified');
      for (const [k, v] of Object.entries(o.requiredClaims))
        if (claims[k] !== v) throw unauthorized(`Unauthorized: the OpenID token's claim ${k} is not ${v}`);
      const g = o.groupsClaim ? claims[o.groupsClaim] : undefined;
      if (g !== undefined && typeof g !== 'string' && !(Array.isArray(g) && g.every(x => typeof x === 'string')))
        throw unauthorized(`Unauthorized: the OpenID token's claim ${o.groupsClaim} is not a string or a list of strings`);
      const groups = (g === undefined ? [] : typeof g === 'string' ? [g] : g as string[]).map(x => o.groupsPrefix + x);
      return { username: usernamePrefix + name, groups };
    },
  };
}
