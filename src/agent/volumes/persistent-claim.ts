// persistentVolumeClaim (and a generic ephemeral volume, whose claim `<pod>-<volume>` the pod must own): the claim
// must be bound; its volume is mounted when it lives on this node's disk (hostPath or local). Other volume types
// need a storage driver this agent does not have.

import { ephemeralClaimName, ephemeralClaimNotForPod } from '../../api/volumes.js';
import type { PersistentVolume } from '../objects.js';
import { fetchObject, requireObject } from './api-objects.js';
import { checkHostPath } from './host-path.js';
import type { VolumeKind } from './types.js';

export function localPath(pv: PersistentVolume): string | undefined {
  return pv.spec?.hostPath?.path ?? pv.spec?.local?.path;
}

export const persistentClaimVolume: VolumeKind = {
  async setUp(volume, pod, _dir, ctx) {
    const claimName = volume.persistentVolumeClaim?.claimName ?? ephemeralClaimName(pod.metadata.name, volume);
    const claim = await fetchObject(ctx, 'persistentvolumeclaim', pod.metadata.namespace, claimName);
    if (!claim) throw new Error(`persistentvolumeclaim "${claimName}" not found`);
    if (volume.ephemeral) {
      const notOwned = ephemeralClaimNotForPod(pod, { ...claim, metadata: claim.metadata ?? {} });
      if (notOwned) throw new Error(notOwned);
    }
    if (claim.metadata?.deletionTimestamp) throw new Error(`persistentvolumeclaim "${claimName}" is being deleted`);
    const volumeName = claim.spec?.volumeName;
    if (claim.status?.phase !== 'Bound' || !volumeName) throw new Error(`persistentvolumeclaim "${claimName}" is not bound`);
    const pv = await requireObject(ctx, 'persistentvolume', undefined, volumeName);
    const path = localPath(pv);
    if (!path) throw new Error(`persistent volume ${volumeName} is not a hostPath or local volume; this agent mounts only those`);
    if (pv.spec?.hostPath) await checkHostPath(pv.spec.hostPath);
    else await checkHostPath({ path, type: 'Directory' });
    const readOnly = !!volume.persistentVolumeClaim?.readOnly;
    return { path, readOnly };
  },
};
