// scheduling/v1: priority classes.
import { kind, type DescriptionTable } from './common.js';

export default {
  PriorityClass: kind('A PriorityClass maps a name to a priority; pods choose one with priorityClassName, and pods of higher priority are scheduled first and may preempt others.', {
    value: 'The priority; higher is more important. At most one billion for user classes; higher values are reserved for system classes.',
    globalDefault: 'Whether pods without a priority class get this one. Only one class may say so.',
    description: 'A note on when pods should use this class.',
    preemptionPolicy: 'Whether pods of this class may preempt pods of lower priority: "PreemptLowerPriority" (the default) or "Never".',
  }),
} satisfies DescriptionTable;
