// The generic store: every resource's get, list, create, update, patch and delete, driven by its definition
// and strategy. Every write goes through compare-and-swap on the storage revision and is retried on conflict,
// with admission and validation inside the loop so they see the object they will replace.
import { randomUUID } from 'node:crypto';
import type { ApiObject, StatusCause } from '../api/meta.js';
import { nowTimestamp } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { KV, KeyValue } from '../storage/types.js';
import { isStorageError } from '../storage/types.js';
import type { ResourceInfo } from './resources.js';
import type { AdmissionHooks } from '../api/admission.js';
import type { Strategy, StrategyContext } from './strategy.js';
import { validateObjectMeta } from './validation.js';
import { updateManagedFields } from '../apply/managed-fields.js';
import {
  alreadyExists, badRequest, conflict, gone, internalError, invalid, notFound, tooLarge, ApiError,
} from '../api/status.js';

export const encodeObject = (obj: ApiObject): Uint8Array => {
  const rv = obj.metadata.resourceVersion;
  delete obj.metadata.resourceVersion;
  const bytes = Buffer.from(JSON.stringify(obj));
  if (rv !== undefined) obj.metadata.resourceVersion = rv;
  return bytes;
};

export const decodeObject = (kv: KeyValue): ApiObject => {
  const v = kv.value;
  const obj = JSON.parse(Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8')) as ApiObject;
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
};

export interface WriteOptions {
  dryRun: boolean;
  /** who writes, for metadata.managedFields; absent when the caller records ownership itself (server-side apply) */
  manager?: { name: string; apiVersion: string };
  /** who makes the request, handed to the strategy */
  user?: StrategyContext['user'];
}

export const noAdmission: AdmissionHooks = { mutate: async () => {}, validate: async () => {} };

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface StoreDeps {
  kv: KV;
  names: Naming;
  serviceClusterIpRanges?: string[];
  serviceNodePortRange?: { base: number; size: number };
}

export const objectKey = (info: ResourceInfo, namespace: string, name: string) =>
  info.keyPrefix + (info.namespaced ? `${namespace}/${name}` : name);

const maxRetries = 64;

const generateSuffix = () => {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
};

/** fields that belong to the system and survive an update unchanged */
function keepSystemMeta(obj: ApiObject, old: ApiObject) {
  const m = obj.metadata, o = old.metadata;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  m.namespace = o.namespace;
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp; else delete m.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (o.generation !== undefined) m.generation = o.generation; else delete m.generation;
  if (o.generateName !== undefined && m.generateName === undefined) m.generateName = o.generateName;
}

/** the object's content outside metadata and status, for deciding whether generation moves */
const withoutMeta = (obj: ApiObject) => {
  const { metadata: _m, status: _s, ...rest } = obj as ApiObject & { status?: unknown };
  return JSON.stringify(rest);
};

/** what each subresource may change; everything else keeps its stored value */
const subresourceFields: Record<string, string[][]> = {
  status: [['status']], finalize: [['spec', 'finalizers']], ephemeralcontainers: [['spec', 'ephemeralContainers']],
  approval: [['status', 'conditions']], binding: [['spec', 'nodeName'], ['status', 'conditions']],
};

export function createStore(info: ResourceInfo, strategy: Strategy, deps: StoreDeps) {
  /** fields a write through this path resets rather than sets: status on the main resource, the rest through status */
  const resetFieldsFor = (subresource: string): string[][] | undefined =>
    subresource === 'status' ? [['spec']] : !subresource && 'status' in info.subresources ? [['status']] : undefined;
  const { kv, names } = deps;
  const pendingFinalizers = strategy.pendingFinalizers ?? ((o: ApiObject) => (o.metadata.finalizers?.length ?? 0) > 0);
  const hasStatus = 'status' in info.subresources;
  // a converting resource is handled at the served version and stored at the storage version
  const convert = info.def.convert;
  const storageApiVersion = info.group ? `${info.group}/${info.storageVersion}` : info.storageVersion;
  const fromStored = async (obj: ApiObject) => (convert ? (await convert([obj], info.version))[0] : obj);
  const toStored = async (obj: ApiObject) => (convert ? (await convert([obj], info.storageVersion))[0] : obj);
  const ctx = (user?: StrategyContext['user']): StrategyContext => ({ names, now: nowTimestamp(), kv, keyPrefix: info.keyPrefix,
    serviceClusterIpRanges: deps.serviceClusterIpRanges, serviceNodePortRange: deps.serviceNodePortRange, user });

  const fail = (e: unknown, name: string): never => {
    if (e instanceof ApiError) throw e;
    if (isStorageError(e, 'KeyExists')) throw alreadyExists(info.group, info.resource, name);
    if (isStorageError(e, 'NotFound')) throw notFound(info.group, info.resource, name);
    if (isStorageError(e, 'Compacted')) throw gone(`too old resource version: ${e.message}`);
    if (isStorageError(e, 'TooLarge')) throw tooLarge(e.message);
    if (isStorageError(e)) throw internalError(e.message);
    throw e;
  };

  function checkNamespace(obj: ApiObject, namespace: string) {
    if (info.namespaced) {
      if (obj.metadata.namespace && obj.metadata.namespace !== namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      obj.metadata.namespace = namespace;
    } else {
      delete obj.metadata.namespace;
    }
  }

  /** metadata rules, then the strategy's; a subresource write changes only its own fields, so the main resource's update rules do not apply */
  function validate(obj: ApiObject, old?: ApiObject, subresource = '') {
    const causes: StatusCause[] = validateObjectMeta(obj.metadata, info.namespaced, strategy.nameRule, old?.metadata);
    if (!subresource) causes.push(...(old ? strategy.validateUpdate?.(obj, old) ?? [] : strategy.validate?.(obj) ?? []));
    else if (subresource === 'status' && old) causes.push(...strategy.validateStatusUpdate?.(obj, old) ?? []);
    if (causes.length) throw invalid(info.group, info.kind, obj.metadata.name ?? '', causes);
  }

  /** the writer owns the fields it set or changed (metadata.managedFields); the parts a subresource cannot change are never owned through it */
  function recordOwnership(obj: ApiObject, old: ApiObject | undefined, subresource: string, opts: WriteOptions) {
    if (!opts.manager) return;
    const { managedFields } = updateManagedFields(old, obj, {
      manager: opts.manager.name, apiVersion: opts.manager.apiVersion, time: new Date(), subresource: subresource || undefined,
      resetFields: resetFieldsFor(subresource),
    }, info.schema);
    if (managedFields.length) obj.metadata.managedFields = managedFields; else delete obj.metadata.managedFields;
  }

  async function read(key: string, name: string): Promise<KeyValue> {
    const { kv: cur } = await kv.get(key).catch(e => fail(e, name));
    if (!cur) throw notFound(info.group, info.resource, name);
    return cur;
  }

  const store = {
    info,
    strategy,
    resetFieldsFor,
    /** the apiVersion of the objects the store takes and returns */
    apiVersion: convert ? info.apiVersion : storageApiVersion,

    async get(namespace: string, name: string): Promise<ApiObject> {
      return fromStored(decodeObject(await read(objectKey(info, namespace, name), name)));
    },

    async create(namespace: string, obj: ApiObject, admission: AdmissionHooks, opts: WriteOptions): Promise<ApiObject> {
      checkNamespace(obj, namespace);
      const m = obj.metadata;
      const generated = !m.name && !!m.generateName;
      if (generated) m.name = m.generateName + generateSuffix();
      m.uid = randomUUID();
      m.creationTimestamp = nowTimestamp();
      delete m.resourceVersion;
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
      if (strategy.generation) m.generation = 1; else delete m.generation;
      if (hasStatus && !strategy.prepareForCreate) delete (obj as { status?: unknown }).status;
      await strategy.prepareForCreate?.(obj, ctx(opts.user));
      recordOwnership(obj, undefined, '', opts);
      await admission.mutate('CREATE', obj, undefined);
      validate(obj);
      await admission.validate('CREATE', obj, undefined);
      const key = objectKey(info, namespace, m.name!);
      if (opts.dryRun) {
        const { kv: existing } = await kv.get(key).catch(e => fail(e, m.name!));
        if (existing) throw alreadyExists(info.group, info.resource, m.name!);
        return obj;
      }
      const stored = await toStored(obj);
      // a generated name that is taken is drawn again, so generateName never fails on a collision
      for (let attempt = 0; ; attempt++) {
        try {
          stored.metadata.name = m.name;
          const { kv: written } = await kv.create(objectKey(info, namespace, m.name!), encodeObject(stored));
          m.resourceVersion = String(written.modRevision);
          if (stored === obj) return obj;
          stored.metadata.resourceVersion = m.resourceVersion;
          return fromStored(stored);
        } catch (e) {
          if (generated && attempt < 8 && isStorageError(e, 'KeyExists')) { m.name = m.generateName + generateSuffix(); continue; }
          return fail(e, m.name!);
        }
      }
    },

    /**
     * The one update primitive: read, transform, validate, compare-and-swap, retried on conflict.
     * `transform` gets a private copy of the current object (undefined when absent) and returns the desired one.
     */
    async guaranteedUpdate(
      namespace: string, name: string, subresource: string,
      transform: (current: ApiObject | undefined) => Promise<ApiObject> | ApiObject,
      admission: AdmissionHooks, opts: WriteOptions & { allowCreate?: boolean },
    ): Promise<{ obj: ApiObject; created: boolean }> {
      const key = objectKey(info, namespace, name);
      for (let attempt = 0; attempt < maxRetries; attempt++) {
        const { kv: cur } = await kv.get(key).catch(e => fail(e, name));
        const old = cur ? await fromStored(decodeObject(cur)) : undefined;
        const next = await transform(old ? structuredClone(old) : undefined);
        if (!next || typeof next !== 'object' || !next.metadata) throw badRequest('the object has no metadata');
        if (next.metadata.name !== undefined && next.metadata.name !== name)
          throw badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
        next.metadata.name = name;
        if (!old) {
          if (!opts.allowCreate || subresource) throw notFound(info.group, info.resource, name);
          return { obj: await store.create(namespace, next, admission, opts), created: true };
        }
        checkNamespace(next, namespace);
        const wanted = next.metadata.resourceVersion;
        if (wanted && wanted !== old.metadata.resourceVersion)
          throw conflict(info.group, info.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
        if (!wanted && !strategy.allowUnconditionalUpdate)
          throw invalid(info.group, info.kind, name, [{ reason: 'FieldValueRequired', field: 'metadata.resourceVersion', message: 'Required value: must be specified for an update' }]);
        const shaped = await shapeUpdate(next, old, subresource, opts.user);
        recordOwnership(shaped, old, subresource, opts);
        await admission.mutate('UPDATE', shaped, old);
        validate(shaped, old, subresource);
        await admission.validate('UPDATE', shaped, old);
        shaped.metadata.resourceVersion = old.metadata.resourceVersion;
        if (opts.dryRun) return { obj: shaped, created: false };
        // nothing changed: no write, the same resourceVersion
        const stored = await toStored(shaped);
        const bytes = encodeObject(stored);
        if (Buffer.compare(Buffer.from(bytes), Buffer.from(cur!.value)) === 0) return { obj: old, created: false };
        // the last finalizer of an object being deleted is gone: the update completes the deletion
        if (shaped.metadata.deletionTimestamp && !pendingFinalizers(shaped)) {
          try {
            const { revision } = await kv.delete(key, cur!.modRevision);
            shaped.metadata.resourceVersion = String(revision);
            return { obj: shaped, created: false };
          } catch (e) {
            if (isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound')) continue;
            return fail(e, name);
          }
        }
        try {
          const { kv: written } = await kv.update(key, bytes, cur!.modRevision);
          shaped.metadata.resourceVersion = String(written.modRevision);
          if (stored === shaped) return { obj: shaped, created: false };
          stored.metadata.resourceVersion = shaped.metadata.resourceVersion;
          return { obj: await fromStored(stored), created: false };
        } catch (e) {
          if (isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound')) continue;
          return fail(e, name);
        }
      }
      throw conflict(info.group, info.resource, name, 'too many concurrent updates; please try again');
    },

    async delete(namespace: string, name: string, options: DeleteOptions, admission: AdmissionHooks)
      : Promise<{ obj: ApiObject; deleted: boolean }> {
      const key = objectKey(info, namespace, name);
      for (let attempt = 0; attempt < maxRetries; attempt++) {
        const cur = await read(key, name);
        const obj = await fromStored(decodeObject(cur));
        const pre = options.preconditions;
        if (pre?.uid && pre.uid !== obj.metadata.uid)
          throw conflict(info.group, info.resource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`);
        if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion)
          throw conflict(info.group, info.resource, name,
            `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`);
        await admission.validate('DELETE', undefined, obj);
        const grace = options.gracePeriodSeconds ?? strategy.defaultGracePeriod?.(obj) ?? 0;
        if (pendingFinalizers(obj) || grace > 0) {
          const m = obj.metadata;
          // already being deleted: only a shorter grace period changes anything
          if (m.deletionTimestamp && (m.deletionGracePeriodSeconds ?? 0) <= grace) return { obj, deleted: false };
          m.deletionTimestamp = nowTimestamp(new Date(Date.now() + grace * 1000));
          m.deletionGracePeriodSeconds = grace;
          if (strategy.generation) m.generation = (m.generation ?? 0) + 1;
          strategy.prepareForDelete?.(obj);
          if (options.dryRun) return { obj, deleted: false };
          try {
            const { kv: written } = await kv.update(key, encodeObject(await toStored(obj)), cur.modRevision);
            m.resourceVersion = String(written.modRevision);
            return { obj, deleted: false };
          } catch (e) {
            if (isStorageError(e, 'Conflict')) continue;
            return fail(e, name);
          }
        }
        if (options.dryRun) return { obj, deleted: true };
        try {
          const { revision } = await kv.delete(key, cur.modRevision);
          obj.metadata.resourceVersion = String(revision);
          return { obj, deleted: true };
        } catch (e) {
          if (isStorageError(e, 'Conflict')) continue;
          return fail(e, name);
        }
      }
      throw conflict(info.group, info.resource, name, 'too many concurrent updates; please try again');
    },
  };

  /** the rules that hold for every update: system metadata kept, status and the rest each changed only through their own path */
  async function shapeUpdate(next: ApiObject, old: ApiObject, subresource: string, user?: StrategyContext['user']): Promise<ApiObject> {
    type WithStatus = ApiObject & { status?: unknown };
    const fields = subresourceFields[subresource];
    if (fields) {
      // a subresource changes its own fields only
      const shaped = structuredClone(old) as Record<string, any>;
      for (const path of fields) {
        let src: any = next, dst: any = shaped;
        for (const f of path.slice(0, -1)) { src = src?.[f]; dst = dst[f] ??= {}; }
        const last = path[path.length - 1];
        if (src?.[last] === undefined) delete dst[last]; else dst[last] = src[last];
      }
      shaped.metadata.resourceVersion = next.metadata.resourceVersion;
      next = shaped as ApiObject;
    } else {
      keepSystemMeta(next, old);
      if (hasStatus) {
        const s = (old as WithStatus).status;
        if (s === undefined) delete (next as WithStatus).status; else (next as WithStatus).status = structuredClone(s);
      }
    }
    // no new finalizers once deletion has started
    if (old.metadata.deletionTimestamp) {
      const had = new Set(old.metadata.finalizers ?? []);
      const added = (next.metadata.finalizers ?? []).filter(f => !had.has(f));
      if (added.length) throw invalid(info.group, info.kind, old.metadata.name ?? '', [{ reason: 'FieldValueForbidden', field: 'metadata.finalizers',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` }]);
    }
    if (!fields) await strategy.prepareForUpdate?.(next, old, ctx(user));
    if (strategy.generation && !fields && withoutMeta(next) !== withoutMeta(old))
      next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    return next;
  }

  return store;
}

export type Store = ReturnType<typeof createStore>;
