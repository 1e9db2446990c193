// The garbage collector: an owner graph built from the ownerReferences of every object of every resource
// the server lists (found through discovery, looked at again every 30 s so custom resources join), and three
// jobs done on it, as the reference does:
// - background: an object whose owners are all gone is deleted (one with an owner left only loses the
//   references to the missing ones); owners that went while the collector was down count as gone too;
// - foreground: an owner deleted with the `foregroundDeletion` finalizer waits until its dependents that
//   block owner deletion are gone, its dependents being deleted in the foreground themselves;
// - orphan: an owner deleted with the `orphan` finalizer has its references removed from its dependents,
//   then the finalizer.
// Whether an owner is gone is checked against the server (by name, then uid), never only against the cache.
import type { DiscoveredResource } from '../client/discovery.js';
import { ApiError, isConflict, isNotFound, type ResourceRef } from '../client/rest-client.js';
import { createWorkQueue, runWorkers } from '../client/workqueue.js';
import { parseApiVersion } from '../api/meta.js';
import type { Controller, ControllerContext } from './context.js';
import type { Obj, OwnerReference } from './types.js';

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';
const rediscoverMs = 30_000;
/** how soon discovery is read again once a dependent names an owner of a kind not known yet (a custom resource just defined) */
const rediscoverSoonMs = 2_000;

interface Item {
  uid: string;
  resource: DiscoveredResource;
  namespace?: string;
  name: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

export const garbageCollector: Controller = {
  name: 'garbagecollector',
  component: 'garbage-collector-controller',
  serviceAccount: 'generic-garbage-collector',
  start(ctx) {
    const graph = new Map<string, Item>();
    /** dependents by owner uid, including owners not (yet) seen */
    const dependentsOf = new Map<string, Set<string>>();
    const byKind = new Map<string, DiscoveredResource>();
    const watched = new Set<string>();
    const attemptToDelete = createWorkQueue<string>();
    const attemptToOrphan = createWorkQueue<string>();
    /** dependents naming an owner of a kind not discovered yet: looked at again once discovery finds new kinds */
    const unresolved = new Set<string>();
    let soon: ReturnType<typeof setTimeout> | undefined;
    ctx.signal.addEventListener('abort', () => { attemptToDelete.shutDown(); attemptToOrphan.shutDown(); clearTimeout(soon); }, { once: true });

    // looked up at each use: a dependent's set is replaced as its references change
    const dependents = (owner: string) => [...(dependentsOf.get(owner) ?? [])];
    const blocking = (owner: string) => dependents(owner).filter((d) => graph.get(d)?.owners.some((r) => r.uid === owner && r.blockOwnerDeletion));
    const link = (dependent: string, owners: OwnerReference[], add: boolean) => {
      for (const r of owners) {
        let set = dependentsOf.get(r.uid);
        if (add) { if (!set) dependentsOf.set(r.uid, set = new Set()); set.add(dependent); }
        else { set?.delete(dependent); if (set?.size === 0) dependentsOf.delete(r.uid); }
      }
    };

    /** an owner reference names an object of another namespace: it can never be that owner (an owner is looked for
     *  in its dependent's namespace), so the reference is dangling; said in an event, as the reference does */
    const elsewhere = (dependent: Item, owner: Item | undefined) => !!owner?.namespace && owner.namespace !== dependent.namespace;
    const reportElsewhere = (dependent: Item, ref: OwnerReference) => {
      const { group, version } = dependent.resource;
      ctx.recorder.event({ apiVersion: group ? `${group}/${version}` : version, kind: dependent.resource.kind,
        metadata: { name: dependent.name, namespace: dependent.namespace, uid: dependent.uid } }, 'Warning', 'OwnerRefInvalidNamespace',
      `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace ?? ''}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace "${dependent.namespace ?? ''}"`);
      attemptToDelete.add(dependent.uid);
    };

    const observe = (resource: DiscoveredResource, obj: Obj) => {
      const uid = obj.metadata.uid!;
      const prev = graph.get(uid);
      const owners = obj.metadata.ownerReferences ?? [];
      const item: Item = {
        uid, resource, namespace: obj.metadata.namespace, name: obj.metadata.name!, owners,
        deleting: !!obj.metadata.deletionTimestamp, finalizers: obj.metadata.finalizers ?? [],
      };
      if (prev) link(uid, prev.owners, false);
      link(uid, owners, true);
      graph.set(uid, item);
      // an owner not in the graph may be gone: look at the dependent
      if (owners.some((r) => !graph.has(r.uid) || graph.get(r.uid)!.deleting)) attemptToDelete.add(uid);
      if (item.deleting && item.finalizers.includes(orphanFinalizer)) attemptToOrphan.add(uid);
      if (item.deleting && item.finalizers.includes(foregroundFinalizer)) {
        attemptToDelete.add(uid);
        for (const d of dependentsOf.get(uid) ?? []) attemptToDelete.add(d);
      }
      // an owner that appeared: dependents waiting on it are fine; one deleted: its dependents are looked at
      if (!prev || prev.deleting !== item.deleting) for (const d of dependentsOf.get(uid) ?? []) attemptToDelete.add(d);
      // references across namespaces, on the dependent's side as its references change, on the owner's as it appears
      if (!prev || JSON.stringify(prev.owners) !== JSON.stringify(owners)) {
        for (const r of owners) if (elsewhere(item, graph.get(r.uid))) reportElsewhere(item, r);
      }
      if (!prev) {
        for (const d of dependentsOf.get(uid) ?? []) {
          const dependent = graph.get(d);
          const ref = dependent?.owners.find((r) => r.uid === uid);
          if (dependent && ref && elsewhere(dependent, item)) reportElsewhere(dependent, ref);
        }
      }
    };
    const forget = (obj: Obj) => {
      const uid = obj.metadata.uid!;
      const prev = graph.get(uid);
      if (!prev) return;
      graph.delete(uid);
      unresolved.delete(uid);
      link(uid, prev.owners, false);
      for (const d of dependentsOf.get(uid) ?? []) attemptToDelete.add(d);
      // an owner waiting for its dependents may now go
      for (const r of prev.owners) if (graph.get(r.uid)?.deleting) attemptToDelete.add(r.uid);
    };

    const watch = (r: DiscoveredResource) => {
      const id = `${r.group}/${r.resource}`;
      if (watched.has(id)) return;
      watched.add(id);
      ctx.informers.informer(r).addHandler({
        added: (o) => observe(r, o as Obj),
        updated: (_, o) => observe(r, o as Obj),
        deleted: (o) => forget(o as Obj),
      });
    };
    const discover = async (notBefore?: number) => {
      const all = await ctx.discover(notBefore);
      const known = byKind.size;
      for (const r of all) byKind.set(`${r.group}/${r.kind}`, r);
      for (const r of all.filter(collectable)) watch(r);
      ctx.informers.start();
      if (byKind.size > known) { for (const uid of unresolved) attemptToDelete.add(uid); unresolved.clear(); }
    };
    /** a dependent's owner is of a kind not known: discovery is read again shortly (not from before then); a kind
     *  learnt while the dependent was looked at has it looked at again at once */
    const unknownOwnerKind = (uid: string, kinds: string[]) => {
      if (kinds.every((k) => byKind.has(k))) { attemptToDelete.add(uid); return; }
      unresolved.add(uid);
      soon ??= setTimeout(() => {
        soon = undefined;
        if (!ctx.signal.aborted) discover(Date.now()).catch((e) => ctx.log.warn(`garbage collector: discovery: ${(e as Error).message}`));
      }, rediscoverSoonMs);
    };

    const ops = operations(ctx, graph, byKind, dependents, blocking, unknownOwnerKind);
    const ready = (async () => {
      await discover();
      await ctx.synced;
      // resources found after the controllers started have their own first list to wait for
      await ctx.informers.waitForSync(ctx.signal);
      void runWorkers(attemptToDelete, ctx.workers, ops.attemptToDelete, (uid, e) => ctx.log.warn(`garbage collector: ${describe(graph.get(uid), uid)}: ${(e as Error).message}`));
      void runWorkers(attemptToOrphan, ctx.workers, ops.attemptToOrphan, (uid, e) => ctx.log.warn(`garbage collector: orphaning for ${describe(graph.get(uid), uid)}: ${(e as Error).message}`));
      const timer = setInterval(() => { discover().catch((e) => ctx.log.warn(`garbage collector: discovery: ${(e as Error).message}`)); }, rediscoverMs);
      ctx.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    })();
    ready.catch((e) => { if (!ctx.signal.aborted) ctx.log.error(`garbage collector: ${(e as Error).message}`); });
  },
};

/** resources whose objects may be owned: listable, watchable and deletable, events left out as in the reference */
const collectable = (r: DiscoveredResource) => ['list', 'watch', 'delete'].every((v) => r.verbs.includes(v))
  && !(r.resource === 'events' && (r.group === '' || r.group.startsWith('events.')));

/** the key of an owner's kind among the discovered ones: its group and kind, whatever version it names */
const kindKey = (ref: OwnerReference) => `${parseApiVersion(ref.apiVersion).group}/${ref.kind}`;

const describe = (item: Item | undefined, uid: string) =>
  (item ? `${item.resource.resource} ${item.namespace ? `${item.namespace}/` : ''}${item.name}` : `uid ${uid}`);

function operations(ctx: ControllerContext, graph: Map<string, Item>, byKind: Map<string, DiscoveredResource>,
  dependents: (uid: string) => string[], blocking: (uid: string) => string[], unknownOwnerKind: (dependent: string, kinds: string[]) => void) {
  const client = (r: ResourceRef, namespace?: string) => ctx.client.resource<Obj>(r, r.namespaced ? namespace : undefined);

  /** the live object of a graph item, if it still is that object */
  const live = async (item: Item): Promise<Obj | undefined> => {
    const obj = await client(item.resource, item.namespace).get(item.name).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    return obj && obj.metadata.uid === item.uid ? obj : undefined;
  };

  /** an owner's state: the object (alive or being deleted) or absent */
  const ownerState = async (ref: OwnerReference, namespace: string | undefined): Promise<'absent' | 'solid' | 'waiting' | 'unknown'> => {
    const known = graph.get(ref.uid);
    const resource = known?.resource ?? byKind.get(kindKey(ref));
    if (!resource) return 'unknown';   // a kind this server does not serve (yet): never collect on that ground
    // a cluster-scoped object naming a namespaced owner: there is no namespace to look in, and the reference leaves it be
    if (resource.namespaced && !namespace) return 'solid';
    const obj = await client(resource, namespace).get(ref.name).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    if (!obj || obj.metadata.uid !== ref.uid) return 'absent';
    return obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).includes(foregroundFinalizer) ? 'waiting' : 'solid';
  };

  const patchOwners = (item: Item, obj: Obj, owners: OwnerReference[]) => client(item.resource, item.namespace).patch(item.name, {
    metadata: { resourceVersion: obj.metadata.resourceVersion, uid: obj.metadata.uid, ownerReferences: owners.length ? owners : null },
  }, 'merge');

  const removeFinalizer = (item: Item, obj: Obj, finalizer: string) => client(item.resource, item.namespace).patch(item.name, {
    metadata: { resourceVersion: obj.metadata.resourceVersion, finalizers: (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer) },
  }, 'merge');

  const retryConflict = (e: unknown) => {
    // the object changed meanwhile: the next attempt reads it again
    if (isConflict(e)) throw new ApiError(409, 'Conflict', 'changed meanwhile; trying again');
    if (!isNotFound(e)) throw e;
  };

  // deleted only as it was read: an object orphaned or adopted since then is looked at again
  const remove = (item: Item, obj: Obj, policy: 'Orphan' | 'Background' | 'Foreground') =>
    client(item.resource, item.namespace).delete(item.name, {
      propagationPolicy: policy, preconditions: { uid: item.uid, resourceVersion: obj.metadata.resourceVersion },
    }).catch(retryConflict);

  return {
    async attemptToDelete(uid: string) {
      const item = graph.get(uid);
      if (!item) return;
      const obj = await live(item);
      if (!obj) return;
      const deleting = !!obj.metadata.deletionTimestamp;
      // an owner deleted in the foreground goes once no blocking dependent is left
      if (deleting && (obj.metadata.finalizers ?? []).includes(foregroundFinalizer)) {
        const left = blocking(uid);
        if (left.length === 0) { await removeFinalizer(item, obj, foregroundFinalizer).catch(retryConflict); return; }
        return;
      }
      if (deleting) return;
      const owners = obj.metadata.ownerReferences ?? [];
      if (!owners.length) return;
      const states = await Promise.all(owners.map(async (r) => ({ ref: r, state: await ownerState(r, obj.metadata.namespace) })));
      // an owner of a kind not known yet counts as living, and the dependent is looked at again once discovery knows more
      const unknown = states.filter((s) => s.state === 'unknown');
      if (unknown.length) unknownOwnerKind(uid, unknown.map((s) => kindKey(s.ref)));
      const solid = states.filter((s) => s.state === 'solid' || s.state === 'unknown');
      const dangling = states.filter((s) => s.state === 'absent');
      const waiting = states.filter((s) => s.state === 'waiting');
      if (solid.length) {
        // some owner lives: only the references to the gone ones go
        if (dangling.length || waiting.length) {
          const gone = new Set([...dangling, ...waiting].map((s) => s.ref.uid));
          await patchOwners(item, obj, owners.filter((r) => !gone.has(r.uid))).catch(retryConflict);
        }
        return;
      }
      const own = dependents(uid);
      if (waiting.length && own.length) {
        // the dependents of this dependent go first, unless one of them waits on it in turn (a cycle)
        let current = obj;
        if (own.some((d) => graph.get(d)?.deleting && graph.get(d)?.finalizers.includes(foregroundFinalizer))) {
          current = (await patchOwners(item, obj, owners.map((r) => ({ ...r, blockOwnerDeletion: false }))).catch(retryConflict)) ?? obj;
        }
        await remove(item, current, 'Foreground');
        return;
      }
      // no owner left: the object goes, its own dependents as its finalizers say
      const finalizers = obj.metadata.finalizers ?? [];
      const policy = finalizers.includes(orphanFinalizer) ? 'Orphan' : finalizers.includes(foregroundFinalizer) ? 'Foreground' : 'Background';
      await remove(item, obj, policy);
    },

    async attemptToOrphan(uid: string) {
      const item = graph.get(uid);
      if (!item) return;
      const obj = await live(item);
      if (!obj?.metadata.deletionTimestamp || !(obj.metadata.finalizers ?? []).includes(orphanFinalizer)) return;
      for (const d of dependents(uid)) {
        const dep = graph.get(d);
        if (!dep) continue;
        const depObj = await live(dep);
        if (!depObj) continue;
        const owners = (depObj.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (owners.length === (depObj.metadata.ownerReferences ?? []).length) continue;
        await patchOwners(dep, depObj, owners).catch(retryConflict);
      }
      await removeFinalizer(item, obj, orphanFinalizer).catch(retryConflict);
    },
  };
}
