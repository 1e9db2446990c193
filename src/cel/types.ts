// The CEL types of values under an OpenAPI schema, as the reference's apiextensions CEL sees them: objects with
// properties are structs with those fields, objects with additionalProperties are maps, arrays are lists,
// int-or-string and unknown-preserving nodes are dyn. Each type carries the most elements (characters, items,
// entries) a value of it can have, from maxLength/maxItems/maxProperties or else from the request size limit,
// which is what the cost estimator multiplies by.
import type { ValidationSchema } from '../schema/validate.js';

export type Kind = 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'null' | 'dyn' | 'timestamp' | 'duration'
  | 'type' | 'list' | 'map' | 'object' | 'url' | 'authorizer';

export interface CelType {
  kind: Kind;
  /** list element */
  elem?: CelType;
  /** map key and value */
  key?: CelType;
  value?: CelType;
  /** object fields; an object with none known and open is dyn instead */
  fields?: Record<string, CelType>;
  /** largest size (characters, bytes, items or entries) a value can have, when the schema bounds it */
  maxSize?: number;
}

/** the request size the reference assumes when a schema sets no bound (3 MiB) */
export const maxRequestSizeBytes = 3 * 1024 * 1024;

export const dyn: CelType = { kind: 'dyn' };
export const scalar = (kind: Kind): CelType => ({ kind });
export const listOf = (elem: CelType, maxSize?: number): CelType => ({ kind: 'list', elem, maxSize });
export const mapOf = (key: CelType, value: CelType, maxSize?: number): CelType => ({ kind: 'map', key, value, maxSize });

/** the fewest bytes a value of the schema takes in JSON, for the reference's estimates of unbounded sizes */
function minSerializedSize(s: ValidationSchema | undefined): number {
  if (!s || s['x-kubernetes-int-or-string']) return 1;
  switch (s.type) {
    case 'string': return 2;          // ""
    case 'boolean': return 4;         // true
    case 'integer': case 'number': return 1;
    case 'object': case 'array': return 2;   // {} []
    default: return 1;
  }
}

/** types already made, so a schema that contains itself (JSONSchemaProps) has a type that contains itself */
const made = new WeakMap<object, CelType>();

/** the CEL type of values under a schema; `root` adds the apiVersion, kind and metadata every object has */
export function typeOfSchema(s: ValidationSchema | undefined, root = false): CelType {
  if (!s) return dyn;
  if (s['x-kubernetes-int-or-string']) return dyn;
  if (!root) {
    const known = made.get(s);
    if (known) return known;
  }
  switch (s.type) {
    case 'integer': return scalar('int');
    case 'number': return scalar('double');
    case 'boolean': return scalar('bool');
    case 'string': {
      if (s.format === 'byte') return { kind: 'bytes', maxSize: s.maxLength ?? maxRequestSizeBytes - 2 };
      if (s.format === 'duration') return scalar('duration');
      if (s.format === 'date' || s.format === 'date-time') return scalar('timestamp');
      return { kind: 'string', maxSize: s.maxLength ?? maxRequestSizeBytes - 2 };
    }
    case 'array': {
      const t = listOf(dyn, s.maxItems ?? Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(s.items) + 1)));
      if (!root) made.set(s, t);
      t.elem = typeOfSchema(s.items);
      return t;
    }
    case 'object': {
      const maxProperties = (s as { maxProperties?: number }).maxProperties;
      if (typeof s.additionalProperties === 'object' && !s.properties) {
        const t = mapOf(scalar('string'), dyn,
          maxProperties ?? Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(s.additionalProperties) + 6)));
        if (!root) made.set(s, t);
        t.value = typeOfSchema(s.additionalProperties);
        return t;
      }
      // an object that keeps unknown fields and names none is open: anything may be selected from it
      if (s['x-kubernetes-preserve-unknown-fields'] && !Object.keys(s.properties ?? {}).length && !root) return dyn;
      const fields: Record<string, CelType> = {};
      const t: CelType = { kind: 'object', fields, maxSize: maxProperties ?? Math.floor((maxRequestSizeBytes - 2) / 7) };
      if (!root) made.set(s, t);
      for (const [k, v] of Object.entries(s.properties ?? {})) fields[k] = typeOfSchema(v);
      if (root || s['x-kubernetes-embedded-resource']) {
        fields.apiVersion ??= { kind: 'string', maxSize: maxRequestSizeBytes - 2 };
        fields.kind ??= { kind: 'string', maxSize: maxRequestSizeBytes - 2 };
        fields.metadata = {
          kind: 'object',
          fields: { name: { kind: 'string', maxSize: 253 }, generateName: { kind: 'string', maxSize: 253 } },
        };
      }
      if (s['x-kubernetes-preserve-unknown-fields'] && !Object.keys(s.properties ?? {}).length) return { kind: 'dyn' };
      return t;
    }
    default:
      return dyn;
  }
}

export function typeName(t: CelType | undefined): string {
  if (!t) return 'dyn';
  switch (t.kind) {
    case 'list': return `list(${typeName(t.elem)})`;
    case 'map': return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'object': return 'object';
    case 'timestamp': return 'google.protobuf.Timestamp';
    case 'duration': return 'google.protobuf.Duration';
    case 'url': return 'kubernetes.URL';
    case 'authorizer': return 'kubernetes.authorization.Authorizer';
    default: return t.kind;
  }
}
