// scheduling/v1 priority classes: a value, fixed once set; user classes stay below the system ones.
import type { Stored } from '../../../../api/meta.js';
import type { PriorityClass } from '../../../../api/types/scheduling-v1.js';
import * as s from '../../../../api/schemas/scheduling-v1.js';
import { systemPriorityClasses, systemPriorityClassPrefix } from '../../../../api/priority-classes.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, forbidden, immutable, oneOf } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const maxUserPriority = 1_000_000_000;

/** why a class of a reserved name is not the system class of that name, or '' when it is */
function systemClassProblem(name: string, pc: PriorityClass): string {
  const known = systemPriorityClasses.find(c => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (pc.value !== known.value) return `value of ${name} PriorityClass must be ${known.value}`;
  if ((pc.globalDefault ?? false) !== false) return `globalDefault of ${name} PriorityClass must be false`;
  return '';
}

export const strategy = defineStrategy<Stored<PriorityClass>>({
  generation: false,
  defaults: pc => { fill(pc, { preemptionPolicy: 'PreemptLowerPriority', value: 0 }); },
  validate(pc) {
    const out: Causes = [];
    const name = String(pc.metadata.name ?? '');
    if (name.startsWith(systemPriorityClassPrefix)) {
      const problem = systemClassProblem(name, pc);
      if (problem) out.push(forbidden('metadata.name', `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${problem}`));
    } else if (pc.value > maxUserPriority) {
      out.push(forbidden('value', `maximum allowed value of a user defined priority is ${maxUserPriority}`));
    }
    out.push(...oneOf('preemptionPolicy', pc.preemptionPolicy, ['Never', 'PreemptLowerPriority']));
    return out;
  },
  validateUpdate(pc, old) {
    const out: Causes = [];
    if (pc.value !== old.value) out.push(forbidden('value', 'may not be changed in an update.'));
    out.push(...immutable('preemptionPolicy', pc.preemptionPolicy, old.preemptionPolicy));
    return out;
  },
});

const columns: TableColumn<PriorityClass>[] = [
  column('Value', 'integer', o => o.value ?? 0, 'The value of the priority class.'),
  column('Global-Default', 'boolean', o => o.globalDefault ?? false, 'Whether the priority class is the default.'),
  age,
];

export const definition = define<PriorityClass>({
  group: 'scheduling', domainGroup: true, resource: 'priorityclasses', kind: 'PriorityClass', shortNames: ['pc'],
  namespaced: false, versions: only('v1', s.priorityClass), strategy, columns,
});
