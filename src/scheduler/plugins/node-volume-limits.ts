// NodeVolumeLimits: a node attaches at most so many volumes of each CSI driver (its CSINode's
// spec.drivers[].allocatable.count, or a node allocatable of attachable-volumes-csi-<driver>). Filter counts the CSI
// volumes the node's pods use, each volume once however many pods share it, adds the pod's volumes not already there,
// and refuses the node when a driver would go over its limit. Volumes are found through claims (a persistent volume
// claim, or the claim of a generic ephemeral volume); a claim not yet bound counts as a volume of its class's
// provisioner. In-tree volume types migrated to CSI drivers are not counted.
import { createHash, randomUUID } from 'node:crypto';
import { claimClass, ephemeralClaimName, ephemeralClaimNotForPod, volumeAnnotations, type VolumeAnnotations } from '../../api/volumes.js';
import { errorStatus, unschedulable, type PluginSpec, type VolumeListers } from '../framework.js';
import type { NodeInfo } from '../node-info.js';
import type { CSINode, PersistentVolumeClaim, Pod } from '../types.js';

export const reasonMaxVolumeCount = 'node(s) exceed max volume count';
const attachablePrefix = 'attachable-volumes-';
const csiLimitPrefix = `${attachablePrefix}csi-`;
/** the longest resource name (a qualified name's name part) */
const resourceNameLimit = 63;

/** the resource name of a CSI driver's attach limit; a long driver name is shortened with a hash of it, as the reference does */
export function csiAttachLimitKey(driver: string): string {
  if (csiLimitPrefix.length + driver.length < resourceNameLimit) return csiLimitPrefix + driver;
  const hash = createHash('sha1').update(driver).digest('hex').slice(0, 16);
  return csiLimitPrefix + driver.slice(0, 23) + hash;
}

/** the node's limits by limit key: attachable-volumes-* allocatables, overridden by its CSINode's driver counts */
export function volumeLimits(node: NodeInfo, csiNode: CSINode | undefined): Map<string, number> {
  const limits = new Map<string, number>();
  for (const [name, amount] of Object.entries(node.allocatable)) if (name.startsWith(attachablePrefix)) limits.set(name, amount);
  for (const d of csiNode?.spec?.drivers ?? []) {
    const count = d.allocatable?.count;
    if (typeof count === 'number') limits.set(csiAttachLimitKey(d.name), count);
  }
  return limits;
}

/** what counts a volume: the driver's limit key and a name unique to the volume */
interface Attachable { limitKey: string; unique: string }

export const nodeVolumeLimits: PluginSpec = {
  name: 'NodeVolumeLimits',
  create: (_args, handle) => {
    const volumes: VolumeListers = handle.volumes;
    const a: VolumeAnnotations = volumeAnnotations(handle.names);
    // an unbound claim's volume has no handle yet: one made up for it cannot collide with a real one
    const unboundPrefix = randomUUID();

    /** the CSI driver and volume handle of a claim's volume; undefined when it is not a CSI volume (or unknown) */
    function driverOf(claim: PersistentVolumeClaim): Attachable | undefined {
      const volumeName = claim.spec?.volumeName;
      const pv = volumeName ? volumes.persistentVolume(volumeName) : undefined;
      if (pv) {
        const csi = pv.spec?.csi;
        return csi?.driver && csi.volumeHandle ? { limitKey: csiAttachLimitKey(csi.driver), unique: `${csi.driver}/${csi.volumeHandle}` } : undefined;
      }
      // not bound yet (or its volume is gone): the class's provisioner will make a volume of its driver
      const className = claimClass(claim, a);
      const provisioner = className ? volumes.storageClass(className)?.provisioner : undefined;
      if (!provisioner) return undefined;
      return { limitKey: csiAttachLimitKey(provisioner), unique: `${provisioner}/${unboundPrefix}-${claim.metadata.namespace}/${claim.metadata.name}` };
    }

    /**
     * Adds the pod's CSI volumes to `into` (unique name -> limit key). A claim missing for the pod being placed is an
     * error (it cannot run without it); one missing for a pod already on the node is not counted.
     */
    function collect(pod: Pod, isNew: boolean, into: Map<string, string>): string | undefined {
      for (const v of pod.spec.volumes ?? []) {
        let claimName: string;
        if (v.persistentVolumeClaim) claimName = v.persistentVolumeClaim.claimName;
        else if (v.ephemeral) claimName = ephemeralClaimName(pod.metadata.name!, v);
        else continue;
        if (!claimName) return 'PersistentVolumeClaim had no name';
        const claim = volumes.claim(pod.metadata.namespace!, claimName);
        if (!claim) {
          if (isNew) return `looking up PVC ${pod.metadata.namespace}/${claimName}: persistentvolumeclaim "${claimName}" not found`;
          continue;
        }
        if (v.ephemeral) {
          const notOwned = ephemeralClaimNotForPod(pod, claim);
          if (notOwned) return notOwned;
        }
        const found = driverOf(claim);
        if (found) into.set(found.unique, found.limitKey);
      }
      return undefined;
    }

    return {
      name: 'NodeVolumeLimits',
      events: ['CSINode/Add', 'CSINode/Update', 'Pod/Delete'],
      filter(_state, pod, node) {
        if (!pod.pod.spec.volumes?.some((v) => v.persistentVolumeClaim || v.ephemeral)) return undefined;
        const csiNode = volumes.csiNode(node.name);
        const adding = new Map<string, string>();
        const error = collect(pod.pod, true, adding);
        if (error) return errorStatus(error);
        if (!adding.size) return undefined;
        const limits = volumeLimits(node, csiNode);
        if (!limits.size) return undefined;
        const attached = new Map<string, string>();
        for (const other of node.pods) collect(other.pod, false, attached);
        const counts = new Map<string, number>();
        for (const [unique, key] of attached) {
          // a volume already attached for another pod is not attached again
          adding.delete(unique);
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        const added = new Map<string, number>();
        for (const key of adding.values()) added.set(key, (added.get(key) ?? 0) + 1);
        for (const [key, count] of added) {
          const limit = limits.get(key);
          if (limit !== undefined && (counts.get(key) ?? 0) + count > limit) return unschedulable(reasonMaxVolumeCount);
        }
        return undefined;
      },
    };
  },
};
