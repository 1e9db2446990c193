// TaintNodesByCondition: a new node starts with the not-ready NoSchedule taint, so nothing is scheduled to it
// before its agent reports it ready (the node lifecycle controller removes the taint).
import { definePlugin } from '../types.js';
import type { Node, Taint } from '../../api/types/core-v1.js';
import { isWriteOf } from '../util.js';

export default definePlugin({
  name: 'TaintNodesByCondition',
  defaultOn: true,
  create: ({ names }) => {
    const key = `node.${names.labelDomain}/not-ready`;
    return {
      name: 'TaintNodesByCondition',
      operations: ['CREATE'],
      resources: [['', 'nodes']],
      admit(a) {
        if (!isWriteOf(a, '', 'nodes')) return;
        const spec = ((a.object as Node).spec ??= {});
        const taints: Taint[] = Array.isArray(spec.taints) ? spec.taints : (spec.taints = []);
        if (!taints.some(t => t?.key === key && t?.effect === 'NoSchedule')) taints.push({ key, effect: 'NoSchedule' });
      },
    };
  },
});
