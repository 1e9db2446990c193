// The strategy of a custom resource: on every write the object is pruned to its structural schema, defaulted,
// validated against it, and its CEL validation rules (x-kubernetes-validations) are evaluated, transition
// rules against the old object on updates. Updates must name the resourceVersion they replace, as the
// reference requires for custom resources.
import type { ApiObject, StatusCause } from '../../api/meta.js';
import { defineStrategy, type Strategy } from '../strategy.js';
import { prune } from '../../schema/prune.js';
import { applyDefaults } from '../../schema/defaults.js';
import { validateValue, type ValidationSchema } from '../../schema/validate.js';
import { hasRules, loadedRules, loadRules, type RulesEngine } from '../../cel/index.js';
import type { CompiledSchema } from '../../cel/rules.js';

export interface CustomResourceShape {
  /** the openAPIV3Schema objects are checked against (the storage version's) */
  schema: ValidationSchema;
  /** evaluate x-kubernetes-validations (default true; the CustomResourceValidationExpressions gate turns them off) */
  celRules?: boolean;
}

/** type errors leave values the rules cannot be evaluated on */
const blocking = (c: StatusCause) => c.reason === 'FieldValueTypeInvalid';

export function customResourceStrategy({ schema, celRules = true }: CustomResourceShape): Strategy {
  // the rules compile once, in slices that let other requests run between them (a CRD may have tens of thousands of
  // rules): started when the strategy is made if the CEL engine is loaded, else on the first write (which loads it);
  // a write waits for it in its prepare step
  const withRules = celRules && hasRules(schema);
  let compiled: CompiledSchema | undefined;
  let compiling: Promise<CompiledSchema> | undefined;
  const compile = (engine: RulesEngine) => (compiling ??= engine.compileSchemaInSlices(schema, '').then(
    c => (compiled ??= c),
    e => { compiling = undefined; throw e; }));
  const rulesReady = async () => {
    if (withRules && !compiled) await compile(await loadRules());
  };
  if (withRules && loadedRules()) compile(loadedRules()!).catch(() => { /* the first write compiles again and fails there */ });

  /** pruning then defaulting, as the reference applies them on decoding and again to what a mutating webhook returns */
  const normalize = (obj: ApiObject) => {
    prune(schema, obj, true);
    applyDefaults(schema, obj);
  };
  // validate runs on every write, subresource writes and mutated objects included, so it normalizes first
  const check = (obj: ApiObject, old?: ApiObject) => {
    normalize(obj);
    const causes = validateValue(schema, obj);
    if (!withRules) return causes;
    if (causes.some(blocking)) {
      causes.push({ reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' });
      return causes;
    }
    const engine = loadedRules();
    if (!engine) throw new Error('validation rules are not loaded');
    compiled ??= engine.compileSchema(schema, '');
    return [...causes, ...engine.validateRules(compiled, schema, obj, old)];
  };
  return defineStrategy({
    nameRule: 'dns-subdomain',
    allowUnconditionalUpdate: false,
    generation: true,
    generationCountsStatus: true,
    defaults: normalize,
    prepareForCreate: rulesReady,
    prepareForUpdate: rulesReady,
    validate: obj => check(obj),
    validateUpdate: (obj, old) => check(obj, old),
    validateStatusUpdate: (obj, old) => check(obj, old),
  });
}
