// Filter: a pod that names its node fits only there.
import { nodeUpdates, unresolvable, type PluginSpec } from '../framework.js';

export const reasonNodeName = "node(s) didn't match the requested node name";

export const nodeName: PluginSpec = {
  name: 'NodeName',
  create: () => ({
    name: 'NodeName',
    events: ['Node/Add', ...nodeUpdates],
    filter: (_state, pod, node) => (pod.pod.spec.nodeName && pod.pod.spec.nodeName !== node.name ? unresolvable(reasonNodeName) : undefined),
  }),
};
