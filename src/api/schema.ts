// The schema form of the catalog: an OpenAPI v3 schema object (refs resolved to shared objects)
// with the reference's extensions. One catalog feeds validation, defaulting, strategic merge patch,
// server-side apply, OpenAPI documents, Table columns and protobuf field numbers.

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface Schema {
  type?: SchemaType;
  /** int32, int64, double, byte, date-time, int-or-string, quantity, ... */
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  /** map values (a Schema) or whether unknown keys are allowed */
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  /** name of the shared definition this schema came from, e.g. io.k8s.api.core.v1.Container */
  'x-ref'?: string;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-merge-key'?: string;
  /** 'merge', 'replace', 'retainKeys' or 'merge,retainKeys' */
  'x-kubernetes-patch-strategy'?: string;
  /** protobuf field number of this property in its parent message */
  'x-proto'?: number;
}

/**
 * The schema a type declares for one property. Only its own entries count: a field a client names `constructor`,
 * `toString` or `__proto__` is unknown, not the properties every JavaScript object inherits.
 */
export function declaredProperty<S extends Schema>(s: S | undefined, field: string): S | undefined {
  const props = s?.properties as Record<string, S> | undefined;
  return props && Object.hasOwn(props, field) ? props[field] : undefined;
}

/** child schema of a field, or undefined when the schema says nothing about it */
export function fieldSchema<S extends Schema>(s: S | undefined, field: string): S | undefined {
  if (!s) return undefined;
  return declaredProperty(s, field) ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties as S : undefined);
}
