// Filter: a node marked unschedulable (kubectl cordon) takes only pods that tolerate its unschedulable taint.
import { unresolvable, type PluginSpec } from '../framework.js';
import { tolerates } from '../matching.js';

export const reasonUnschedulable = 'node(s) were unschedulable';

export const nodeUnschedulable: PluginSpec = {
  name: 'NodeUnschedulable',
  create: (_args, handle) => {
    const taint = { key: `node.${handle.names.labelDomain}/unschedulable`, effect: 'NoSchedule' as const };
    return {
      name: 'NodeUnschedulable',
      events: ['Node/Add', 'Node/UpdateNodeTaint'],
      filter(_state, pod, node) {
        if (!node.node.spec?.unschedulable) return undefined;
        return (pod.pod.spec.tolerations ?? []).some((t) => tolerates(t, taint)) ? undefined : unresolvable(reasonUnschedulable);
      },
    };
  },
};
