// The PV protection controller: a volume being deleted keeps its protection finalizer while it is bound
// to a claim, and loses it once it is not.
import { ignoreNotFound, startQueue } from './common.js';
import type { Controller } from './context.js';

export const pvProtectionController: Controller = {
  name: 'pv-protection',
  start(ctx) {
    const finalizer = ctx.names.label('pv-protection');
    const volumes = ctx.informers.informer(ctx.refs.persistentVolumes);
    const queue = startQueue(ctx, async (name) => {
      const pv = volumes.get(name);
      if (!pv?.metadata.deletionTimestamp || !pv.metadata.finalizers?.includes(finalizer) || pv.status?.phase === 'Bound') return;
      // an update, as the reference's controller writes (its role grants update, not patch)
      await ctx.client.resource(ctx.refs.persistentVolumes).update({
        ...pv, metadata: { ...pv.metadata, finalizers: pv.metadata.finalizers.filter((f) => f !== finalizer) },
      }).catch(ignoreNotFound);
    });
    volumes.addHandler({ added: (v) => queue.add(v.metadata.name!), updated: (_, v) => queue.add(v.metadata.name!) });
  },
};
