// node/v1: runtime classes.
import { kind, type DescriptionTable } from './common.js';

export default {
  RuntimeClass: kind('A RuntimeClass names a container runtime configuration, such as a sandboxed runtime, that pods choose with runtimeClassName.', {
    handler: 'The runtime configuration nodes run the pods with, as their container runtime names it; a DNS label. Cannot change.',
    overhead: 'The resources a pod of this class uses on top of its containers, added to its requests.',
    scheduling: 'The nodes that support this class; pods of the class are scheduled on them.',
  }),
  Overhead: { '': 'The resources a pod uses on top of its containers.', podFixed: 'A fixed amount of each resource per pod.' },
  Scheduling: {
    '': 'The nodes that support a RuntimeClass.',
    nodeSelector: 'Labels the nodes carry; merged into the node selector of the class\'s pods, and the pod is refused when they conflict.',
    tolerations: 'Tolerations added to the class\'s pods, for taints of the nodes that support it.',
  },
} satisfies DescriptionTable;
