// PersistentVolumeLabel (deprecated): a new PersistentVolume of a cloud disk (AWS EBS, GCE PD, Azure disk,
// vSphere, Cinder) is labelled with the region and zone it lives in, and required on nodes of them through its
// node affinity. The reference asks its cloud provider; this server has none, so the region and zone of the
// cluster's cloud disks come from the plugin's configuration ({ region, zone }, zones joined by "__" when a
// disk spans several). Without them such volumes are refused, as the reference refuses them without a provider.
import { definePlugin } from '../types.js';
import { configError, keyedConfig } from '../config.js';
import { isWriteOf, refuse } from '../util.js';
import type { Stored } from '../../api/meta.js';
import type { NodeSelectorRequirement, PersistentVolume } from '../../api/types/core-v1.js';

interface Topology { region?: string; zone?: string }

const cloudSources = ['awsElasticBlockStore', 'gcePersistentDisk', 'azureDisk', 'vsphereVolume', 'cinder'] as const;
/** a volume source the provisioner is still making has no place yet */
const provisioning = 'provisioned';

export default definePlugin({
  name: 'PersistentVolumeLabel',
  defaultOn: false,
  create: ({ config, names }) => {
    const plugin = 'PersistentVolumeLabel';
    const topology = keyedConfig<Topology>(plugin, config, 'persistentVolumeLabel');
    for (const k of ['region', 'zone'] as const)
      if (topology?.[k] !== undefined && (typeof topology[k] !== 'string' || !topology[k])) throw configError(plugin, `persistentVolumeLabel.${k} must be a non-empty string`);
    const regionLabel = `topology.${names.labelDomain}/region`, zoneLabel = `topology.${names.labelDomain}/zone`;
    return {
      name: plugin,
      operations: ['CREATE'],
      admit(a) {
        if (!isWriteOf(a, '', 'persistentvolumes')) return;
        const pv = a.object as Stored<PersistentVolume>;
        const spec = pv.spec ?? {};
        const source = cloudSources.find(s => spec[s]);
        if (!source) return;
        const disk = spec[source] as { volumeID?: string; pdName?: string; diskName?: string; volumePath?: string };
        const id = disk.volumeID ?? disk.pdName ?? disk.diskName ?? disk.volumePath;
        if (id === provisioning) return;
        if (!topology?.region && !topology?.zone)
          throw refuse(a, `error querying ${source} volume ${id ?? ''}: no cloud provider is configured to tell its region and zone (set them in this plugin's configuration)`);
        const labels: Record<string, string> = {};
        if (topology.region) labels[regionLabel] = topology.region;
        if (topology.zone) labels[zoneLabel] = topology.zone;
        pv.metadata.labels = { ...pv.metadata.labels, ...labels };
        const requirements: NodeSelectorRequirement[] = Object.entries(labels).map(([key, v]) => ({
          key, operator: 'In', values: key === zoneLabel ? [...new Set(v.split('__'))].sort() : [v],
        }));
        const required = ((spec.nodeAffinity ??= {}).required ??= { nodeSelectorTerms: [] });
        if (!required.nodeSelectorTerms?.length) required.nodeSelectorTerms = [{}];
        // a volume whose affinity already names these keys keeps its own
        const named = new Set(required.nodeSelectorTerms.flatMap(t => (t?.matchExpressions ?? []).map(e => e.key)));
        if (requirements.some(r => named.has(r.key))) return;
        for (const t of required.nodeSelectorTerms) t.matchExpressions = [...(t.matchExpressions ?? []), ...requirements];
        pv.spec = spec;
      },
    };
  },
});
