// The PVC protection controller: a claim being deleted keeps its protection finalizer while a pod scheduled to a node
// uses it (directly, or as the claim of its generic ephemeral volume), and loses it once none does. As the reference's:
// a pod not yet scheduled does not hold a claim (the node agent refuses to start a pod on a claim being deleted), a
// finished pod still holds a claim it names directly until it is deleted, and an ephemeral claim is freed by a pod shut
// down (deleted with no grace period left). A claim named as a pod's ephemeral one counts only if that pod controls it.
import { ephemeralClaimName } from '../api/volumes.js';
import { controllerOf, ignoreNotFound, podFinished, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { PersistentVolumeClaim, Pod } from './types.js';

const shutDown = (pod: Pod) => pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0;

const usesClaim = (pod: Pod, claim: PersistentVolumeClaim) => !!pod.spec.nodeName && (pod.spec.volumes ?? []).some((v) =>
  v.persistentVolumeClaim?.claimName === claim.metadata.name
  || (v.ephemeral && !shutDown(pod) && ephemeralClaimName(pod.metadata.name!, v) === claim.metadata.name && controllerOf(claim)?.uid === pod.metadata.uid));

export const pvcProtectionController: Controller = {
  name: 'pvc-protection',
  start(ctx) {
    const finalizer = ctx.names.label('pvc-protection');
    const claims = ctx.informers.informer(ctx.refs.persistentVolumeClaims);
    const pods = ctx.informers.informer(ctx.refs.pods);
    const queue = startQueue(ctx, async (key) => {
      const claim = claims.get(key);
      if (!claim?.metadata.deletionTimestamp || !claim.metadata.finalizers?.includes(finalizer)) return;
      const namespace = claim.metadata.namespace!;
      if (pods.list(namespace).some((p) => usesClaim(p, claim))) return;
      // the cache may lag behind a pod created a moment ago: the live list decides, as in the reference
      const live = await ctx.client.resource(ctx.refs.pods, namespace).list();
      if (live.items.some((p) => usesClaim(p, claim))) return;
      // an update, as the reference's controller writes (its role grants update, not patch)
      await ctx.client.resource(ctx.refs.persistentVolumeClaims, namespace).update({
        ...claim, metadata: { ...claim.metadata, finalizers: claim.metadata.finalizers.filter((f) => f !== finalizer) },
      }).catch(ignoreNotFound);
    });
    claims.addHandler({ added: (c) => queue.add(`${c.metadata.namespace}/${c.metadata.name}`), updated: (_, c) => queue.add(`${c.metadata.namespace}/${c.metadata.name}`) });
    // a pod that goes, finishes or is not scheduled may free the claims it names
    const podChanged = (p: Pod) => {
      if (p.metadata.deletionTimestamp === undefined && !podFinished(p) && p.spec.nodeName) return;
      for (const v of p.spec.volumes ?? []) {
        const claim = v.persistentVolumeClaim?.claimName ?? (v.ephemeral ? ephemeralClaimName(p.metadata.name!, v) : undefined);
        if (claim) queue.add(`${p.metadata.namespace}/${claim}`);
      }
    };
    pods.addHandler({ added: podChanged, updated: (_, p) => podChanged(p), deleted: (p) => podChanged({ ...p, metadata: { ...p.metadata, deletionTimestamp: p.metadata.deletionTimestamp ?? 'gone' } }) });
  },
};
