// scheduling/v1 definitions.
import { apiRef, bool, int32, oneOf, str } from './build.js';
import { kind } from './meta.js';

export const priorityClass = kind(apiRef('scheduling.v1', 'PriorityClass'), {
  value: int32(),
  globalDefault: bool(),
  description: str(),
  preemptionPolicy: oneOf('Never', 'PreemptLowerPriority'),
}, { required: ['value'] });
