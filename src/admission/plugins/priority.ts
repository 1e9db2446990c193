// Priority: a pod's integer priority and preemption policy come from its PriorityClass (or the global
// default class); the two system classes always exist. Also keeps one global default among the classes.
import { definePlugin } from '../types.js';
import { isWriteOf, podSpec, refuse } from '../util.js';
import type { Stored } from '../../api/meta.js';
import type { Listers } from '../../api/admission.js';
import type { PodSpec } from '../../api/types/core-v1.js';
import type { PriorityClass } from '../../api/types/scheduling-v1.js';
import { systemPriorityClasses } from '../../api/priority-classes.js';

/** the system classes, known even before the server's start has stored them */
const systemValues: Record<string, number> = Object.fromEntries(systemPriorityClasses.map(c => [c.name, c.value]));

interface Resolved { name: string; value: number; preemptionPolicy: NonNullable<PodSpec['preemptionPolicy']> }

async function resolve(listers: Listers, group: string, className: string): Promise<Resolved | undefined> {
  const stored = await listers.get(group, 'priorityclasses', '', className) as Partial<PriorityClass> | undefined;
  if (stored) return { name: className, value: stored.value ?? 0, preemptionPolicy: stored.preemptionPolicy ?? 'PreemptLowerPriority' };
  if (className in systemValues) return { name: className, value: systemValues[className]!, preemptionPolicy: 'PreemptLowerPriority' };
  return undefined;
}

/** the global default with the lowest value, as the reference picks when several claim it */
async function globalDefault(listers: Listers, group: string): Promise<Stored<Partial<PriorityClass>> | undefined> {
  const defaults = (await listers.list(group, 'priorityclasses', '') as Stored<Partial<PriorityClass>>[]).filter(c => c.globalDefault === true);
  return defaults.sort((x, y) => (x.value ?? 0) - (y.value ?? 0))[0];
}

export default definePlugin({
  name: 'Priority',
  defaultOn: true,
  create: ({ listers, names }) => {
    const group = names.group('scheduling');
    return {
      name: 'Priority',
      operations: ['CREATE', 'UPDATE'],
      resources: [['', 'pods'], [group, 'priorityclasses']],
      async admit(a) {
        if (a.operation !== 'CREATE' || !isWriteOf(a, '', 'pods')) return;
        const spec = podSpec(a.object);
        let resolved: Resolved | undefined;
        if (spec.priorityClassName) {
          resolved = await resolve(listers, group, spec.priorityClassName);
          if (!resolved) throw refuse(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
        } else {
          const d = await globalDefault(listers, group);
          resolved = d ? { name: d.metadata.name!, value: d.value ?? 0, preemptionPolicy: d.preemptionPolicy ?? 'PreemptLowerPriority' }
            : { name: '', value: 0, preemptionPolicy: 'PreemptLowerPriority' };
          if (resolved.name) spec.priorityClassName = resolved.name;
        }
        if (spec.priority != null && spec.priority !== resolved.value)
          throw refuse(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${resolved.value} from the given PriorityClass name`);
        spec.priority = resolved.value;
        if (spec.preemptionPolicy != null && spec.preemptionPolicy !== resolved.preemptionPolicy)
          throw refuse(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${resolved.preemptionPolicy} from the given PriorityClass name`);
        spec.preemptionPolicy = resolved.preemptionPolicy;
      },
      async validate(a) {
        if (!isWriteOf(a, group, 'priorityclasses') || (a.object as Partial<PriorityClass>).globalDefault !== true) return;
        const existing = await globalDefault(listers, group);
        if (existing && existing.metadata.name !== a.object!.metadata.name)
          throw refuse(a, `PriorityClass ${existing.metadata.name} is already marked as default. Only one default can exist`);
      },
    };
  },
});
