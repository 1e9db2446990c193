// The namespace controller: once a namespace is being deleted, every namespaced object in it is deleted
// (a collection at a time where the resource allows it), the namespace's status says what remains, and
// when nothing does, the namespace's own finalizer is removed through `finalize`, so the namespace goes.
import { nowTimestamp } from '../api/meta.js';
import type { DiscoveredResource, DiscoveryFailure } from '../client/discovery.js';
import { isConflict, isNotFound, serverMessage } from '../client/rest-client.js';
import { setCondition, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Condition, Namespace } from './types.js';

/** how soon a namespace whose content is still going is looked at again */
const recheckMs = 1000;
/** how many times a status write meeting a newer namespace is tried again */
const maxStatusAttempts = 5;

export const namespaceController: Controller = {
  name: 'namespace',
  start(ctx) {
    const namespaces = ctx.informers.informer(ctx.refs.namespaces);
    const finalizer = ctx.names.vendor;
    const terminating = (ns: Namespace) => !!ns.metadata.deletionTimestamp && (ns.spec?.finalizers ?? []).includes(finalizer);
    const queue = startQueue(ctx, async (name) => {
      const ns = namespaces.get(name);
      if (!ns || !terminating(ns)) return;
      const remaining = await deleteContent(ctx, name);
      // a group whose resources could not be learnt may hold content: the namespace waits for it, as the reference
      if (remaining.resources.length || remaining.failures.length || remaining.undiscovered.length) {
        await setStatus(ctx, ns, remaining);
        return { requeueAfterMs: recheckMs };
      }
      await finalizeNamespace({
        put: (body) => ctx.client.request({ method: 'PUT', path: `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`, body }),
        get: () => ctx.client.resource(ctx.refs.namespaces).get(name),
      }, ns, finalizer);
    });
    namespaces.addHandler({
      added: (ns) => { if (terminating(ns)) queue.add(ns.metadata.name!); },
      updated: (_, ns) => { if (terminating(ns)) queue.add(ns.metadata.name!); },
    });
  },
};

/** How the finalize step reaches the namespace: its `finalize` subresource, and a fresh read of it. */
export interface FinalizeAccess { put(ns: Namespace): Promise<unknown>; get(): Promise<Namespace> }

/**
 * Removes the controller's finalizer through `finalize`. A namespace changed meanwhile (another finalizer or a
 * label) is read again and finalized again, as the reference does, rather than sweeping its content once more;
 * a namespace gone or replaced (another uid) ends it.
 */
export async function finalizeNamespace(access: FinalizeAccess, cached: Namespace, finalizer: string): Promise<void> {
  let ns = cached;
  for (;;) {
    if (!(ns.spec?.finalizers ?? []).includes(finalizer)) return;
    try {
      await access.put({ ...ns, spec: { ...ns.spec, finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== finalizer) } });
      return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (!isConflict(e)) throw e;
    }
    const fresh = await access.get().catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    if (!fresh) return;
    if (fresh.metadata.uid !== ns.metadata.uid) throw new Error(`namespace ${ns.metadata.name} was replaced (its uid changed) while being finalized`);
    ns = fresh;
  }
}

interface Remaining { resources: string[]; finalizers: Map<string, number>; failures: string[]; undiscovered: DiscoveryFailure[] }

/** a resource as the reference's conditions name it: resource.group, the core group's with a bare dot (`configmaps.`) */
const qualified = (r: DiscoveredResource) => `${r.resource}.${r.group}`;

/** deletes what the namespace holds; returns what is still there */
async function deleteContent(ctx: ControllerContext, namespace: string): Promise<Remaining> {
  // a discovery begun after this sync: an API added or gone unreachable since the last one is not missed before finalizing
  const started = Date.now();
  const [all, undiscovered] = await Promise.all([ctx.discover(started), ctx.discoveryFailures(started)]);
  const remaining: Remaining = { resources: [], finalizers: new Map(), failures: [], undiscovered };
  const deletable = all.filter((r) => r.namespaced && r.verbs.includes('delete') && r.verbs.includes('list'));
  await Promise.all(deletable.map(async (r: DiscoveredResource) => {
    const resource = ctx.client.resource(r, namespace);
    try {
      if (r.verbs.includes('deletecollection')) {
        await ctx.client.request({ method: 'DELETE', path: `${r.group ? `/apis/${r.group}` : '/api'}/${r.version}/namespaces/${encodeURIComponent(namespace)}/${r.resource}` });
      }
      const { items } = await resource.list();
      const left = items as Array<{ metadata: { name: string; deletionTimestamp?: string; finalizers?: string[] } }>;
      await Promise.all(left.filter((o) => !o.metadata.deletionTimestamp).map((o) => resource.delete(o.metadata.name).catch((e) => { if (!isNotFound(e)) throw e; })));
      if (left.length) {
        remaining.resources.push(`${qualified(r)} has ${left.length} resource instances`);
        for (const o of left) for (const f of o.metadata.finalizers ?? []) remaining.finalizers.set(f, (remaining.finalizers.get(f) ?? 0) + 1);
      }
    } catch (e) {
      if (isNotFound(e)) return;   // the resource went away (a custom resource deleted meanwhile)
      // said as a failure only, as the reference's conditions say it
      remaining.failures.push(serverMessage(e));
    }
  }));
  return remaining;
}

/**
 * The reference's deletion conditions on the namespace's status. Written with an update of namespaces/status
 * (the verb the controller's own role grants there), from the cached namespace first and, on a conflict, from
 * a fresh read.
 */
async function setStatus(ctx: ControllerContext, cached: Namespace, r: Remaining) {
  const namespaces = ctx.client.resource(ctx.refs.namespaces);
  let ns = cached;
  for (let attempt = 1; ; attempt++) {
    const conditions = deletionConditions(ns, r);
    if (JSON.stringify(conditions) === JSON.stringify(ns.status?.conditions)) return;
    try {
      await namespaces.status.update({ ...ns, status: { ...ns.status, conditions } });
      return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (!isConflict(e) || attempt >= maxStatusAttempts) throw e;
    }
    const fresh = await namespaces.get(ns.metadata.name!).catch((e) => { if (isNotFound(e)) return undefined; throw e; });
    if (!fresh) return;
    ns = fresh;
  }
}

/** every deletion condition the reference keeps, each True with what went wrong or False with its all-clear */
function deletionConditions(ns: Namespace, r: Remaining): Condition[] | undefined {
  const now = nowTimestamp();
  const finalizers = [...r.finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
  const table: Array<{ type: string; on: boolean; reasonOn: string; messageOn: string; reasonOff: string; messageOff: string }> = [
    // discovery failing altogether fails the whole sync here; a group it could not learn is said, as the reference's client says it
    { type: 'NamespaceDeletionDiscoveryFailure', on: r.undiscovered.length > 0, reasonOn: 'DiscoveryFailed',
      messageOn: `Discovery failed for some groups, ${r.undiscovered.length} failing: unable to retrieve the complete list of server APIs: ${
        r.undiscovered.map((f) => `${f.groupVersion}: ${f.message}`).sort().join(', ')}`,
      reasonOff: 'ResourcesDiscovered', messageOff: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', on: false, reasonOn: 'GroupVersionParsingFailed', messageOn: '',
      reasonOff: 'ParsedGroupVersions', messageOff: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', on: r.failures.length > 0, reasonOn: 'ContentDeletionFailed',
      messageOn: `Failed to delete all resource types, ${r.failures.length} remaining: ${r.failures.length === 1 ? r.failures[0] : `[${r.failures.join(', ')}]`}`,
      reasonOff: 'ContentDeleted', messageOff: 'All content successfully deleted, may be waiting on finalization' },
    { type: 'NamespaceContentRemaining', on: r.resources.length > 0, reasonOn: 'SomeResourcesRemain',
      messageOn: `Some resources are remaining: ${r.resources.sort().join(', ')}`,
      reasonOff: 'ContentRemoved', messageOff: 'All content successfully removed' },
    { type: 'NamespaceFinalizersRemaining', on: finalizers.length > 0, reasonOn: 'SomeFinalizersRemain',
      messageOn: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
      reasonOff: 'ContentHasNoFinalizers', messageOff: 'All content-preserving finalizers finished' },
  ];
  let conditions: Condition[] | undefined = ns.status?.conditions;
  for (const c of table) {
    conditions = setCondition(conditions, { type: c.type, status: c.on ? 'True' : 'False', reason: c.on ? c.reasonOn : c.reasonOff, message: c.on ? c.messageOn : c.messageOff }, now);
  }
  return conditions;
}
