// VolumeRestrictions: a claim with the ReadWriteOncePod access mode is used by one pod at most, so a pod using one
// that another pod (on any node) already uses fits nowhere until that pod goes, or is preempted.
import { readState, skip, unresolvable, unschedulable, type PluginSpec } from '../framework.js';
import type { PodInfo } from '../node-info.js';

export const reasonReadWriteOncePodConflict = 'node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode';
const stateKey = 'PreFilter/VolumeRestrictions';

class State {
  constructor(readonly claims: ReadonlySet<string>, public conflicts: number) {}
  clone() { return new State(this.claims, this.conflicts); }
}

/** namespace/name of the claims the pod's volumes name */
const claimKeys = (p: PodInfo) => (p.pod.spec.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [`${p.pod.metadata.namespace}/${v.persistentVolumeClaim.claimName}`] : []));
const uses = (p: PodInfo, claims: ReadonlySet<string>) => claimKeys(p).some((k) => claims.has(k));

export const volumeRestrictions: PluginSpec = {
  name: 'VolumeRestrictions',
  create: (_args, handle) => ({
    name: 'VolumeRestrictions',
    events: ['Pod/Delete', 'PersistentVolumeClaim/Add', 'PersistentVolumeClaim/Update', 'Node/Add'],
    preFilter(state, pod) {
      const keys = claimKeys(pod);
      if (!keys.length) return skip;
      const exclusive = new Set<string>();
      for (const key of keys) {
        const name = key.slice(key.indexOf('/') + 1);
        const claim = handle.volumes.claim(pod.pod.metadata.namespace!, name);
        if (!claim) return unresolvable(`persistentvolumeclaim "${name}" not found`);
        if (claim.spec?.accessModes?.includes('ReadWriteOncePod')) exclusive.add(key);
      }
      let conflicts = 0;
      if (exclusive.size) {
        for (const node of handle.nodes()) for (const other of node.pods) if (other.key !== pod.key && uses(other, exclusive)) conflicts++;
      }
      state.data.set(stateKey, new State(exclusive, conflicts));
      return undefined;
    },
    addPod(state, pod, added) {
      const s = readState<State>(state, stateKey);
      if (added.key !== pod.key && uses(added, s.claims)) s.conflicts++;
      return undefined;
    },
    removePod(state, pod, removed) {
      const s = readState<State>(state, stateKey);
      if (removed.key !== pod.key && uses(removed, s.claims)) s.conflicts--;
      return undefined;
    },
    filter(state) {
      return readState<State>(state, stateKey).conflicts > 0 ? unschedulable(reasonReadWriteOncePodConflict) : undefined;
    },
  }),
};
