// The strategy of a custom resource: on every write the object is pruned to its structural schema, defaulted,
// validated against it, and its CEL validation rules (x-kubernetes-validations) are evaluated, transition
// rules against the old object on updates. Updates must name the resourceVersion they replace, as the
// reference requires for custom resources.
import type { ApiObject, ObjectMeta, StatusCause } from '../../api/meta.js';
import { defineStrategy, type Strategy } from '../strategy.js';
import { prune } from '../../schema/prune.js';
import { applyDefaults } from '../../schema/defaults.js';
import { validateValue, type ValidationSchema } from '../../schema/validate.js';
import { hasRules, loadedRules, loadRules, type RulesEngine } from '../../cel/index.js';
import type { CompiledSchema } from '../../cel/rules.js';
import { validateObjectMeta } from '../validation/object-meta.js';
import { readTyped } from '../../schema/fields.js';
import { objectMeta } from '../../api/schemas/meta.js';
import type { Schema } from '../../api/schema.js';

export interface CustomResourceShape {
  /** the openAPIV3Schema objects are checked against (the storage version's) */
  schema: ValidationSchema;
  /** evaluate x-kubernetes-validations (default true; the CustomResourceValidationExpressions gate turns them off) */
  celRules?: boolean;
}

const embeddedMeta: Schema = { type: 'object', properties: { metadata: objectMeta } };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** whether any schema below (or at) s marks an embedded resource */
const hasEmbedded = (s: ValidationSchema | undefined): boolean => !!s && (!!s['x-kubernetes-embedded-resource']
  || Object.values(s.properties ?? {}).some(hasEmbedded)
  || (typeof s.additionalProperties === 'object' && hasEmbedded(s.additionalProperties)) || hasEmbedded(s.items));

/**
 * The object metadata of each embedded resource (x-kubernetes-embedded-resource) is checked as object metadata
 * is, as the reference does: labels, annotations, finalizers, owner references, and a name (if given) that is a
 * path segment.
 */
function embeddedMetaProblems(s: ValidationSchema | undefined, v: unknown, path: string, out: StatusCause[]) {
  if (!s) return;
  if (Array.isArray(v)) { v.forEach((x, i) => embeddedMetaProblems(s.items, x, `${path}[${i}]`, out)); return; }
  if (!isObject(v)) return;
  if (s['x-kubernetes-embedded-resource'] && isObject(v.metadata)) {
    // read as object metadata first, as the reference decodes it: a wrong type is reported on the metadata
    const { wrongTypes } = readTyped(embeddedMeta, { metadata: v.metadata }, { zeroNulls: true });
    if (wrongTypes.length) {
      out.push({ reason: 'FieldValueInvalid', field: `${path ? `${path}.` : ''}metadata`, message: `Invalid value: "object": ${wrongTypes.join(', ')}` });
      return;
    }
    const given = v.metadata as ObjectMeta;
    // a name is not required there: a stand-in is checked in its place
    const meta: ObjectMeta = { ...given, name: typeof given.name === 'string' && given.name ? given.name : 'fakename' };
    for (const c of validateObjectMeta(meta, !!meta.namespace, 'path-segment'))
      out.push({ ...c, field: `${path ? `${path}.` : ''}${c.field}` });
  }
  for (const [k, x] of Object.entries(v)) {
    const child = s.properties?.[k];
    if (child) embeddedMetaProblems(child, x, path ? `${path}.${k}` : k, out);
    else if (typeof s.additionalProperties === 'object') embeddedMetaProblems(s.additionalProperties, x, `${path}[${k}]`, out);
  }
}

/** type errors leave values the rules cannot be evaluated on */
const blocking = (c: StatusCause) => c.reason === 'FieldValueTypeInvalid';

export function customResourceStrategy({ schema, celRules = true }: CustomResourceShape): Strategy {
  // the rules compile once, in slices that let other requests run between them (a CRD may have tens of thousands of
  // rules): started when the strategy is made if the CEL engine is loaded, else on the first write (which loads it);
  // a write waits for it in its prepare step
  const withRules = celRules && hasRules(schema);
  const embedded = hasEmbedded(schema);
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
    if (embedded) embeddedMetaProblems(schema, obj, '', causes);
    if (withRules && causes.some(blocking))
      causes.push({ reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation' });
    return causes;
  };
  // the validation rules of the object, after check, for the writes check judges (the object's and its status's); in
  // steps, as one rule may take a second (a regular expression over a string of megabytes)
  const checkRules = async (obj: ApiObject, old: ApiObject | undefined, subresource: string, found: StatusCause[]) => {
    if (!withRules || found.some(blocking) || (subresource && subresource !== 'status')) return [];
    const engine = loadedRules();
    if (!engine) throw new Error('validation rules are not loaded');
    compiled ??= engine.compileSchema(schema, '');
    return engine.validateRulesInSteps(compiled, schema, obj, old);
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
    validateInSteps: checkRules,
  });
}
