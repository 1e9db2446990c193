// PreFilter and Filter: the host ports a pod asks for must be free on the node.
import { nodeUpdates, skip, unschedulable, type PluginSpec } from '../framework.js';
import { portTaken } from '../resources.js';

export const reasonPorts = "node(s) didn't have free ports for the requested pod ports";

export const nodePorts: PluginSpec = {
  name: 'NodePorts',
  create: () => ({
    name: 'NodePorts',
    events: ['Pod/Delete', 'Node/Add', ...nodeUpdates],
    preFilter: (_state, pod) => (pod.ports.length ? undefined : skip),
    filter: (_state, pod, node) => (pod.ports.some((p) => portTaken(node.usedPorts, p)) ? unschedulable(reasonPorts) : undefined),
  }),
};
