// Authentication: who is asking. Each authenticator is one module; the union tries them in order.
import type { AuthnRequest, AuthnResult, UserInfo } from '../api/auth.js';
import { inEveryDomain } from '../api/naming.js';

export interface Authenticator {
  /** undefined: not this authenticator's kind of credential; throw Unauthorized: a credential of its kind, but invalid */
  authenticate(req: AuthnRequest): Promise<AuthnResult | undefined> | AuthnResult | undefined;
}

export const anonymousUser: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
export const authenticatedGroup = 'system:authenticated';

/** what the reference warns about a header whose token follows two spaces (the token is not read) */
export const spaceBeforeTokenWarning = 'the provided Authorization header contains extra space before the bearer token, and is ignored';

/** the WebSocket subprotocol that carries a bearer token (browsers cannot set headers): `base64url.bearer.authorization.<domain>.` */
const webSocketTokenPrefixes = inEveryDomain('authorization').map(g => `base64url.bearer.${g}.`);

/** a WebSocket handshake: `Connection` lists upgrade and `Upgrade` is websocket, as the reference tells one */
function isWebSocketRequest(req: AuthnRequest): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase().split(',').map(t => t.trim());
  return connection.includes('upgrade') && String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** the subprotocols a handshake offers, each value of each Sec-WebSocket-Protocol header split at commas */
function offeredProtocols(req: AuthnRequest): string[] {
  const raw = req.rawHeaders;
  const values: string[] = [];
  if (raw) { for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() === 'sec-websocket-protocol') values.push(raw[i + 1]); }
  else if (req.headers['sec-websocket-protocol'] !== undefined) values.push(String(req.headers['sec-websocket-protocol']));
  return values.flatMap(v => v.split(',')).map(p => p.trim());
}

/**
 * The bearer token a WebSocket handshake carries as a subprotocol, as the reference reads it: one such protocol at
 * most, unpadded base64url of UTF-8, and another protocol besides it (the one the server will echo). `protocols`
 * are the others: what the handshake goes on with once the token is taken out of it.
 */
export function webSocketBearer(req: AuthnRequest): { token?: string; protocols?: string; error?: string } {
  if (!isWebSocketRequest(req)) return {};
  let token: string | undefined;
  const others: string[] = [];
  for (const p of offeredProtocols(req)) {
    const prefix = webSocketTokenPrefixes.find(x => p.startsWith(x));
    if (!prefix) { others.push(p); continue; }
    if (token !== undefined) return { error: 'multiple base64.bearer.authorization tokens specified' };
    const encoded = p.slice(prefix.length);
    if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) return { error: 'invalid base64.bearer.authorization token encoding' };
    try {
      token = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64url'));
    } catch {
      return { error: 'invalid base64.bearer.authorization token' };
    }
  }
  if (!token) return {};
  if (!others.length) return { error: 'missing additional subprotocol' };
  return { token, protocols: others.join(',') };
}

/**
 * The `Authorization` header read as the reference reads it: trimmed, split at single spaces into at most three
 * parts; the scheme `bearer` in any case, then the second part is the token (what follows a further space is
 * ignored). Another scheme, no token, or a token after two spaces is no bearer credential at all. Header bytes
 * are read as UTF-8, as the reference reads them (Node hands them over as Latin-1).
 */
export function bearerCredential(req: AuthnRequest): { token?: string; warning?: string; error?: string; protocols?: string } {
  if (req.token !== undefined) return req.token ? { token: req.token } : {};
  const fromHeader = authorizationBearer(req);
  // without one in the header, a token in a WebSocket handshake's subprotocols
  return fromHeader.token !== undefined ? fromHeader : { ...fromHeader, ...webSocketBearer(req) };
}

function authorizationBearer(req: AuthnRequest): { token?: string; warning?: string } {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return {};
  const parts = h.trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return {};
  if (!parts[1]) return parts.length > 2 ? { warning: spaceBeforeTokenWarning } : {};
  return { token: utf8OfHeader(parts[1]) };
}

/**
 * A header value's bytes read as UTF-8: Node hands header bytes over as Latin-1 characters. A string that cannot
 * have come so (a character past U+00FF, as in a TokenReview's token) or whose bytes are no UTF-8 is kept as it is.
 */
function utf8OfHeader(s: string): string {
  if (!/[^\x00-\x7f]/.test(s) || /[^\x00-\xff]/.test(s)) return s;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(s, 'latin1'));
  } catch {
    return s;
  }
}

/** the token of an `Authorization: Bearer` header (or of a WebSocket handshake), or undefined when there is none */
export function bearerToken(req: AuthnRequest): string | undefined {
  return bearerCredential(req).token;
}
