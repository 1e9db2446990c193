// What a verb handler needs to serve one resource at one version, and the helpers all handlers share.
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import { admissionFor } from '../admission/chain.js';
import { readTyped } from '../schema/fields.js';
import type { RequestContext } from '../api/request.js';
import { kindAt, type ResourceInfo } from '../registry/resources.js';
import type { Store } from '../registry/store.js';
import type { Reads, Filter } from '../registry/reads.js';
import type { Strategy } from '../registry/strategy.js';
import { parseLabelSelector, matchLabels, parseFieldSelector, fieldSelectorRequires, type FieldSelector } from '../api/selectors.js';
import { badRequest } from '../api/status.js';
import type { Authorizer } from '../api/auth.js';
import type { AdmissionPlugin, AdmissionHooks } from '../api/admission.js';
import type { StoredObject } from '../api/cache.js';
import { decodeManagedFields } from '../apply/managed-fields.js';

export interface Scope {
  info: ResourceInfo;
  subresource: string;
  store: Store;
  reads: Reads;
  strategy: Strategy;
  names: Naming;
  plugins: AdmissionPlugin[];
  /** for checks beyond the request's own verb (creating through apply needs create too) */
  authorizer?: Authorizer;
  bookmarkIntervalMs: number;
  /** watches without timeoutSeconds end after a random time between this and twice this */
  minRequestTimeoutSeconds: number;
  /** how many deletes a DELETE of a collection runs at once (--delete-collection-workers); 1 when absent */
  deleteCollectionWorkers?: number;
  /** a watch event of this resource was sent, of this many bytes (for apiserver_watch_events_total and _sizes) */
  watchEventSent?(info: ResourceInfo, bytes: number): void;
  /** calls fn once this resource is no longer served as it was (a CRD deleted or changed); the answer unsubscribes */
  whenReplaced?(fn: () => void): () => void;
}

export function admission(ctx: RequestContext, scope: Scope, namespace: string, name: string, dryRun: boolean,
  options?: Record<string, unknown>): AdmissionHooks {
  const { info } = scope;
  return keepingManagedFieldsReadable(ctx, admissionFor(scope.plugins, {
    group: info.group, version: info.version, resource: info.resource, subresource: scope.subresource, kind: kindAt(info, scope.subresource, scope.names),
    namespace, name, dryRun, ...(options ? { options } : {}), user: ctx.user, warn: message => ctx.warnings.push(message), decode: obj => decodeChanged(scope, obj),
    annotate: ctx.audit && ((key, value, level) => ctx.audit!.annotate(key, value, level)),
  }));
}

/**
 * managedFields that mutating admission (an outdated webhook) left unreadable are put back as they were before it,
 * with a warning, as the reference's admission chain does: the write goes on, and field ownership keeps working.
 * A webhook's change replaces the object's fields, so unchanged ones are the very list they were.
 */
function keepingManagedFieldsReadable(ctx: RequestContext, hooks: AdmissionHooks): AdmissionHooks {
  return {
    validate: hooks.validate,
    async mutate(op, obj, old) {
      const before = obj?.metadata?.managedFields;
      await hooks.mutate(op, obj, old);
      if (!obj?.metadata || obj.metadata.managedFields === before) return;
      try { decodeManagedFields(obj.metadata.managedFields); } catch (e) {
        if (before === undefined) delete obj.metadata.managedFields; else obj.metadata.managedFields = before;
        ctx.warnings.push(`.metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: ${(e as Error).message}`);
      }
    },
  };
}

/**
 * The wrong types of a custom object's metadata, read as every object's is (the reference decodes it as ObjectMeta,
 * null entries of its lists and maps read as empty strings); the rest of a custom object is its schema's to judge
 */
export function customMetadataWrongTypes(scope: Scope, obj: unknown): string[] {
  const metadata = scope.info.schema?.properties?.metadata;
  if (!scope.info.def.custom || !metadata || obj === null || typeof obj !== 'object') return [];
  return readTyped({ type: 'object', properties: { metadata } }, { metadata: (obj as ApiObject).metadata }, { zeroNulls: true }).wrongTypes;
}

/** an object admission changed, read as a body of the kind is (custom resources are checked by their schema later);
 *  a subresource's own kind (a Scale) by its schema, with no defaults of the resource's */
function decodeChanged(scope: Scope, obj: ApiObject) {
  const sub = scope.subresource ? scope.info.subresources[scope.subresource] : undefined;
  if (sub?.kind) {
    const { wrongTypes } = readTyped(sub.schema, obj, { canonicalQuantities: true, canonicalTimes: true, omitEmpty: true, zeroNulls: true });
    if (wrongTypes.length) throw new Error(`${sub.kind} in version "${sub.version ?? scope.info.version}" cannot be handled as a ${sub.kind}: ${wrongTypes.join(', ')}`);
    return;
  }
  const wrongTypes = scope.info.def.custom ? customMetadataWrongTypes(scope, obj)
    : readTyped(scope.info.schema, obj, { canonicalQuantities: true, canonicalTimes: true, omitEmpty: true, zeroNulls: true }).wrongTypes;
  if (wrongTypes.length) throw new Error(`${scope.info.kind} in version "${scope.info.version}" cannot be handled as a ${scope.info.kind}: ${wrongTypes.join(', ')}`);
  scope.store.applyDefaults(obj);
}

/** the object as the requested version names it */
export function asServed(scope: Scope, obj: ApiObject): ApiObject {
  if (obj.apiVersion === scope.info.apiVersion && obj.kind === scope.info.kind) return obj;
  return { ...obj, apiVersion: scope.info.apiVersion, kind: scope.info.kind };
}

// what each definition made of each stored object, kept while both live: an object is brought up to date once, as
// the reference's cache holds objects decoded once, and its bytes are then made once for every read that sends it
const readByDefinition = new WeakMap<object, WeakMap<ApiObject, StoredObject>>();

/** a stored object as its definition reads it now (ResourceDefinition.fromStorage): itself, or a new item */
export function readItem(scope: Scope, item: StoredObject): StoredObject {
  const fromStorage = scope.info.def.fromStorage;
  if (!fromStorage) return item;
  let read = readByDefinition.get(fromStorage);
  if (!read) readByDefinition.set(fromStorage, read = new WeakMap());
  let out = read.get(item.obj);
  if (!out) {
    const fresh = fromStorage(item.obj, item.rev);
    out = fresh ? { key: item.key, rev: item.rev, obj: fresh } : item;
    read.set(item.obj, out);
  }
  return out;
}

/** cached objects (at the storage version) as the requested version has them, converted in one batch by a
 *  converting resource; items that need no conversion are returned as they are, so their cached bytes serve */
export async function servedItems(scope: Scope, stored: StoredObject[]): Promise<StoredObject[]> {
  const { convert, fromStorage } = scope.info.def;
  const items = fromStorage ? stored.map(i => readItem(scope, i)) : stored;
  if (!convert || items.every(i => i.obj.apiVersion === scope.info.apiVersion)) return items;
  const objects = await convert(items.map(i => i.obj), scope.info.apiVersion, scope.names);
  return items.map((item, n) => (objects[n] === item.obj ? item : { key: item.key, rev: item.rev, obj: objects[n] }));
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function parseFieldValidation(v: string | null): FieldValidation {
  if (v === null || v === '') return 'Warn';
  if (v === 'Ignore' || v === 'Warn' || v === 'Strict') return v;
  throw badRequest(`fieldValidation: Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
}

/** fields a watch cache indexes its watchers by, in order of preference: a node agent's pods, its own Node */
const indexedFields = ['spec.nodeName', 'metadata.name'];
/** an object's storage key ends with its name (names hold no slash) */
const nameInKey = (key: string) => key.slice(key.lastIndexOf('/') + 1);

/**
 * The namespace and selector filter of a list or watch. The selectors are parsed once and each term is bound to its
 * field's getter, so matching an object reads only the fields the selector names.
 */
export function filterFor(ctx: RequestContext, scope: Scope, namespace: string): Filter {
  const ls = ctx.query.get('labelSelector') ?? '';
  const fs = ctx.query.get('fieldSelector') ?? '';
  const label = ls ? parseLabelSelector(ls) : undefined;
  let field: FieldSelector | undefined;
  const getters: Record<string, (o: ApiObject) => string | undefined> = {
    'metadata.name': o => o.metadata.name,
    // every kind accepts metadata.namespace (the parser's defaults); a cluster-scoped object has none, so it reads as empty
    'metadata.namespace': o => o.metadata.namespace,
    ...scope.strategy.selectableFields,
  };
  if (fs) field = parseFieldSelector(fs, new Set(Object.keys(getters)));
  if (!label && !field) return { namespace, selective: false };
  // a missing field reads as the empty string, as in the reference
  const terms = (field?.terms ?? []).map(({ field: name, operator, value }) => {
    const get = getters[name];
    return operator === '=' ? (o: ApiObject) => (get(o) ?? '') === value : (o: ApiObject) => (get(o) ?? '') !== value;
  });
  const pinned = field && indexedFields.find(f => fieldSelectorRequires(field!, f) !== undefined);
  return {
    namespace, selective: true,
    ...(pinned ? { index: { field: pinned, value: fieldSelectorRequires(field!, pinned)!, get: getters[pinned], ...(pinned === 'metadata.name' ? { fromKey: nameInKey } : {}) } } : {}),
    match(obj) {
      if (label && !matchLabels(label, obj.metadata.labels)) return false;
      for (const holds of terms) if (!holds(obj)) return false;
      return true;
    },
  };
}
