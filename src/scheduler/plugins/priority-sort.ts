// QueueSort: higher priority first, then the pod that has waited longer.
import { podPriority, type PluginSpec } from '../framework.js';

export const prioritySort: PluginSpec = {
  name: 'PrioritySort',
  create: () => ({
    name: 'PrioritySort',
    less(a, b) {
      const pa = podPriority(a.info.pod);
      const pb = podPriority(b.info.pod);
      return pa > pb || (pa === pb && a.timestamp < b.timestamp);
    },
  }),
};
