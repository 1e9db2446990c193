// VolumeZone: a pod whose claims are bound to volumes labelled with a zone or region fits only nodes in that zone or
// region. PreFilter reads the labels of the bound volumes (a claim waiting for its first consumer has no volume yet
// and is left to VolumeBinding); Filter compares them with the node's labels. A node with no zone or region label at
// all fits any volume, as in a cluster of one zone whose nodes carry no topology labels.
import type { Naming } from '../../api/naming.js';
import { claimClass, volumeAnnotations } from '../../api/volumes.js';
import { readState, skip, unresolvable, type PluginSpec, type Status, type VolumeListers } from '../framework.js';
import type { Pod, PersistentVolume } from '../types.js';

export const reasonVolumeZoneConflict = 'node(s) had no available volume zone';
const stateKey = 'PreFilter/VolumeZone';
/** a label value listing several zones separates them with this */
const zoneSeparator = '__';

/** the zone and region labels a volume may carry, the deprecated beta ones first, as the reference checks them */
export const volumeTopologyLabels = (names: Naming): readonly string[] => {
  const d = names.labelDomain;
  return [`failure-domain.beta.${d}/zone`, `failure-domain.beta.${d}/region`, `topology.${d}/zone`, `topology.${d}/region`];
};

/** one label of a volume the node must match: its key and the values allowed */
interface VolumeTopology { volume: string; key: string; values: ReadonlySet<string> }

/** the zones a label value lists ("a__b"); undefined when one of them is empty (the label is then not used) */
export function zonesOf(value: string): Set<string> | undefined {
  const zones = new Set<string>();
  for (const part of value.split(zoneSeparator)) {
    const zone = part.trim();
    if (!zone) return undefined;
    zones.add(zone);
  }
  return zones;
}

function volumeTopologies(pv: PersistentVolume, labels: readonly string[]): VolumeTopology[] {
  const out: VolumeTopology[] = [];
  for (const key of labels) {
    const value = pv.metadata.labels?.[key];
    if (value === undefined) continue;
    const values = zonesOf(value);
    if (values) out.push({ volume: pv.metadata.name ?? '', key, values });
  }
  return out;
}

/** the zone labels of the volumes bound to the pod's claims, or why the pod cannot be placed (the reference's words) */
function podTopologies(pod: Pod, volumes: VolumeListers, names: Naming): VolumeTopology[] | Status {
  const a = volumeAnnotations(names);
  const labels = volumeTopologyLabels(names);
  const out: VolumeTopology[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (!v.persistentVolumeClaim) continue;
    const claimName = v.persistentVolumeClaim.claimName;
    if (!claimName) return unresolvable('PersistentVolumeClaim had no name');
    const claim = volumes.claim(pod.metadata.namespace!, claimName);
    if (!claim) return unresolvable(`persistentvolumeclaim "${claimName}" not found`);
    const volumeName = claim.spec?.volumeName;
    if (!volumeName) {
      const className = claimClass(claim, a);
      if (!className) return unresolvable('PersistentVolumeClaim had no pv name and storageClass name');
      const cls = volumes.storageClass(className);
      if (!cls) return unresolvable(`storageclass.${names.group('storage')} "${className}" not found`);
      if (!cls.volumeBindingMode) return unresolvable(`VolumeBindingMode not set for StorageClass "${className}"`);
      // its volume is chosen with the node (VolumeBinding), so it constrains nothing yet
      if (cls.volumeBindingMode === 'WaitForFirstConsumer') continue;
      return unresolvable('PersistentVolume had no name');
    }
    const pv = volumes.persistentVolume(volumeName);
    if (!pv) return unresolvable(`persistentvolume "${volumeName}" not found`);
    out.push(...volumeTopologies(pv, labels));
  }
  return out;
}

export const volumeZone: PluginSpec = {
  name: 'VolumeZone',
  create: (_args, handle) => {
    const labels = volumeTopologyLabels(handle.names);
    return {
      name: 'VolumeZone',
      events: [
        'StorageClass/Add', 'Node/Add', 'Node/UpdateNodeLabel', 'PersistentVolumeClaim/Add', 'PersistentVolumeClaim/Update',
        'PersistentVolume/Add', 'PersistentVolume/Update',
      ],
      preFilter(state, pod) {
        const found = podTopologies(pod.pod, handle.volumes, handle.names);
        if (!Array.isArray(found)) return found;
        if (!found.length) return skip;
        state.data.set(stateKey, found);
        return undefined;
      },
      filter(state, _pod, node) {
        const topologies = readState<VolumeTopology[]>(state, stateKey);
        const nodeLabels = node.node.metadata.labels ?? {};
        if (!labels.some((k) => Object.hasOwn(nodeLabels, k))) return undefined;
        for (const t of topologies) {
          const value = nodeLabels[t.key];
          if (value === undefined || !t.values.has(value)) return unresolvable(reasonVolumeZoneConflict);
        }
        return undefined;
      },
    };
  },
};
