// Pieces the controllers share: the queue a controller works from, object keys, owner references,
// pod states, selectors, expectations of the controller's own writes, and batched creation.

import { labelSelectorFromObject, matchLabels, type LabelSelector as ParsedSelector } from '../api/selectors.js';
import { createWorkQueue, runWorkers, type SyncResult, type WorkQueue } from '../client/workqueue.js';
import { isConflict, isNotFound, type ApiError, type ResourceRef } from '../client/rest-client.js';
import type { ControllerContext } from './context.js';
import type { Condition, IntOrString, LabelSelector, Obj, OwnerReference, Pod, Taint, Toleration } from './types.js';

export const keyOf = (o: Obj) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name!);
export function splitKey(key: string): [namespace: string, name: string] {
  const i = key.indexOf('/');
  return i < 0 ? ['', key] : [key.slice(0, i), key.slice(i + 1)];
}

/**
 * The controller's queue: workers start once the informers have synced, a failing key is retried with
 * back-off, and the queue shuts down when the controller stops.
 */
export function startQueue(ctx: ControllerContext, sync: (key: string) => Promise<SyncResult | void>, workers = ctx.workers): WorkQueue<string> {
  const queue: WorkQueue<string> = createWorkQueue<string>(undefined, ctx.observeQueue?.(ctx.name, () => queue));
  ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  void ctx.synced.then(() => runWorkers(queue, workers, sync, (key, e) => {
    if (!ctx.signal.aborted) ctx.log.warn(`${ctx.name} ${key}: ${(e as Error).message}`);
  }), () => {});
  return queue;
}

/** The owner reference with controller=true, if any. */
export const controllerOf = (o: Obj): OwnerReference | undefined => o.metadata.ownerReferences?.find((r) => r.controller);

export const controllerRef = (owner: Obj, kind: string, apiVersion: string): OwnerReference => ({
  apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true,
});

/** the objects an owner controls, from an informer indexed by owner uid */
export const ownedBy = <T extends Obj>(items: readonly T[], owner: Obj) =>
  items.filter((o) => controllerOf(o)?.uid === owner.metadata.uid);

const selectorCache = new WeakMap<object, ParsedSelector>();
/** whether a label selector of the API selects the labels (an absent selector selects nothing) */
export function selects(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  let parsed = selectorCache.get(selector);
  if (!parsed) {
    try { parsed = labelSelectorFromObject(selector); } catch { parsed = { requirements: [], nothing: true }; }
    selectorCache.set(selector, parsed);
  }
  return matchLabels(parsed, labels);
}
/** the empty selector selects everything; the controllers refuse to act on one */
export const selectsEverything = (s: LabelSelector | undefined) => !!s && !Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length;

/**
 * Adopts matching orphans and releases owned objects (pods, ReplicaSets, ControllerRevisions) that no longer
 * match; returns the objects the owner controls.
 */
export async function claimOwned<T extends Obj>(ctx: ControllerContext, ref: ResourceRef<T>, owner: Obj, kind: { kind: string; apiVersion: string },
  selector: LabelSelector | undefined, candidates: T[], canAdopt: () => Promise<boolean>): Promise<T[]> {
  const objects = ctx.client.resource(ref, owner.metadata.namespace);
  const claimed: T[] = [];
  let adoptable: boolean | undefined;
  for (const item of candidates) {
    const controller = controllerOf(item);
    const matches = selects(selector, item.metadata.labels);
    if (controller) {
      if (controller.uid !== owner.metadata.uid) continue;
      if (matches || owner.metadata.deletionTimestamp) { claimed.push(item); continue; }
      // release: it no longer matches
      if (item.metadata.deletionTimestamp) continue;
      await objects.patch(item.metadata.name!, {
        metadata: { resourceVersion: item.metadata.resourceVersion, ownerReferences: (item.metadata.ownerReferences ?? []).filter((r) => r.uid !== owner.metadata.uid) },
      }, 'merge').catch((e) => { if (!isNotFound(e) && !isConflict(e)) throw e; });
      continue;
    }
    if (!matches || owner.metadata.deletionTimestamp || item.metadata.deletionTimestamp) continue;
    // adopt an orphan, once the owner is confirmed live (not a stale cache entry of a deleted one)
    adoptable ??= await canAdopt();
    if (!adoptable) continue;
    try {
      const adopted = await objects.patch(item.metadata.name!, {
        metadata: { resourceVersion: item.metadata.resourceVersion, ownerReferences: [...(item.metadata.ownerReferences ?? []), controllerRef(owner, kind.kind, kind.apiVersion)] },
      }, 'merge');
      claimed.push(adopted);
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
  return claimed;
}

/** a live check that the owner is the one in the cache and is not being deleted */
export const liveOwner = <T extends Obj>(ctx: ControllerContext, ref: ResourceRef<T>, owner: Obj) => async () => {
  const fresh = await ctx.client.resource(ref, owner.metadata.namespace).get(owner.metadata.name!).catch(() => undefined);
  return !!fresh && fresh.metadata.uid === owner.metadata.uid && !fresh.metadata.deletionTimestamp;
};

// ---- pods ----

export const podFinished = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
/** neither finished nor being deleted */
export const podActive = (p: Pod) => !podFinished(p) && !p.metadata.deletionTimestamp;
export { podCondition, podReady } from '../api/pods.js';
import { podCondition, podReady } from '../api/pods.js';
/** ready for at least minReadySeconds */
export function podAvailable(p: Pod, minReadySeconds = 0, now = Date.now()): boolean {
  const ready = podCondition(p, 'Ready');
  if (ready?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}
/** when a ready pod becomes available, for requeueing at that moment */
export function msUntilAvailable(p: Pod, minReadySeconds = 0, now = Date.now()): number | undefined {
  const ready = podCondition(p, 'Ready');
  if (ready?.status !== 'True' || !minReadySeconds) return undefined;
  const at = Date.parse(ready.lastTransitionTime ?? '') + minReadySeconds * 1000;
  return Number.isFinite(at) && at > now ? at - now : undefined;
}

/**
 * The order in which surplus pods go, as the reference ranks them: unassigned before assigned, pending
 * before unknown before running, not ready before ready, more restarts first, newer first.
 */
export function deletionRank(a: Pod, b: Pod): number {
  const assigned = (p: Pod) => (p.spec.nodeName ? 1 : 0);
  const phase = (p: Pod) => ({ Pending: 0, Unknown: 1, Running: 2 } as Record<string, number>)[p.status?.phase ?? 'Pending'] ?? 0;
  const ready = (p: Pod) => (podReady(p) ? 1 : 0);
  const restarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
  const created = (p: Pod) => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
  return assigned(a) - assigned(b) || phase(a) - phase(b) || ready(a) - ready(b)
    || restarts(b) - restarts(a) || created(b) - created(a);
}

/** an int-or-percent of a total: percentages round up for surge and down for unavailability */
export function scaledValue(v: IntOrString | undefined, total: number, roundUp: boolean, dflt: IntOrString): number {
  const value = v ?? dflt;
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (!m) return Number(value) || 0;
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** whether one toleration tolerates a taint (an empty key with Exists tolerates every taint of its effect) */
export const toleratesTaint = (t: Toleration, taint: Taint) =>
  (!t.effect || t.effect === taint.effect)
  && (t.operator === 'Exists' ? (!t.key || t.key === taint.key) : t.key === taint.key && (t.value ?? '') === (taint.value ?? ''));

// ---- conditions ----

/** sets a condition; its lastTransitionTime moves only when its status changes */
export function setCondition<C extends Condition>(conditions: C[] | undefined, change: Condition, now: string): C[] {
  const next = change as C;
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  if (i < 0) return [...list, { ...next, lastTransitionTime: next.lastTransitionTime ?? now }];
  const prev = list[i]!;
  list[i] = { ...next, lastTransitionTime: prev.status === next.status ? prev.lastTransitionTime : now };
  return list;
}
export const removeCondition = <C extends Condition>(conditions: C[] | undefined, type: string) => (conditions ?? []).filter((c) => c.type !== type);

/** leaves out the counts that are zero, as the reference's JSON leaves out its `omitempty` integers; clients that read
 *  raw status (kubectl -o yaml, client libraries comparing objects) see the field missing, not 0 */
export function omitZeroCounts<T extends object>(status: T, fields: readonly (keyof T)[]): T {
  for (const f of fields) if (status[f] === 0) delete status[f];
  return status;
}

// ---- expectations ----

/**
 * What a controller expects to see after its own creates and deletes, so it does not act again on a
 * stale cache: until the informer has shown the pods it created (or their absence), or the expectation
 * expired (five minutes, as the reference), the owner is not synced again.
 */
export function createExpectations(ttlMs = 5 * 60_000) {
  const pending = new Map<string, { add: number; del: number; at: number; deleting: Set<string> }>();
  const entry = (key: string) => {
    let e = pending.get(key);
    if (!e) pending.set(key, e = { add: 0, del: 0, at: Date.now(), deleting: new Set() });
    return e;
  };
  return {
    expectCreations(key: string, n: number) { const e = entry(key); e.add += n; e.at = Date.now(); },
    expectDeletions(key: string, podKeys: string[]) { const e = entry(key); e.del += podKeys.length; podKeys.forEach((k) => e.deleting.add(k)); e.at = Date.now(); },
    created(key: string) { const e = pending.get(key); if (e && e.add > 0) e.add--; },
    deleted(key: string, podKey: string) { const e = pending.get(key); if (e?.deleting.delete(podKey)) e.del--; },
    /** a create or delete that failed will never be observed */
    creationFailed(key: string) { this.created(key); },
    deletionFailed(key: string, podKey: string) { this.deleted(key, podKey); },
    satisfied(key: string) {
      const e = pending.get(key);
      if (!e) return true;
      if ((e.add <= 0 && e.del <= 0) || Date.now() - e.at > ttlMs) { pending.delete(key); return true; }
      return false;
    },
    forget(key: string) { pending.delete(key); },
  };
}
export type Expectations = ReturnType<typeof createExpectations>;

/**
 * Makes `count` creations in batches that double from 1 (1, 2, 4, ...), stopping after the first batch with
 * a failure, as the reference's slow start does: a quota or admission refusal costs one call, not hundreds.
 * The owner's expectations are raised for all of them first and lowered for each one that failed or was
 * never tried, since the informer will never show those. Returns how many succeeded and the first error.
 */
export async function slowStartCreations(expectations: Expectations, key: string, count: number,
  create: (i: number) => Promise<unknown>): Promise<{ done: number; error?: unknown }> {
  expectations.expectCreations(key, count);
  let done = 0;
  let started = 0;
  let error: unknown;
  for (let batch = Math.min(count, 1); batch > 0 && error === undefined; batch = Math.min(2 * batch, count - started)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, (_, j) => create(started + j)));
    started += batch;
    for (const r of results) {
      if (r.status === 'fulfilled') { done++; continue; }
      expectations.creationFailed(key);
      error ??= r.reason ?? new Error('creation failed');
    }
  }
  for (let i = started; i < count; i++) expectations.creationFailed(key);
  return { done, error };
}

/** deletes, treating an object that is already gone as deleted */
export const ignoreNotFound = (e: unknown) => { if (!isNotFound(e)) throw e as ApiError; };

/** a pod from a template, owned by its controller */
export function podFromTemplate(template: { metadata?: Obj['metadata']; spec: Pod['spec'] }, namespace: string, owner: OwnerReference, extra: { name?: string; generateName?: string; labels?: Record<string, string>; annotations?: Record<string, string> } = {}): Pod {
  const meta = structuredClone(template.metadata ?? {});
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      ...(extra.name ? { name: extra.name } : { generateName: extra.generateName ?? `${owner.name}-` }),
      namespace,
      labels: { ...(meta.labels ?? {}), ...(extra.labels ?? {}) },
      ...(meta.annotations || extra.annotations ? { annotations: { ...(meta.annotations ?? {}), ...(extra.annotations ?? {}) } } : {}),
      ...(meta.finalizers ? { finalizers: meta.finalizers } : {}),
      ownerReferences: [owner],
    },
    spec: structuredClone(template.spec),
  };
}

/** A stable hash of a value as the reference's pod-template-hash label looks: short, lower-case, DNS-safe. */
export function templateHash(value: unknown, collisionCount = 0): string {
  // FNV-1a 32-bit over the semantic JSON, then the "safe encoding" alphabet the reference uses
  const text = semanticJson(value) + (collisionCount ? String(collisionCount) : '');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  const digits = String(h);
  for (const ch of digits) out += alphabet[Number(ch) % alphabet.length];
  return out.slice(0, 10);
}

export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Canonical JSON of a value as the reference's typed objects see it: a member that is null, an empty object or an
 * empty list is the same as one left out. Clients write templates either way (`kubectl rollout undo` sends
 * `creationTimestamp: null`), and a template must still match the ReplicaSet or revision it came from.
 */
export function semanticJson(v: unknown): string {
  return canonicalJson(withoutUnset(v));
}

function withoutUnset(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutUnset);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const kept = withoutUnset(x);
    const empty = kept === null || kept === undefined || (typeof kept === 'object' && Object.keys(kept).length === 0);
    if (!empty) out[k] = kept;
  }
  return out;
}

/** resolves once the informers synced and `done` holds (or after a while, so a stuck object does not hold the start) */
export const readyWhen = (ctx: ControllerContext, done: () => boolean, timeoutMs = 30_000) => ctx.synced.then(async () => {
  const deadline = Date.now() + timeoutMs;
  while (!ctx.signal.aborted && Date.now() < deadline && !done()) await new Promise((r) => setTimeout(r, 10));
});

export const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});
