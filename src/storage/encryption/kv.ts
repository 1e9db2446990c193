// A key-value store that encrypts the values of configured resources on every write and decrypts them on every read,
// list and watch event, below everything that decodes objects: the watch cache holds what was decrypted once, and
// its watchers share it. Keys of resources the configuration does not name pass through untouched.
import { isStorageError, StorageError, type KeyValue, type KV, type WatchEvent } from '../types.js';
import type { EncryptionRules } from './config.js';
import { DecryptError, decryptValue, describeEncrypted, encryptValue, type Provider } from './providers.js';

/** one transformation, for the storage transformation metrics */
export interface TransformationObserver {
  (type: 'to_storage' | 'from_storage', prefix: string, failed: boolean, seconds: number): void;
}

/** values read through a transforming store that no configured provider could open: why, for the object decoder */
const undecryptable = new WeakMap<Uint8Array, string>();
/** values read with a provider or key other than the writing one: a write of them must not be skipped as unchanged */
const staleValues = new WeakSet<Uint8Array>();

/** why a stored value read through a transforming store could not be decrypted; undefined when it was or was plain */
export const decryptFailure = (value: Uint8Array): string | undefined => undecryptable.get(value);
/** the value was decrypted with another provider or key than new writes use: the next write must store it anew */
export const isStale = (value: Uint8Array): boolean => staleValues.has(value);

/** `/registry/<group>/<resource>/` of a key naming an object, else undefined */
function resourcePrefixOf(key: string): string | undefined {
  if (!key.startsWith('/registry/')) return undefined;
  const groupEnd = key.indexOf('/', 10);
  const resourceEnd = groupEnd < 0 ? -1 : key.indexOf('/', groupEnd + 1);
  return resourceEnd < 0 || resourceEnd === key.length - 1 ? undefined : key.slice(0, resourceEnd + 1);
}

const prefixLabel = (providers: readonly Provider[], value: Uint8Array): string => {
  const head = Buffer.from(value.buffer, value.byteOffset, Math.min(value.byteLength, 32)).toString('latin1');
  return providers.find(p => p.prefix && head.startsWith(p.prefix))?.prefix ?? (describeEncrypted(value) ? 'unknown' : 'identity');
};

/**
 * The store with encryption at rest by the current rules (asked on every operation, so a reloaded configuration
 * applies to the next one). A value no provider opens is handed up as stored, marked, and fails when the object is
 * decoded, as a read of that one object (a 500 naming the cause), not of the whole list or watch it is in.
 */
export function encryptingKV(kv: KV, rules: () => EncryptionRules, observe?: TransformationObserver): KV {
  let cachedFor: EncryptionRules | undefined;
  const byPrefix = new Map<string, readonly Provider[] | null>();
  const providersOf = (key: string): readonly Provider[] | undefined => {
    const prefix = resourcePrefixOf(key);
    if (!prefix) return undefined;
    const current = rules();
    if (cachedFor !== current) { byPrefix.clear(); cachedFor = current; }
    let found = byPrefix.get(prefix);
    if (found === undefined) {
      const [group, resource] = prefix.slice(10, -1).split('/');
      found = current.providersFor(group === 'core' ? '' : group, resource) ?? null;
      byPrefix.set(prefix, found);
    }
    return found ?? undefined;
  };

  const encrypt = (key: string, value: Uint8Array): Uint8Array => {
    const providers = providersOf(key);
    if (!providers) return value;
    const started = performance.now();
    try {
      const out = encryptValue(providers, value, key);
      observe?.('to_storage', providers[0].prefix || 'identity', false, (performance.now() - started) / 1000);
      return out;
    } catch (e) {
      observe?.('to_storage', providers[0].prefix || 'identity', true, (performance.now() - started) / 1000);
      throw new StorageError('Internal', `unable to transform key "${key}": ${(e as Error).message}`, key);
    }
  };

  const decrypt = (kv: KeyValue): KeyValue => {
    const providers = providersOf(kv.key);
    if (!providers || !kv.value.length) return kv;
    const started = performance.now();
    try {
      const value = decryptValue(providers, kv.value, kv.key);
      observe?.('from_storage', prefixLabel(providers, kv.value), false, (performance.now() - started) / 1000);
      if (!startsWithWriter(providers[0], kv.value)) staleValues.add(value);
      return value === kv.value ? kv : { ...kv, value };
    } catch (e) {
      if (!(e instanceof DecryptError)) throw e;
      observe?.('from_storage', prefixLabel(providers, kv.value), true, (performance.now() - started) / 1000);
      undecryptable.set(kv.value, e.message);
      return kv;
    }
  };

  const decryptEvent = (e: WatchEvent): WatchEvent => {
    const kv = e.type === 'put' ? decrypt(e.kv) : e.kv;
    const prevKv = e.prevKv && decrypt(e.prevKv);
    return kv === e.kv && prevKv === e.prevKv ? e : { type: e.type, kv, prevKv };
  };
  /** a range within one resource that is not configured: its values pass as they are, unlooked at */
  const plainRange = (prefix: string) => {
    const inResource = resourcePrefixOf(`${prefix}_`);
    return inResource !== undefined && prefix.startsWith(inResource) && !providersOf(`${prefix}_`);
  };
  /** the write's result with the value as the caller gave it (not as stored) */
  const asGiven = <R extends { kv: KeyValue }>(r: R, stored: Uint8Array, value: Uint8Array): R =>
    (stored === value ? r : { ...r, kv: { ...r.kv, value } });

  /** a Conflict carries the current value, which the caller decides on again */
  const decryptError = (e: unknown): never => {
    if (isStorageError(e, 'Conflict') && e.current) {
      throw new StorageError('Conflict', e.message, e.key, decrypt(e.current));
    }
    throw e;
  };

  return Object.assign(Object.create(kv) as KV, {
    async get(key: string, opts?: Parameters<KV['get']>[1]) {
      const r = await kv.get(key, opts);
      return r.kv ? { ...r, kv: decrypt(r.kv) } : r;
    },
    async list(prefix: string, opts?: Parameters<KV['list']>[1]) {
      const r = await kv.list(prefix, opts);
      return plainRange(prefix) ? r : { ...r, kvs: r.kvs.map(decrypt) };
    },
    async create(key: string, value: Uint8Array) {
      const stored = encrypt(key, value);
      return asGiven(await kv.create(key, stored), stored, value);
    },
    async update(key: string, value: Uint8Array, expected: number) {
      const stored = encrypt(key, value);
      return asGiven(await kv.update(key, stored, expected).catch(decryptError), stored, value);
    },
    async delete(key: string, expected?: number) {
      const r = await kv.delete(key, expected).catch(decryptError);
      return { ...r, kv: decrypt(r.kv) };
    },
    watch(prefix: string, opts: Parameters<KV['watch']>[1], handler: Parameters<KV['watch']>[2]) {
      return kv.watch(prefix, opts, {
        onEvents: events => handler.onEvents(events.map(decryptEvent)),
        onError: err => handler.onError(err),
        onConnection: handler.onConnection && (live => handler.onConnection!(live)),
      });
    },
  } satisfies Partial<KV>);
}

/** the value is sealed by the writing provider with its writing key (identity: not sealed at all) */
function startsWithWriter(writer: Provider, value: Uint8Array): boolean {
  const want = writer.kind === 'identity' ? '' : `${writer.prefix}${writer.keys[0].name}:`;
  if (!want) return !describeEncrypted(value);
  return Buffer.from(value.buffer, value.byteOffset, Math.min(value.byteLength, want.length)).toString('latin1') === want;
}
