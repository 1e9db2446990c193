// The generic store: every resource's get, create, update, patch and delete, driven by its definition and
// strategy. Every write goes through compare-and-swap on the storage revision and is retried on conflict, with
// admission and validation inside the loop so they see the object they will replace. A write takes the
// reference's steps in its order: defaults (as decoding applies them), the field manager, mutating admission, the
// strategy's prepare, validation (object metadata, then the strategy's rules), validating admission, storage.
import { randomUUID } from 'node:crypto';
import type { ApiObject, StatusCause } from '../api/meta.js';
import type { StoredObject } from '../api/cache.js';
import { nowTimestamp } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import { decodedAgain, sameContent, type ObjectStore, type UpdateDecision } from '../storage/objects.js';
import { isStorageError } from '../storage/types.js';
import { formatResourceVersion, parseResourceVersion } from '../api/resource-version.js';
import type { DeleteOptions, FieldPath, ResourceInfo, UpdateOnlyOptions, WriteOptions } from './types.js';
import type { AdmissionHooks } from '../api/admission.js';
import type { Strategy, StrategyContext } from './strategy.js';
import { validateObjectMeta } from './validation/object-meta.js';
import { forbidden } from './validation/fields.js';
import { privilegedCauses } from './validation/pod-spec.js';
import { updateManagedFieldsInSteps } from '../apply/managed-fields.js';
import { deepEqual } from '../apply/typed.js';
import { alreadyExists, badRequest, conflict, invalid, notFound } from '../api/status.js';
import { storageFailure } from './errors.js';
import { deepCopy } from '../util/objects.js';
import { breather, inSteps } from '../util/slices.js';
import { canonicalForm } from '../schema/fields.js';

export const noAdmission: AdmissionHooks = { mutate: async () => {}, validate: async () => {} };

export interface StoreDeps {
  objects: ObjectStore;
  names: Naming;
  serviceClusterIpRanges?: string[];
  serviceNodePortRange?: { base: number; size: number };
  /** --feature-gates, for strategies that drop the fields of a gated feature */
  featureGates?: Readonly<Record<string, boolean>>;
  /** --allow-privileged: pod specs may ask for privileged containers (default true) */
  allowPrivileged?: boolean;
}

export const objectKey = (info: ResourceInfo, namespace: string, name: string) =>
  info.keyPrefix + (info.namespaced ? `${namespace}/${name}` : name);

const generateSuffix = () => {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let s = '';
  for (let i = 0; i < 5; i++) s += alphabet[Math.floor(Math.random() * alphabet.length)];
  return s;
};

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';

/**
 * Sets the garbage collector's finalizers of an object being deleted, by the reference's rules: an explicit
 * policy wins, then a finalizer the object already has, then the kind's default; `orphan` leaves the
 * dependents, `foregroundDeletion` keeps the object until its blocking dependents are gone. Returns
 * whether the finalizers changed.
 */
function applyPropagation(obj: ApiObject, options: DeleteOptions, orphanByDefault: boolean): boolean {
  const before = obj.metadata.finalizers ?? [];
  let orphan: boolean;
  let foreground = false;
  if (options.orphanDependents !== undefined) orphan = options.orphanDependents;
  else if (options.propagationPolicy) { orphan = options.propagationPolicy === 'Orphan'; foreground = options.propagationPolicy === 'Foreground'; }
  else if (before.includes(orphanFinalizer)) orphan = true;
  else if (before.includes(foregroundFinalizer)) { orphan = false; foreground = true; }
  else orphan = orphanByDefault;
  const after = [...before.filter(f => f !== orphanFinalizer && f !== foregroundFinalizer),
    ...(orphan ? [orphanFinalizer] : []), ...(foreground ? [foregroundFinalizer] : [])];
  if (after.length === before.length && after.every(f => before.includes(f))) return false;
  if (after.length) obj.metadata.finalizers = after; else delete obj.metadata.finalizers;
  return true;
}

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

/** the object's content outside metadata (and outside status unless the strategy counts it), for deciding whether generation moves */
const generationContent = (obj: ApiObject, withStatus: boolean) => {
  const { metadata: _m, status, ...rest } = obj;
  return JSON.stringify(withStatus ? { ...rest, status } : rest);
};

type Fields = Record<string, unknown>;

/** the object with each field of `paths` taken from `from` (absent there: removed) */
function withFields(to: Fields, from: Fields, paths: readonly FieldPath[]): void {
  for (const path of paths) {
    let src: unknown = from, dst = to;
    for (const f of path.slice(0, -1)) {
      src = src && typeof src === 'object' ? (src as Fields)[f] : undefined;
      dst = (dst[f] ??= {}) as Fields;
    }
    const last = path[path.length - 1];
    const value = src && typeof src === 'object' ? (src as Fields)[last] : undefined;
    if (value === undefined) delete dst[last]; else dst[last] = value;
  }
}

/** finalizers may not be added once deletion has started */
function newFinalizers(obj: ApiObject, old: ApiObject): StatusCause[] {
  if (!old.metadata.deletionTimestamp) return [];
  const had = new Set(old.metadata.finalizers ?? []);
  const added = (obj.metadata.finalizers ?? []).filter(f => !had.has(f));
  return added.length ? [forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`)] : [];
}

/** whether two stored objects hold the same fields and values, in whatever order, their resourceVersions aside */
function sameFields(a: ApiObject, b: ApiObject): boolean {
  const { metadata: { resourceVersion: _a, ...am }, ...ar } = a;
  const { metadata: { resourceVersion: _b, ...bm }, ...br } = b;
  return deepEqual(am, bm) && deepEqual(ar, br);
}

export function createStore(info: ResourceInfo, strategy: Strategy, deps: StoreDeps) {
  /** fields a write through this path resets rather than sets: status on the main resource, the rest through status */
  const resetFieldsFor = (subresource: string): string[][] | undefined =>
    subresource === 'status' ? [['spec']] : !subresource && 'status' in info.subresources ? [['status']] : undefined;
  const { objects, names } = deps;
  /** the fields a subresource served by this store may change (undefined: the main resource's path) */
  const changesOf = (subresource: string) => (subresource ? info.subresources[subresource]?.changes : undefined);
  const pendingFinalizers = strategy.pendingFinalizers ?? ((o: ApiObject) => (o.metadata.finalizers?.length ?? 0) > 0);
  const hasStatus = 'status' in info.subresources;
  // a converting resource is handled at the served version and stored at the storage version
  const convert = info.def.convert;
  const storageApiVersion = info.storageApiVersion;
  const fromStored = async (obj: ApiObject) => (convert ? (await convert([obj], info.apiVersion, names))[0] : obj);
  const toStored = async (obj: ApiObject) => (convert ? (await convert([obj], storageApiVersion, names))[0] : obj);
  /**
   * The grace period a delete gives the object, as the reference's: none for a kind without graceful deletion, whatever
   * the delete asks; for an object already being deleted, the one running unless a shorter one is asked (none when none
   * runs); otherwise the strategy's, from the one asked.
   */
  const gracePeriod = (obj: ApiObject, running: number | undefined, asked: number | undefined): number => {
    if (!strategy.gracePeriod) return 0;
    // a negative one means a second, as the reference reads it on the delete path
    const requested = asked !== undefined && asked < 0 ? 1 : asked;
    if (running === undefined) return strategy.gracePeriod(obj, requested);
    return running > 0 ? Math.min(requested ?? running, running) : 0;
  };
  /** a write's strategy context; settle(stored) runs what strategies left for when the write's outcome is known */
  function writeContext(opts: { user?: StrategyContext['user']; dryRun?: boolean }) {
    const finishers: Array<(stored: boolean) => Promise<void> | void> = [];
    const ctx: StrategyContext = {
      names, now: nowTimestamp(), objects, keyPrefix: info.keyPrefix, user: opts.user, dryRun: opts.dryRun,
      serviceClusterIpRanges: deps.serviceClusterIpRanges, serviceNodePortRange: deps.serviceNodePortRange, featureGates: deps.featureGates,
      onFinish: finish => { finishers.push(finish); },
    };
    // what a failed write took is given back as well as storage allows; the strategy's repair frees what is left
    const settle = async (stored: boolean) => {
      for (const finish of finishers.splice(0)) await (stored ? finish(true) : Promise.resolve().then(() => finish(false)).catch(() => {}));
    };
    return { ctx, settle };
  }
  /** the defaults decoding applies; run again on whatever a mutating webhook returns */
  const applyDefaults = (obj: ApiObject) => strategy.defaults?.(obj, { names });

  const fail = (e: unknown, name: string, revision?: number): never => {
    throw storageFailure(e, { group: info.group, resource: info.resource, name, revision }) ?? e;
  };

  /** a delete's preconditions, checked against the object read (again at each attempt) before anything else looks at
   *  it, in the reference's words */
  function checkDeletePreconditions(obj: ApiObject, p: DeleteOptions['preconditions']) {
    const m = obj.metadata;
    const why = p?.uid && p.uid !== m.uid
      ? `the UID in the precondition (${p.uid}) does not match the UID in record (${m.uid}). The object might have been deleted and then recreated`
      : p?.resourceVersion && p.resourceVersion !== m.resourceVersion
        ? `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${m.resourceVersion}). The object might have been modified`
        : undefined;
    if (why) throw conflict(info.group, info.kind, m.name ?? '', why);
  }

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
  async function validate(obj: ApiObject, old?: ApiObject, subresource = '', warn?: (message: string) => void) {
    const causes: StatusCause[] = validateObjectMeta(obj.metadata, info.namespaced, strategy.nameRule, old?.metadata);
    if (old) causes.push(...newFinalizers(obj, old));
    const own = !subresource ? (old ? strategy.validateUpdate?.(obj, old, { names }) : strategy.validate?.(obj, { names })) ?? []
      : !old ? []
      : subresource === 'status' ? strategy.validateStatusUpdate?.(obj, old) ?? []
      : strategy.validateSubresourceUpdate?.(subresource, obj, old) ?? [];
    causes.push(...own);
    if (strategy.validateInSteps) causes.push(...await strategy.validateInSteps(obj, old, subresource, own));
    if (!subresource && deps.allowPrivileged === false) for (const [at, spec] of strategy.podSpecs?.(obj) ?? []) causes.push(...privilegedCauses(at, spec));
    if (causes.length) throw invalid(info.group, info.kind, obj.metadata.name ?? '', causes);
    if (!subresource && warn) for (const w of strategy.warnings?.(obj, old, { names }) ?? []) warn(w);
  }

  /** the writer owns the fields it set or changed (metadata.managedFields); the parts a subresource cannot change are never owned through it */
  async function recordOwnership(obj: ApiObject, old: ApiObject | undefined, subresource: string, opts: WriteOptions) {
    if (!opts.manager) return;
    const { managedFields } = await inSteps(updateManagedFieldsInSteps(old, obj, {
      manager: opts.manager.name, apiVersion: opts.manager.apiVersion, time: new Date(), subresource: opts.manager.subresource ?? (subresource || undefined),
      resetFields: resetFieldsFor(subresource),
    }, info.schema));
    if (managedFields.length) obj.metadata.managedFields = managedFields; else delete obj.metadata.managedFields;
  }

  const store = {
    info,
    strategy,
    resetFieldsFor,
    applyDefaults,
    /** a stored object at the version this store serves */
    fromStored,
    /** the apiVersion of the objects the store takes and returns */
    apiVersion: convert ? info.apiVersion : storageApiVersion,

    /**
     * resourceVersion: unset reads the latest; "0" takes any version (the watch cache's, when it holds the resource);
     * another value waits until the server has seen it (504 when it never comes)
     */
    async get(namespace: string, name: string, resourceVersion?: string): Promise<ApiObject> {
      return fromStored((await store.getStored(namespace, name, resourceVersion)).obj);
    },

    /** get's object as stored (at the storage version), with its JSON bytes when they are at hand; shared: the
     *  caller only reads it (it may be the watch cache's own) */
    async getStored(namespace: string, name: string, resourceVersion?: string, shared = false): Promise<StoredObject> {
      const cur = await store.findStored(namespace, name, resourceVersion, shared);
      if (!cur) throw notFound(info.group, info.resource, name);
      return cur;
    },

    /** getStored, with undefined for an object that is not there (a miss makes no error: readers that expect misses
     *  ask this) */
    async findStored(namespace: string, name: string, resourceVersion?: string, shared = false): Promise<StoredObject | undefined> {
      const revision = parseResourceVersion(resourceVersion);
      return objects.get(objectKey(info, namespace, name), { revision, shared }).catch(e => fail(e, name, revision));
    },

    async create(namespace: string, obj: ApiObject, admission: AdmissionHooks, opts: WriteOptions): Promise<ApiObject> {
      const w = writeContext(opts);
      try {
        const created = await create(namespace, obj, admission, opts, w.ctx);
        await w.settle(!opts.dryRun);
        return created;
      } catch (e) {
        await w.settle(false);
        throw e;
      }
    },

    /**
     * The one update primitive: read, transform, validate, compare-and-swap, retried on conflict.
     * `transform` gets a private copy of the current object (undefined when absent) and returns the desired one;
     * with opts.replaces, the current object itself, which it must leave alone.
     */
    async guaranteedUpdate(
      namespace: string, name: string, subresource: string,
      transform: (current: ApiObject | undefined) => Promise<ApiObject> | ApiObject,
      admission: AdmissionHooks, opts: WriteOptions & UpdateOnlyOptions,
    ): Promise<{ obj: ApiObject; created: boolean }> {
      const key = objectKey(info, namespace, name);
      let old: ApiObject | undefined, shaped: ApiObject | undefined, absent: ApiObject | undefined;
      let decision: UpdateDecision | undefined;
      let attempt: ReturnType<typeof writeContext> | undefined;
      try {
        const result = await objects.update(key, async cur => {
          // an attempt that lost the race gives back what it took
          await attempt?.settle(false);
          attempt = writeContext(opts);
          old = shaped = absent = undefined;
          // (a breather counts the turn from its first call: this one times the decoding that follows)
          await breather();
          const decoded = cur?.obj;
          old = cur ? await fromStored(decoded!) : undefined;
          // an object stored before quantities were canonical compares as the reference reads it
          if (old && !info.def.custom) old = canonicalForm(info.schema, old);
          await breather();
          // the transform's own copy: the stored text decoded again where old is that text's object as it is
          const copy = !old || opts.replaces ? old : (old === decoded && decodedAgain(cur!)) || deepCopy(old);
          await breather();
          const next = await transform(copy);
          await breather();
          if (!next || typeof next !== 'object' || !next.metadata) throw badRequest('the object has no metadata');
          if (next.metadata.name !== undefined && next.metadata.name !== name)
            throw badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
          next.metadata.name = name;
          if (!old) {
            if (!opts.allowCreate || subresource) throw notFound(info.group, info.resource, name);
            absent = next;
            return decision = { skip: true };
          }
          checkNamespace(next, namespace);
          // a uid in the body guards against writing to another object of the same name: a replaced object's uid
          // is a precondition (409), a patch that changes it is invalid, as the reference treats them
          const uid = next.metadata.uid;
          if (uid && uid !== old.metadata.uid) {
            if (opts.replaces) throw conflict(info.group, info.resource, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid}`);
            throw invalid(info.group, info.kind, name, [{ reason: 'FieldValueInvalid', field: 'metadata.uid', message: `Invalid value: ${JSON.stringify(uid)}: field is immutable` }]);
          }
          const wanted = next.metadata.resourceVersion;
          if (wanted && wanted !== old.metadata.resourceVersion)
            throw conflict(info.group, info.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
          if (!wanted && !strategy.allowUnconditionalUpdate)
            throw invalid(info.group, info.kind, name, [{ reason: 'FieldValueRequired', field: 'metadata.resourceVersion', message: 'Required value: must be specified for an update' }]);
          applyDefaults(next);
          const written = writable(next, old, subresource);
          await recordOwnership(written, old, subresource, opts);
          await breather();
          await admission.mutate('UPDATE', written, old);
          checkNamespace(written, namespace);
          shaped = await prepareUpdate(written, old, subresource, attempt.ctx);
          await validate(shaped, old, subresource, opts.warn);
          await breather();
          await admission.validate('UPDATE', shaped, old);
          await breather();
          shaped.metadata.resourceVersion = old.metadata.resourceVersion;
          if (opts.dryRun) return decision = { skip: true };
          const stored = await toStored(shaped);
          // the last finalizer of an object being deleted is gone: a change completes the deletion, unless its grace
          // period still runs (a terminating pod: its agent's status writes and others' changes keep it until the agent
          // deletes it with no grace), as the reference's ShouldDeleteDuringUpdate
          const graceRuns = (old.metadata.deletionGracePeriodSeconds ?? 0) > 0;
          if (shaped.metadata.deletionTimestamp && !graceRuns && !pendingFinalizers(shaped) && !sameContent(stored, cur!.obj)) return decision = { delete: true };
          // the same fields in another order (a client that sorts keys, a typed client's field order) are no change:
          // the reference compares objects in its own encoding, so such an update writes nothing
          if (sameFields(stored, cur!.obj)) return decision = { put: cur!.obj };
          return decision = { put: stored };
        }).catch(e => fail(e, name));
        const written = !!decision && 'put' in decision && result!.obj === decision.put;
        await attempt?.settle(written);
        if (absent) {
          try {
            return { obj: await store.create(namespace, absent, admission, opts), created: true };
          } catch (e) {
            // another writer created it since it was read as absent: the change applies to what they wrote
            if ((e as { reason?: string }).reason !== 'AlreadyExists') throw e;
            return await store.guaranteedUpdate(namespace, name, subresource, transform, admission, opts);
          }
        }
        if (!decision || 'skip' in decision) return { obj: shaped!, created: false };
        if ('delete' in decision) {
          await strategy.afterDelete?.(old!, writeContext(opts).ctx);
          shaped!.metadata.resourceVersion = formatResourceVersion(result!.rev);
          return { obj: shaped!, created: false };
        }
        // nothing changed: no write, the same resourceVersion
        if (!written) return { obj: old!, created: false };
        if (decision.put === shaped) return { obj: shaped, created: false };
        return { obj: await fromStored(decision.put), created: false };
      } catch (e) {
        await attempt?.settle(false);
        throw e;
      }
    },

    async delete(namespace: string, name: string, options: DeleteOptions, admission: AdmissionHooks)
      : Promise<{ obj: ApiObject; deleted: boolean }> {
      let outcome!: { obj: ApiObject; deleted: boolean };
      const result = await objects.update(objectKey(info, namespace, name), async (cur): Promise<UpdateDecision> => {
        if (!cur) throw notFound(info.group, info.resource, name);
        await breather();
        const obj = await fromStored(cur.obj);
        await breather();
        checkDeletePreconditions(obj, options.preconditions);
        await admission.validate('DELETE', undefined, obj);
        const gcChanged = applyPropagation(obj, options, !!strategy.orphanDependentsByDefault);
        const m = obj.metadata;
        const running = m.deletionTimestamp ? m.deletionGracePeriodSeconds ?? 0 : undefined;
        const grace = gracePeriod(obj, running, options.gracePeriodSeconds);
        if (pendingFinalizers(obj) || grace > 0) {
          outcome = { obj, deleted: false };
          // already being deleted: only a shorter grace period or another propagation policy changes anything
          if (running !== undefined && grace >= running)
            return gcChanged && !options.dryRun ? { put: await toStored(obj) } : { skip: true };
          if (running !== undefined) {
            // a shorter grace period moves the deadline back by the difference
            m.deletionTimestamp = nowTimestamp(new Date(Date.parse(m.deletionTimestamp!) - (running - grace) * 1000));
            m.deletionGracePeriodSeconds = grace;
          } else {
            m.deletionTimestamp = nowTimestamp(new Date(Date.now() + grace * 1000));
            m.deletionGracePeriodSeconds = grace;
            if (strategy.generation) m.generation = (m.generation ?? 0) + 1;
            strategy.prepareForDelete?.(obj);
          }
          return options.dryRun ? { skip: true } : { put: await toStored(obj) };
        }
        outcome = { obj, deleted: true };
        return options.dryRun ? { skip: true } : { delete: true };
      }).catch(e => fail(e, name));
      if (options.dryRun) return outcome;
      outcome.obj.metadata.resourceVersion = formatResourceVersion(result!.rev);
      if (outcome.deleted) await strategy.afterDelete?.(outcome.obj, writeContext({}).ctx);
      return outcome;
    },
  };

  async function create(namespace: string, obj: ApiObject, admission: AdmissionHooks, opts: WriteOptions, ctx: StrategyContext): Promise<ApiObject> {
    checkNamespace(obj, namespace);
    await breather();
    applyDefaults(obj);
    await recordOwnership(obj, undefined, '', opts);
    await breather();
    await admission.mutate('CREATE', obj, undefined);
    // a webhook may not move the object to another namespace: its key is the request's
    checkNamespace(obj, namespace);
    // the system's fields come after mutating admission, as in the reference: webhooks see a generateName create
    // without a name, uid or creation time
    const m = obj.metadata;
    const generated = !m.name && !!m.generateName;
    if (generated) m.name = m.generateName + generateSuffix();
    m.uid = randomUUID();
    m.creationTimestamp = nowTimestamp();
    delete m.resourceVersion;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (strategy.generation) m.generation = 1; else delete m.generation;
    // a new object's status is the server's to set, but for the kinds whose creators report it
    if (hasStatus && !strategy.keepsStatusOnCreate) delete obj.status;
    await strategy.prepareForCreate?.(obj, ctx);
    await validate(obj, undefined, '', opts.warn);
    await breather();
    await admission.validate('CREATE', obj, undefined);
    await breather();
    const key = objectKey(info, namespace, m.name!);
    /** the name is taken: by an object being deleted, the message says so (a namespace re-created while it terminates) */
    const taken = async (name: string, existing?: StoredObject) => {
      const other = existing ?? await objects.get(objectKey(info, namespace, name)).catch(() => undefined);
      return alreadyExists(info.group, info.resource, name, !!other?.obj.metadata.deletionTimestamp);
    };
    if (opts.dryRun) {
      const existing = await objects.get(key).catch(e => fail(e, m.name!));
      if (existing) throw await taken(m.name!, existing);
      return obj;
    }
    const stored = await toStored(obj);
    // a generated name that is taken is drawn again, so generateName never fails on a collision
    for (let attempt = 0; ; attempt++) {
      try {
        stored.metadata.name = m.name;
        await objects.create(objectKey(info, namespace, m.name!), stored);
        if (stored === obj) return obj;
        m.resourceVersion = stored.metadata.resourceVersion;
        return fromStored(stored);
      } catch (e) {
        if (generated && attempt < 8 && isStorageError(e, 'KeyExists')) { m.name = m.generateName + generateSuffix(); continue; }
        if (isStorageError(e, 'KeyExists')) throw await taken(m.name!);
        return fail(e, m.name!);
      }
    }
  }

  /**
   * What a write through this path may change, the rest kept as stored: a subresource changes its own fields only;
   * the main resource keeps the system's metadata, and its status when status has a path of its own. Applied before
   * the field manager (so it records what is written) and again after mutating admission (which may not overstep it).
   */
  function writable(next: ApiObject, old: ApiObject, subresource: string): ApiObject {
    const fields = changesOf(subresource);
    if (fields) {
      const shaped = deepCopy(old);
      withFields(shaped, next, fields);
      shaped.metadata.resourceVersion = next.metadata.resourceVersion;
      if (next.metadata.managedFields === undefined) delete shaped.metadata.managedFields;
      else shaped.metadata.managedFields = next.metadata.managedFields;
      return shaped;
    }
    keepSystemMeta(next, old);
    if (hasStatus) {
      if (old.status === undefined) delete next.status; else next.status = deepCopy(old.status);
    }
    return next;
  }

  /** after mutating admission: the path's limits again, the strategy's prepare, and the generation */
  async function prepareUpdate(next: ApiObject, old: ApiObject, subresource: string, ctx: StrategyContext): Promise<ApiObject> {
    const shaped = writable(next, old, subresource);
    if (changesOf(subresource)) {
      await strategy.prepareForSubresourceUpdate?.(subresource, shaped, old, ctx);
      return shaped;
    }
    await strategy.prepareForUpdate?.(shaped, old, ctx);
    const withStatus = !!strategy.generationCountsStatus;
    if (strategy.generation && generationContent(shaped, withStatus) !== generationContent(old, withStatus))
      shaped.metadata.generation = (old.metadata.generation ?? 0) + 1;
    return shaped;
  }

  return store;
}

export type Store = ReturnType<typeof createStore>;
