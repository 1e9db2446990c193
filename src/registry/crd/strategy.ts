// The strategy of a custom resource: on every write the object is pruned to its structural schema, defaulted,
// and validated against it (CEL rules, x-kubernetes-validations, are not evaluated yet). Updates must name
// the resourceVersion they replace, as the reference requires for custom resources.
import type { ApiObject } from '../../api/meta.js';
import { defineStrategy, type Strategy } from '../strategy.js';
import { prune } from '../../schema/prune.js';
import { applyDefaults } from '../../schema/defaults.js';
import { validateValue, type ValidationSchema } from '../../schema/validate.js';

export interface CustomResourceShape {
  /** the openAPIV3Schema objects are checked against (the storage version's) */
  schema: ValidationSchema;
  /** status is written only through the status subresource */
  statusSubresource: boolean;
}

export function customResourceStrategy({ schema, statusSubresource }: CustomResourceShape): Strategy {
  /** pruning then defaulting, as the reference applies them on decoding and again after mutating admission */
  const normalize = (obj: ApiObject) => {
    prune(schema, obj, true);
    applyDefaults(schema, obj);
  };
  // validate runs on every write, subresource writes and mutated objects included, so it normalizes first
  const check = (obj: ApiObject) => {
    normalize(obj);
    return validateValue(schema, obj);
  };
  return defineStrategy({
    nameRule: 'dns-subdomain',
    allowUnconditionalUpdate: false,
    generation: true,
    prepareForCreate(obj) {
      if (statusSubresource) delete (obj as { status?: unknown }).status;
      normalize(obj);
    },
    prepareForUpdate: normalize,
    validate: check,
    validateUpdate: check,
  });
}
