// The volume expand controller: a bound claim asking for more storage than it has is announced, with an
// `ExternalExpanding` event, as waiting for the controller that expands volumes of its kind (the CSI external
// resizer). As the reference's in 1.27, which finds no in-tree expander for the volumes this project knows (CSI,
// hostPath, local, NFS...), it resizes nothing itself; the event is a warning because no plugin here matched.
import { quantityValue } from '../api/quantity.js';
import { ignoreNotFound, keyOf, startQueue } from './common.js';
import type { Controller } from './context.js';
import type { PersistentVolumeClaim } from './types.js';

const requested = (c: PersistentVolumeClaim) => quantityValue(c.spec?.resources?.requests?.storage) ?? 0;
const allocated = (c: PersistentVolumeClaim) => quantityValue(c.status?.capacity?.storage) ?? 0;

export const persistentVolumeExpanderController: Controller = {
  name: 'persistentvolume-expander',
  component: 'volume_expand',
  serviceAccount: 'expand-controller',
  start(ctx) {
    const claims = ctx.informers.informer(ctx.refs.persistentVolumeClaims);
    const queue = startQueue(ctx, async (key) => {
      const claim = claims.get(key);
      if (!claim?.spec?.volumeName || requested(claim) <= allocated(claim)) return;
      // the volume must be this claim's (the live object, as the reference reads it)
      const pv = await ctx.client.resource(ctx.refs.persistentVolumes).get(claim.spec.volumeName).catch(ignoreNotFound);
      const ref = pv?.spec?.claimRef;
      if (!ref || ref.namespace !== claim.metadata.namespace || ref.uid !== claim.metadata.uid) return;
      ctx.recorder.event(claim, 'Warning', 'ExternalExpanding', 'waiting for an external controller to expand this PVC');
    });
    const enqueue = (c: PersistentVolumeClaim) => { if (c.status?.phase === 'Bound') queue.add(keyOf(c)); };
    claims.addHandler({
      added: enqueue,
      // a larger request asks for an expansion; a larger capacity may be one just done
      updated: (old, c) => { if (requested(c) > requested(old) || allocated(c) > allocated(old)) enqueue(c); },
    });
  },
};
