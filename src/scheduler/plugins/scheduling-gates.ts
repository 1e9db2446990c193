// PreEnqueue: a pod with scheduling gates is held out of the active queue until its gates are removed.
import { unresolvable, type PluginSpec } from '../framework.js';

export const schedulingGates: PluginSpec = {
  name: 'SchedulingGates',
  create: () => ({
    name: 'SchedulingGates',
    events: ['Pod/Update'],
    preEnqueue(pod) {
      const gates = pod.spec.schedulingGates ?? [];
      return gates.length ? unresolvable(`waiting for scheduling gates: [${gates.map((g) => g.name).join(' ')}]`) : undefined;
    },
  }),
};
