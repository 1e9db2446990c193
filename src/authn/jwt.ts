// JWT helpers shared by service-account and OpenID tokens. The JOSE library is loaded on first use,
// so a server that never sees a token never pays for it.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';

type Jose = typeof import('jose');
let jose: Promise<Jose> | undefined;
export const loadJose = () => (jose ??= import('jose'));

/** the unverified claims of a compact JWS, or undefined when the token is not one */
export function peekClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every(p => /^[A-Za-z0-9_-]*$/.test(p))) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' && !Array.isArray(claims) ? claims : undefined;
  } catch { return undefined; }
}

/** the algorithm that fits a key: RS256 for RSA, ES256/384/512 by curve */
export function algorithmFor(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
  }
  throw new Error(`keys of type ${key.asymmetricKeyType} cannot sign tokens: use RSA or ECDSA`);
}

/** the key ID the reference derives: base64url of the SHA-256 of the public key's DER form */
export const keyId = (key: KeyObject) =>
  createHash('sha256').update((key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' })).digest('base64url');

/** every public key in a PEM bundle (public keys, private keys and certificates) */
export function publicKeysFromPem(pem: string, source: string): KeyObject[] {
  const blocks = pem.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
  const keys = blocks.map(b => {
    try { return createPublicKey(b); } catch (e) { throw new Error(`${source}: ${(e as Error).message}`); }
  });
  if (!keys.length) throw new Error(`${source}: no PEM public or private key found`);
  return keys;
}
