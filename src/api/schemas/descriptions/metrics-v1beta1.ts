// metrics/v1beta1: the resource usage a metrics server measured, as `top` and autoscalers read it.
import { kind, type DescriptionTable } from './common.js';

const measured = {
  timestamp: 'The end of the interval the usage was measured over: the time of the newer of the two samples it was computed from.',
  window: 'The length of the interval the usage was measured over, which ends at timestamp (the time between the two samples).',
};

export default {
  NodeMetrics: kind('The resource usage of one node, as last measured: CPU as the average rate over the window, memory as the working set at its end.', {
    ...measured,
    usage: 'What the node uses: cpu in cores (usually written in nanocores, as 250000000n) and memory in bytes (usually in Ki).',
  }),
  PodMetrics: kind('The resource usage of one pod\'s containers, as last measured; the pod\'s name, namespace and labels are in its metadata.', {
    ...measured,
    containers: 'The usage of each of the pod\'s containers that was measured, in the order of the pod\'s spec.',
  }),
  ContainerMetrics: {
    '': 'The resource usage of one container.',
    name: 'The container\'s name, as the pod\'s spec gives it.',
    usage: 'What the container uses: cpu in cores (the average rate over the window) and memory (the working set) in bytes.',
  },
} satisfies DescriptionTable;
