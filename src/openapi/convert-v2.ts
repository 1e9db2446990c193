// A Swagger 2.0 document written as an OpenAPI 3.0 document, for aggregated backends that serve no /openapi/v3:
// the reference converts their v2 document, so that clients that read only v3 (kubectl explain) still find their
// kinds. Definitions become component schemas, body parameters request bodies, and the media types of an operation
// the keys of its request and response contents.
type Json = Record<string, any>;

const refPrefixV2 = '#/definitions/';
const refPrefixV3 = '#/components/schemas/';

/** a schema with its references pointing at the component schemas */
function schemaV3(value: unknown): any {
  if (Array.isArray(value)) return value.map(schemaV3);
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(refPrefixV2) ? refPrefixV3 + v.slice(refPrefixV2.length) : schemaV3(v);
  }
  return out;
}

const extensionsOf = (o: Json) => Object.fromEntries(Object.entries(o).filter(([k]) => k.startsWith('x-')));

/** a query, path or header parameter: its type and constraints move into a schema */
function parameterV3(p: Json): Json {
  const { name, in: where, description, required, type: _type, format: _format, items: _items, collectionFormat: _cf, ...rest } = p;
  const schema: Json = {};
  for (const k of ['type', 'format', 'items', 'enum', 'default', 'uniqueItems', 'minimum', 'maximum', 'pattern']) if (p[k] !== undefined) schema[k] = schemaV3(p[k]);
  return {
    name, in: where, ...(description ? { description } : {}), ...(required ? { required } : {}),
    ...(Object.keys(schema).length ? { schema } : {}), ...extensionsOf(rest),
  };
}

/** a parameter as written, or the shared one it refers to (#/parameters/<name>) */
const resolved = (p: Json, doc: Json): Json =>
  typeof p.$ref === 'string' && p.$ref.startsWith('#/parameters/') ? doc.parameters?.[p.$ref.slice('#/parameters/'.length)] ?? p : p;

const content = (types: string[], schema: unknown) => Object.fromEntries(types.map(t => [t, { schema: schemaV3(schema) }]));

function operationV3(o: Json, doc: Json): Json {
  const consumes: string[] = o.consumes ?? doc.consumes ?? ['application/json'];
  const produces: string[] = o.produces ?? doc.produces ?? ['application/json'];
  const params: Json[] = (o.parameters ?? []).map((p: Json) => resolved(p, doc));
  const body = params.find(p => p.in === 'body');
  const out: Json = {};
  for (const k of ['tags', 'summary', 'description', 'operationId', 'deprecated']) if (o[k] !== undefined) out[k] = o[k];
  const others = params.filter(p => p.in !== 'body' && p.in !== 'formData');
  if (others.length) out.parameters = others.map(parameterV3);
  if (body) out.requestBody = { content: content(consumes, body.schema ?? {}), ...(body.required ? { required: true } : {}) };
  out.responses = Object.fromEntries(Object.entries<Json>(o.responses ?? {}).map(([code, r]) => [code, {
    description: r.description ?? '', ...(r.schema ? { content: content(produces, r.schema) } : {}),
  }]));
  return { ...out, ...extensionsOf(o) };
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

export function swaggerToOpenAPI3(doc: Json): Json {
  const paths: Json = {};
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const out: Json = {};
    for (const m of methods) if (item[m]) out[m] = operationV3(item[m], doc);
    const shared = (item.parameters ?? []).map((p: Json) => resolved(p, doc)).filter((p: Json) => p.in !== 'body' && p.in !== 'formData');
    if (shared.length) out.parameters = shared.map(parameterV3);
    paths[path] = { ...out, ...extensionsOf(item) };
  }
  return {
    openapi: '3.0.0', info: doc.info ?? { title: '', version: '' }, paths,
    components: { schemas: schemaV3(doc.definitions ?? {}) },
  };
}
