// scheduling/v1 priority classes: a value, fixed once set; user classes stay below the system ones.
import type { Stored } from '../../../../api/meta.js';
import type { PriorityClass } from '../../../../api/types/scheduling-v1.js';
import * as s from '../../../../api/schemas/scheduling-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, forbidden, immutable, oneOf } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const maxUserPriority = 1_000_000_000;

export const strategy = defineStrategy<Stored<PriorityClass>>({
  generation: false,
  defaults: pc => { fill(pc, { preemptionPolicy: 'PreemptLowerPriority', value: 0 }); },
  validate(pc) {
    const out: Causes = [];
    const system = String(pc.metadata.name ?? '').startsWith('system-');
    if (!system && pc.value > maxUserPriority)
      out.push(forbidden('value', `maximum allowed value of a user defined priority is ${maxUserPriority}`));
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
