// A custom resource's schema as the reference publishes it. In both documents an embedded resource
// (x-kubernetes-embedded-resource) declares apiVersion, kind and metadata, which every object has; in v3 an
// x-kubernetes-int-or-string value also says it is one of an integer or a string (anyOf). The Swagger
// 2.0 document is read by kubectl's client-side validation (kubectl 1.24 and older), which refuses fields a
// schema does not name and cannot read junctors or nullable types; so there, whatever keeps unknown fields is
// written without its fields or type, nullable values without a type, and the junctors are left out, so that
// kubectl accepts what the server accepts.
import type { Schema } from '../api/schema.js';
import { objectMeta } from '../api/schemas/meta.js';
import { objectFields } from '../api/schemas/descriptions/common.js';

type Node = Schema & Record<string, unknown>;

const junctors = ['allOf', 'anyOf', 'oneOf', 'not'];

/** one schema object in the form kubectl's validation reads, its children left as they are */
function forKubectl(s: Node): Node {
  const out: Node = { ...s };
  for (const k of junctors) delete out[k];
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  if (s.nullable) { delete out.type; delete out.nullable; delete out.items; delete out.properties; }
  if (preserve) { delete out.items; delete out.properties; }
  if (out.type === 'array' && !out.items) delete out.type;
  if (preserve && out.type === 'object') delete out.type;
  // a nullable field may be null, which kubectl would read as missing
  if (out.required && out.properties) {
    const props = out.properties;
    out.required = out.required.filter(f => !(Object.hasOwn(props, f) && props[f].nullable));
  }
  if (typeof s.additionalProperties === 'object' && s.additionalProperties.nullable) delete out.required;
  if (out.required && !out.required.length) delete out.required;
  return out;
}

function withTypeAndObjectMeta(s: Node) {
  s.properties = {
    ...s.properties,
    apiVersion: { type: 'string', description: objectFields.apiVersion },
    kind: { type: 'string', description: objectFields.kind },
    metadata: { ...objectMeta, description: objectFields.metadata },
  };
  const required = s.required ?? [];
  s.required = [...required, ...['kind', 'apiVersion'].filter(f => !required.includes(f))];
}

const intOrString = [{ type: 'integer' }, { type: 'string' }];
const isIntOrString = (list: unknown) => JSON.stringify(list) === JSON.stringify(intOrString);

/** x-kubernetes-int-or-string spelled out in v3: one of an integer or a string, beside the schema's own anyOf if any */
function unfoldIntOrString(s: Node): Node {
  if (s['x-kubernetes-int-or-string'] !== true) return s;
  const allOf = s.allOf as Node[] | undefined;
  if (isIntOrString(s.anyOf) || isIntOrString(allOf?.[0]?.anyOf)) return s;
  if (s.anyOf === undefined) return { ...s, anyOf: intOrString };
  return { ...s, allOf: [{ anyOf: intOrString }, ...(allOf ?? [])] };
}

function publishedNode(s: Node, v2: boolean): Node {
  // a definition of the catalog (the object metadata) is written as it is
  if (s['x-ref']) return s;
  const out = v2 ? forKubectl(s) : unfoldIntOrString({ ...s });
  if (out.items) out.items = publishedNode(out.items as Node, v2);
  if (out.properties) out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, c]) => [k, publishedNode(c as Node, v2)]));
  if (typeof out.additionalProperties === 'object') out.additionalProperties = publishedNode(out.additionalProperties as Node, v2);
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded && !(v2 && s['x-kubernetes-preserve-unknown-fields'] === true)) withTypeAndObjectMeta(out);
  return out;
}

/** The published form of a custom resource's whole schema (apiVersion, kind and metadata included); `v2`
 *  for the Swagger 2.0 document, where a kind that keeps unknown fields is only an object. */
export function publishedCustomSchema(schema: Schema, v2: boolean): Schema {
  if (v2 && schema['x-kubernetes-preserve-unknown-fields'] === true) return { type: 'object' };
  return publishedNode(schema as Node, v2);
}
