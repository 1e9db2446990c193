// LimitPodHardAntiAffinityTopology: required pod anti-affinity may only spread over hostnames, so one pod
// cannot keep a whole zone to itself.
import { definePlugin } from '../types.js';
import type { Pod } from '../../api/types/core-v1.js';
import { isWriteOf, refuse } from '../util.js';

export default definePlugin({
  name: 'LimitPodHardAntiAffinityTopology',
  defaultOn: false,
  create: ({ names }) => ({
    name: 'LimitPodHardAntiAffinityTopology',
    operations: ['CREATE', 'UPDATE'],
    validate(a) {
      if (!isWriteOf(a, '', 'pods')) return;
      const hostname = names.label('hostname');
      const terms = (a.object as Pod).spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
      for (const t of terms)
        if (t?.topologyKey !== hostname)
          throw refuse(a, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${t?.topologyKey} but only key ${hostname} is allowed`);
    },
  }),
});
