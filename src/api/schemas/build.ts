// Small constructors for the schema catalog. Each reference definition is written once as a shared
// object (named by `x-ref`), and fields point at it, so the catalog reads like the API reference.
import type { Schema } from '../schema.js';

/** reference definition names: io.k8s.api.<group>.<version>.<Kind> and the apimachinery ones */
export const apiRef = (groupVersion: string, kind: string) => `io.k8s.api.${groupVersion}.${kind}`;
export const metaRef = (kind: string) => `io.k8s.apimachinery.pkg.apis.meta.v1.${kind}`;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const int32 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int32', ...extra });
export const int64 = (extra: Schema = {}): Schema => ({ type: 'integer', format: 'int64', ...extra });
export const double = (extra: Schema = {}): Schema => ({ type: 'number', format: 'double', ...extra });
export const bytes = (extra: Schema = {}): Schema => ({ type: 'string', format: 'byte', ...extra });
export const oneOf = (...values: string[]): Schema => ({ type: 'string', enum: values });

/** an object definition; `ref` names it, `required` lists the fields the reference requires */
export function obj(ref: string | undefined, properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return { type: 'object', ...(ref ? { 'x-ref': ref } : {}), properties, ...extra };
}

/** a struct the reference marks +structType=atomic: replaced as a whole by apply */
export function atomicObj(ref: string, properties: Record<string, Schema>, extra: Schema = {}): Schema {
  return obj(ref, properties, { ...extra, 'x-kubernetes-map-type': 'atomic' });
}

export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const mapOf = (values: Schema, extra: Schema = {}): Schema => ({ type: 'object', additionalProperties: values, ...extra });
export const stringMap = (extra: Schema = {}): Schema => mapOf(str(), extra);

/** +listType=atomic */
export const atomicList = (items: Schema, extra: Schema = {}) => arr(items, { ...extra, 'x-kubernetes-list-type': 'atomic' });
/** +listType=set */
export const setList = (items: Schema, extra: Schema = {}) => arr(items, { ...extra, 'x-kubernetes-list-type': 'set' });
/** +listType=map with its keys */
export const mapList = (items: Schema, keys: string[], extra: Schema = {}) =>
  arr(items, { ...extra, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });

/** strategic-merge markers: +patchMergeKey and +patchStrategy */
export const patch = (key: string | undefined, strategy = 'merge'): Schema =>
  key ? { 'x-kubernetes-patch-merge-key': key, 'x-kubernetes-patch-strategy': strategy } : { 'x-kubernetes-patch-strategy': strategy };

/** a list merged by `key` in strategic merge patch and (with listMap) keyed in apply */
export const mergeList = (items: Schema, key: string, strategy = 'merge', extra: Schema = {}) =>
  arr(items, { ...patch(key, strategy), ...extra });

// apimachinery scalars
export const time: Schema = { type: 'string', format: 'date-time', 'x-ref': metaRef('Time') };
export const microTime: Schema = { type: 'string', format: 'date-time', 'x-ref': metaRef('MicroTime') };
export const duration: Schema = { type: 'string', 'x-ref': metaRef('Duration') };
/** a quantity is written as a string ("500m", "1Gi") or a number; no JSON type is fixed */
export const quantity: Schema = { format: 'quantity', 'x-ref': 'io.k8s.apimachinery.pkg.api.resource.Quantity' };
export const intOrString: Schema = {
  format: 'int-or-string', 'x-kubernetes-int-or-string': true, 'x-ref': 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
};
export const resourceList = mapOf(quantity);
/** an embedded object of any kind (runtime.RawExtension) */
export const rawExtension: Schema = {
  type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-ref': 'io.k8s.apimachinery.pkg.runtime.RawExtension',
};
/** free-form JSON (apiextensions JSON) */
export const anyJson: Schema = { 'x-kubernetes-preserve-unknown-fields': true };
