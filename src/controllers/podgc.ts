// The pod garbage collector: pods bound to a node that no longer exists are marked Failed and deleted at
// once (no agent is left to finish them; a node not seen deleted must have been missing for 40 s first), as are terminating pods never scheduled and terminating pods on a
// not-ready node an administrator marked out of service; finished pods beyond --terminated-pod-gc-threshold
// go, oldest first. A node's absence is confirmed with the server before its pods go.
import { nowTimestamp } from '../api/meta.js';
import { nodeNameIndex } from '../client/informer.js';
import { isNotFound } from '../client/rest-client.js';
import { ignoreNotFound, keyOf, podFinished, setCondition, splitKey, startQueue } from './common.js';
import type { Controller, ControllerContext } from './context.js';
import type { Condition, Node, Pod } from './types.js';

/** how often everything is looked at, besides the reactions to node deletions (the reference: 20 s) */
const checkPeriodMs = 20_000;
/**
 * how long a node a pod is bound to must have been missing before its pods go, when the controller did not
 * see it deleted (it may be a node so new the cache has not shown it yet); the reference's quarantine
 */
const quarantineMs = 40_000;

export const podGcController: Controller = {
  name: 'podgc',
  component: 'pod-garbage-collector',
  start(ctx) {
    const nodes = ctx.informers.informer(ctx.refs.nodes);
    const pods = ctx.informers.informer(ctx.refs.pods);
    pods.addIndex('node', nodeNameIndex);
    const outOfService = `node.${ctx.names.labelDomain}/out-of-service`;
    const nodeGone = async (name: string) => {
      if (nodes.get(name)) return false;
      try { await ctx.client.resource(ctx.refs.nodes).get(name); return false; } catch (e) { if (isNotFound(e)) return true; throw e; }
    };

    /** nodes pods are bound to that the cache does not have, and since when; seen deleted: 0 */
    const missing = new Map<string, number>();
    // one key per node whose pods to look at, and '' for the periodic pass over everything
    const queue = startQueue(ctx, async (key) => {
      if (key) {
        const since = missing.get(key);
        if (since === undefined || nodes.get(key)) { missing.delete(key); return; }
        const left = since + quarantineMs - Date.now();
        if (since && left > 0) return { requeueAfterMs: left + 10 };
        if (await nodeGone(key)) await Promise.all(pods.byIndex('node', key).map((p) => forceDelete(ctx, p, 'DeletionByPodGC', 'PodGC: node no longer exists')));
        missing.delete(key);
        return;
      }
      const all = pods.list();
      // orphans: the nodes pods are bound to that are gone
      for (const node of new Set(all.filter((p) => p.spec.nodeName && !nodes.get(p.spec.nodeName)).map((p) => p.spec.nodeName!))) {
        if (!missing.has(node)) missing.set(node, Date.now());
        queue.add(node);
      }
      // terminating and never scheduled, or on an out-of-service node that is not ready
      const unusable = (n: Node | undefined) => !!n && (n.spec?.taints ?? []).some((t) => t.key === outOfService && t.effect === 'NoExecute')
        && n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True';
      await Promise.all(all.filter((p) => p.metadata.deletionTimestamp && (!p.spec.nodeName || unusable(nodes.get(p.spec.nodeName))))
        .map((p) => forceDelete(ctx, p)));
      // finished pods beyond the threshold, oldest first
      const threshold = ctx.settings.terminatedPodGcThreshold;
      if (threshold > 0) {
        const finished = all.filter((p) => podFinished(p) && !p.metadata.deletionTimestamp);
        if (finished.length > threshold) {
          finished.sort((a, b) => (Date.parse(a.metadata.creationTimestamp ?? '') || 0) - (Date.parse(b.metadata.creationTimestamp ?? '') || 0));
          await Promise.all(finished.slice(0, finished.length - threshold).map((p) => forceDelete(ctx, p)));
        }
      }
      return { requeueAfterMs: checkPeriodMs };
    });
    void ctx.synced.then(() => queue.add(''), () => {});
    nodes.addHandler({ deleted: (n) => { missing.set(n.metadata.name!, 0); queue.add(n.metadata.name!); } });
  },
};

/** deletes at once; a running pod is first marked Failed with the reason, as the reference does */
async function forceDelete(ctx: ControllerContext, pod: Pod, reason?: string, message?: string) {
  const client = ctx.client.resource(ctx.refs.pods, pod.metadata.namespace);
  const [, name] = splitKey(keyOf(pod));
  if (reason && !podFinished(pod)) {
    const conditions = setCondition(pod.status?.conditions as Condition[] | undefined, { type: 'DisruptionTarget', status: 'True', reason, message }, nowTimestamp());
    await client.status.patch(name, { metadata: { uid: pod.metadata.uid }, status: { phase: 'Failed', conditions } }, 'strategic').catch(ignoreNotFound);
  }
  ctx.log.info(`podgc: deleting pod ${keyOf(pod)}`);
  await client.delete(name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }).catch(ignoreNotFound);
}
