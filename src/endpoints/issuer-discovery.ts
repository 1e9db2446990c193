// The service-account issuer's OpenID discovery, as the reference serves it: relying parties outside the cluster
// (workload identity federation) read the issuer and its keys to verify the server's tokens. Served only for an
// https issuer, as the reference does; the trailing-slash spellings are the paths its OpenAPI document names.
import type { RequestContext } from '../api/request.js';
import { methodNotSupported } from '../api/status.js';
import { sendText } from './respond.js';

export const openIdConfigPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';

export interface IssuerDiscoveryOptions {
  issuer: string;
  /** the jwks_uri to publish: a flag's, or this server's own address */
  jwksUri: () => string;
  /** the keys that verify the issuer's tokens */
  keys: () => Promise<Array<Record<string, unknown>>>;
}

// relying parties may cache both documents for an hour, as the reference lets them
const cacheControl = 'public, max-age=3600';

/** why an issuer cannot be published, or '' when it can */
export function issuerProblem(issuer: string): string {
  let url: URL;
  try { url = new URL(issuer); } catch { return 'the issuer is not a URL'; }
  if (url.protocol !== 'https:') return 'the issuer URL must use https';
  if (url.search || url.hash) return 'the issuer URL must have no query or fragment';
  return '';
}

/** a route of the mux: answers the two discovery paths (with or without a trailing slash), false for others */
export function issuerDiscoveryRoute(o: IssuerDiscoveryOptions): (ctx: RequestContext) => Promise<boolean> {
  const path = (p: string) => p.replace(/\/$/, '');
  return async ctx => {
    const which = path(ctx.path);
    if (which !== openIdConfigPath && which !== jwksPath) return false;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw methodNotSupported(ctx.path, ctx.method);
    const keys = await o.keys();
    if (which === jwksPath) {
      sendText(ctx, 200, JSON.stringify({ keys }), 'application/jwk-set+json', { 'Cache-Control': cacheControl });
      return true;
    }
    const algorithms = [...new Set(keys.map(k => String(k.alg)))].sort();
    const config = {
      issuer: o.issuer, jwks_uri: o.jwksUri(), response_types_supported: ['id_token'],
      subject_types_supported: ['public'], id_token_signing_alg_values_supported: algorithms,
    };
    sendText(ctx, 200, JSON.stringify(config), 'application/json', { 'Cache-Control': cacheControl });
    return true;
  };
}
