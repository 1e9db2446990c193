// The value transformers of encryption at rest: each provider seals a stored value under a prefix naming itself and
// its key, so a value says how to open it. The layouts are the reference's, and so are the prefixes in its API domain
// (`k8s:enc:`; the domain's vendor word in another, `cluster:enc:`), so a value sealed by either opens in the other
// (the storage keys, which AES-GCM authenticates, are this server's: /registry/<group>/<resource>/...):
//   aescbc:    <enc>aescbc:v1:<key>:    16-byte IV, AES-CBC ciphertext with PKCS#7 padding
//   aesgcm:    <enc>aesgcm:v1:<key>:    12-byte nonce, AES-GCM ciphertext, 16-byte tag; the storage key is
//                                       the additional authenticated data, so a value moved to another key fails
//   secretbox: <enc>secretbox:v1:<key>: 24-byte nonce, XSalsa20-Poly1305 box (tag, then ciphertext)
//   identity:  the value as it is
import { createCipheriv, createDecipheriv, randomBytes, type CipherGCMTypes } from 'node:crypto';
import { apiDomains, naming } from '../../api/naming.js';
import { secretboxNonceBytes, secretboxOpen, secretboxSeal } from './secretbox.js';

/** what encrypted values begin with in any API domain: a value without one is plain */
const encryptedPrefixes = apiDomains.map(d => naming(d).encryptionPrefix);
const isEncrypted = (head: string) => encryptedPrefixes.some(p => head.startsWith(p));

export type ProviderKind = 'identity' | 'aescbc' | 'aesgcm' | 'secretbox';

export interface NamedKey { name: string; secret: Buffer }

/** one provider of a resource's list: the first seals new values, each opens the values it sealed */
export interface Provider {
  kind: ProviderKind;
  /** the prefix its values begin with (before the key name); '' for identity */
  prefix: string;
  /** its keys, the first used for writing */
  keys: NamedKey[];
}

/** a value that was encrypted but cannot be read with the configured providers */
export class DecryptError extends Error {
  constructor(message: string) { super(message); this.name = 'DecryptError'; }
}

/** a provider; encryptionPrefix: the API domain's (Naming.encryptionPrefix) */
export const provider = (kind: ProviderKind, keys: NamedKey[] = [], encryptionPrefix = 'k8s:enc:'): Provider =>
  ({ kind, prefix: kind === 'identity' ? '' : `${encryptionPrefix}${kind}:v1:`, keys });

const aesCbc = (key: Buffer) => `aes-${key.length * 8}-cbc`;
const aesGcm = (key: Buffer) => `aes-${key.length * 8}-gcm` as CipherGCMTypes;
const gcmNonceBytes = 12;
const gcmTagBytes = 16;
const cbcIvBytes = 16;

/** the sealed form of plain under one key (without the prefix) */
function seal(kind: Exclude<ProviderKind, 'identity'>, key: Buffer, plain: Uint8Array, storageKey: string): Buffer {
  switch (kind) {
    case 'aescbc': {
      const iv = randomBytes(cbcIvBytes);
      const c = createCipheriv(aesCbc(key), key, iv);
      return Buffer.concat([iv, c.update(plain), c.final()]);
    }
    case 'aesgcm': {
      const nonce = randomBytes(gcmNonceBytes);
      const c = createCipheriv(aesGcm(key), key, nonce);
      c.setAAD(Buffer.from(storageKey));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    }
    case 'secretbox': {
      const nonce = randomBytes(secretboxNonceBytes);
      return Buffer.concat([nonce, secretboxSeal(plain, nonce, key)]);
    }
  }
}

/** plain from its sealed form under one key; throws when it does not open */
function open(kind: Exclude<ProviderKind, 'identity'>, key: Buffer, sealed: Buffer, storageKey: string): Buffer {
  switch (kind) {
    case 'aescbc': {
      if (sealed.length < 2 * cbcIvBytes || sealed.length % cbcIvBytes) throw new Error('the data is not a whole number of AES blocks');
      const d = createDecipheriv(aesCbc(key), key, sealed.subarray(0, cbcIvBytes));
      try { return Buffer.concat([d.update(sealed.subarray(cbcIvBytes)), d.final()]); } catch { throw new Error('invalid PKCS#7 padding'); }
    }
    case 'aesgcm': {
      if (sealed.length < gcmNonceBytes + gcmTagBytes) throw new Error('the data is too short');
      const d = createDecipheriv(aesGcm(key), key, sealed.subarray(0, gcmNonceBytes));
      d.setAAD(Buffer.from(storageKey));
      d.setAuthTag(sealed.subarray(sealed.length - gcmTagBytes));
      try { return Buffer.concat([d.update(sealed.subarray(gcmNonceBytes, sealed.length - gcmTagBytes)), d.final()]); } catch { throw new Error('message authentication failed'); }
    }
    case 'secretbox': {
      if (sealed.length < secretboxNonceBytes) throw new Error('the data is too short');
      const plain = secretboxOpen(sealed.subarray(secretboxNonceBytes), sealed.subarray(0, secretboxNonceBytes), key);
      if (!plain) throw new Error('output array was not large enough for encryption');
      return plain;
    }
  }
}

/** the stored form of a value: sealed by the first provider with its first key, behind their prefix */
export function encryptValue(providers: readonly Provider[], plain: Uint8Array, storageKey: string): Uint8Array {
  const first = providers[0];
  if (first.kind === 'identity') return plain;
  const key = first.keys[0];
  return Buffer.concat([Buffer.from(`${first.prefix}${key.name}:`), seal(first.kind, key.secret, plain, storageKey)]);
}

const startsWith = (value: Buffer, prefix: string) => value.length >= prefix.length && value.toString('latin1', 0, prefix.length) === prefix;

/**
 * The plain form of a stored value: the first provider (in the configured order) whose prefix and key name it has and
 * that opens it; identity reads what no encryption prefix marks. Throws a DecryptError saying why none could.
 */
export function decryptValue(providers: readonly Provider[], value: Uint8Array, storageKey: string): Uint8Array {
  const data = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  const errors: string[] = [];
  for (const p of providers) {
    if (p.kind === 'identity') {
      if (!isEncrypted(data.toString('latin1', 0, 16))) return value;
      continue;   // the reference's identity refuses encrypted data and lets a later provider try
    }
    if (!startsWith(data, p.prefix)) continue;
    let matched = false;
    for (const key of p.keys) {
      const keyPrefix = `${p.prefix}${key.name}:`;
      if (!startsWith(data, keyPrefix)) continue;
      matched = true;
      try {
        return open(p.kind, key.secret, data.subarray(keyPrefix.length), storageKey);
      } catch (e) {
        errors.push(`failed to decrypt with ${p.kind} key "${key.name}": ${(e as Error).message}`);
      }
    }
    if (!matched) errors.push(`no matching key was found for the provided ${p.kind} transformer`);
  }
  if (errors.length) throw new DecryptError([...new Set(errors)].join(', '));
  if (isEncrypted(data.toString('latin1', 0, 16)) && providers.some(p => p.kind === 'identity')) {
    throw new DecryptError('identity transformer tried to read encrypted data');
  }
  throw new DecryptError('no matching prefix found');
}

/** what an encrypted value's prefix says sealed it (`aescbc key "key1"`), for errors about values nobody can open */
export function describeEncrypted(value: Uint8Array): string | undefined {
  const head = Buffer.from(value.buffer, value.byteOffset, Math.min(value.byteLength, 256)).toString('latin1');
  if (!isEncrypted(head)) return undefined;
  const m = /^[a-z0-9]+:enc:([a-z0-9]+):(v[0-9]+):([^:]*):/.exec(head);
  return m ? `${m[1]} ${m[2]} key "${m[3]}"` : 'an unknown provider';
}
