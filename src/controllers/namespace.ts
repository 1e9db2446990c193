// The namespace controller: once a namespace is being deleted, every namespaced object in it is deleted
// (a collection at a time where the resource allows it), the namespace's status says what remains, and
// when nothing does, the namespace's own finalizer is removed through `finalize`, so the namespace goes.
import { nowTimestamp } from '../api/meta.js';
import type { DiscoveredResource } from '../client/discovery.js';
import { isNotFound } from '../client/rest-client.js';
import { setCondition, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Condition, Namespace } from './types.js';

/** how soon a namespace whose content is still going is looked at again */
const recheckMs = 1000;

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
      if (remaining.resources.length) {
        await setStatus(ctx, ns, remaining);
        return { requeueAfterMs: recheckMs };
      }
      await ctx.client.request({
        method: 'PUT', path: `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`,
        body: { ...ns, spec: { ...ns.spec, finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== finalizer) } },
      }).catch((e) => { if (!isNotFound(e)) throw e; });
    });
    namespaces.addHandler({
      added: (ns) => { if (terminating(ns)) queue.add(ns.metadata.name!); },
      updated: (_, ns) => { if (terminating(ns)) queue.add(ns.metadata.name!); },
    });
  },
};

interface Remaining { resources: string[]; finalizers: Map<string, number>; failures: string[] }

/** deletes what the namespace holds; returns what is still there */
async function deleteContent(ctx: ControllerContext, namespace: string): Promise<Remaining> {
  const all = await ctx.discover();
  const remaining: Remaining = { resources: [], finalizers: new Map(), failures: [] };
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
        remaining.resources.push(`${r.resource}${r.group ? `.${r.group}` : ''} has ${left.length} resource instances`);
        for (const o of left) for (const f of o.metadata.finalizers ?? []) remaining.finalizers.set(f, (remaining.finalizers.get(f) ?? 0) + 1);
      }
    } catch (e) {
      if (isNotFound(e)) return;   // the resource went away (a custom resource deleted meanwhile)
      remaining.resources.push(`${r.resource}${r.group ? `.${r.group}` : ''}`);
      remaining.failures.push(`${r.resource}: ${(e as Error).message}`);
    }
  }));
  return remaining;
}

/** the reference's deletion conditions on the namespace's status */
async function setStatus(ctx: ControllerContext, ns: Namespace, r: Remaining) {
  const now = nowTimestamp();
  const finalizers = [...r.finalizers].map(([f, n]) => `${f} in ${n} resource instances`).sort();
  const table: Array<[type: string, on: boolean, reasonOn: string, reasonOff: string, message: string]> = [
    ['NamespaceDeletionContentFailure', r.failures.length > 0, 'ContentDeletionFailed', 'ContentDeleted',
      `Failed to delete all resource types, ${r.failures.length} remaining: ${r.failures.join(', ')}`],
    ['NamespaceContentRemaining', r.resources.length > 0, 'SomeResourcesRemain', 'ContentRemoved',
      `Some resources are remaining: ${r.resources.sort().join(', ')}`],
    ['NamespaceFinalizersRemaining', finalizers.length > 0, 'SomeFinalizersRemain', 'ContentHasNoFinalizers',
      `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`],
  ];
  let conditions: Condition[] | undefined = ns.status?.conditions;
  for (const [type, on, reasonOn, reasonOff, message] of table) {
    conditions = setCondition(conditions, { type, status: on ? 'True' : 'False', reason: on ? reasonOn : reasonOff, message: on ? message : '' }, now);
  }
  if (JSON.stringify(conditions) === JSON.stringify(ns.status?.conditions)) return;
  await ctx.client.resource(ctx.refs.namespaces).patchStatus(ns.metadata.name!, { status: { conditions } }, 'merge').catch((e) => { if (!isNotFound(e)) throw e; });
}
