// Keeps a node's not-ready taint in step with its Ready condition, as the reference's node lifecycle controller does:
// a node that reports Ready loses the taint it was registered with; one that stops being Ready gets it back.
import { nowTimestamp, type ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { ApiResources, ResourceInfo } from '../registry/resources.js';
import type { Store } from '../registry/store.js';
import { noAdmission } from '../registry/store.js';
import type { ResourceCaches } from '../api/cache.js';

export interface NodeTaintsDeps {
  resources: ApiResources;
  names: Naming;
  caches: ResourceCaches;
  backendFor(info: ResourceInfo): { store: Store };
}

export function startNodeTaints(deps: NodeTaintsDeps, log: { warn(m: string): void }) {
  const nodes = deps.resources.lookup('', 'v1', 'nodes');
  if (!nodes) return { stop() {} };
  const key = `node.${deps.names.labelDomain}/not-ready`;
  const cache = deps.caches.cache(nodes.keyPrefix);
  const ready = (n: any) => (n.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
  const reported = (n: any) => (n.status?.conditions ?? []).some((c: any) => c?.type === 'Ready');
  const tainted = (n: any) => (n.spec?.taints ?? []).some((t: any) => t?.key === key && t.effect === 'NoSchedule');

  async function reconcile(node: ApiObject) {
    // a node that has never reported keeps what admission gave it
    const wanted = ready(node) ? false : reported(node) ? true : undefined;
    if (wanted === undefined || wanted === tainted(node)) return;
    await deps.backendFor(nodes!).store.guaranteedUpdate('', node.metadata.name!, '', cur => {
      if (!cur) throw Object.assign(new Error('gone'), { code: 404 });
      const spec = ((cur as any).spec ??= {});
      const others = (spec.taints ?? []).filter((t: any) => !(t?.key === key && t.effect === 'NoSchedule'));
      spec.taints = wanted ? [...others, { key, effect: 'NoSchedule', timeAdded: nowTimestamp() }] : others;
      if (!spec.taints.length) delete spec.taints;
      return cur;
    }, noAdmission, { dryRun: false }).catch(e => {
      if ((e as { code?: number }).code !== 404) log.warn(`node ${node.metadata.name}: updating the not-ready taint failed: ${(e as Error).message}`);
    });
  }

  const unsubscribe = cache.subscribe({ send(ev) { if (ev.type !== 'DELETED') void reconcile(ev.cur.obj); }, end() {} });
  void cache.ready.then(() => { for (const n of cache.snapshot(nodes.keyPrefix)) void reconcile(n.obj); });
  return { stop: unsubscribe };
}
