// An OpenAPI 3.0 group version document in the protobuf form clients may ask /openapi/v3/<path> for: the
// `openapi.v3.Document` message of the gnostic OpenAPI models, written from the JSON form as the reference
// converts it. Vendor extensions, enum values and examples travel as YAML text (JSON is valid YAML); a default
// that is not a number, boolean or string has no place in the message and is left out, as there.
import { any, bool, double, encodeMessage, extensions, int, securityRequirement, str, strs, sub } from './protobuf.js';

type Json = Record<string, any>;

// NamedX { name = 1; value = 2 }
function named(field: number, map: Json | undefined, value: (v: any) => void) {
  for (const [name, v] of Object.entries(map ?? {})) sub(field, () => { str(1, name); sub(2, () => value(v)); });
}

// SchemaOrReference { Schema schema = 1 | Reference reference = 2 }, Reference { _ref = 1; summary = 2; description = 3 }
function schemaOrReference(s: Json) {
  if (typeof s.$ref === 'string') sub(2, () => { str(1, s.$ref); str(2, s.summary); str(3, s.description); });
  else sub(1, () => schema(s));
}

// DefaultType { double number = 1 | bool boolean = 2 | string string = 3 }: members of a oneof are written even when zero
function defaultValue(v: unknown) {
  if (typeof v === 'number') sub(33, () => double(1, v, true));
  else if (typeof v === 'boolean') sub(33, () => bool(2, v, true));
  else if (typeof v === 'string') sub(33, () => str(3, v, true));
}

function schema(s: Json) {
  bool(1, s.nullable); bool(3, s.readOnly); bool(4, s.writeOnly);
  if (s.example !== undefined) any(7, s.example);
  bool(8, s.deprecated); str(9, s.title);
  double(10, s.multipleOf); double(11, s.maximum); bool(12, s.exclusiveMaximum);
  double(13, s.minimum); bool(14, s.exclusiveMinimum);
  int(15, s.maxLength); int(16, s.minLength); str(17, s.pattern);
  int(18, s.maxItems); int(19, s.minItems); bool(20, s.uniqueItems);
  int(21, s.maxProperties); int(22, s.minProperties);
  strs(23, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(24, e);
  if (s.type !== undefined) str(25, [s.type].flat()[0]);
  for (const [field, k] of [[26, 'allOf'], [27, 'oneOf'], [28, 'anyOf']] as const)
    if (Array.isArray(s[k])) for (const x of s[k]) sub(field, () => schemaOrReference(x));
  if (s.not && typeof s.not === 'object') sub(29, () => schema(s.not));
  // ItemsItem { repeated SchemaOrReference schema_or_reference = 1 }
  if (s.items !== undefined) sub(30, () => { for (const i of [s.items].flat()) sub(1, () => schemaOrReference(i)); });
  // Properties { repeated NamedSchemaOrReference additional_properties = 1 }
  if (s.properties) sub(31, () => named(1, s.properties, schemaOrReference));
  // AdditionalPropertiesItem { SchemaOrReference schema_or_reference = 1 | bool boolean = 2 }
  if (typeof s.additionalProperties === 'object') sub(32, () => sub(1, () => schemaOrReference(s.additionalProperties)));
  else if (typeof s.additionalProperties === 'boolean') sub(32, () => bool(2, s.additionalProperties, true));
  if (s.default !== undefined) defaultValue(s.default);
  str(34, s.description); str(35, s.format);
  extensions(36, s);
}

// MediaTypes { repeated NamedMediaType additional_properties = 1 }, MediaType { SchemaOrReference schema = 1 }
function mediaTypes(field: number, content: Json | undefined) {
  if (content) sub(field, () => named(1, content, (m: Json) => { if (m.schema) sub(1, () => schemaOrReference(m.schema)); extensions(5, m); }));
}

// ParameterOrReference { Parameter parameter = 1 }
function parameter(field: number, p: Json) {
  sub(field, () => sub(1, () => {
    str(1, p.name); str(2, p.in); str(3, p.description); bool(4, p.required); bool(5, p.deprecated);
    bool(6, p.allowEmptyValue); str(7, p.style); bool(8, p.explode); bool(9, p.allowReserved);
    if (p.schema) sub(10, () => schemaOrReference(p.schema));
    extensions(14, p);
  }));
}

function operation(o: Json) {
  strs(1, o.tags); str(2, o.summary); str(3, o.description); str(5, o.operationId);
  for (const p of o.parameters ?? []) parameter(6, p);
  // RequestBodyOrReference { RequestBody request_body = 1 }, RequestBody { description = 1; content = 2; required = 3 }
  if (o.requestBody) sub(7, () => sub(1, () => {
    str(1, o.requestBody.description); mediaTypes(2, o.requestBody.content); bool(3, o.requestBody.required);
  }));
  // Responses { repeated NamedResponseOrReference response_or_reference = 2 }, ResponseOrReference { Response response = 1 },
  // Response { description = 1; content = 3 }
  if (o.responses) sub(8, () => named(2, o.responses, (r: Json) => sub(1, () => {
    str(1, r.description); mediaTypes(3, r.content); extensions(5, r);
  })));
  bool(10, o.deprecated);
  extensions(13, o);
}

const methodFields: Record<string, number> = { get: 4, put: 5, post: 6, delete: 7, options: 8, head: 9, patch: 10, trace: 11 };

function pathItem(item: Json) {
  str(2, item.summary); str(3, item.description);
  for (const [method, field] of Object.entries(methodFields)) if (item[method]) sub(field, () => operation(item[method]));
  for (const p of item.parameters ?? []) parameter(13, p);
  extensions(14, item);
}

/** encodes an OpenAPI 3.0 document (the JSON form) as openapi.v3.Document */
export function encodeOpenAPIv3Document(doc: Json): Buffer {
  return encodeMessage(() => {
    str(1, doc.openapi);
    // Info { title = 1; description = 2; version = 6 }
    if (doc.info) sub(2, () => { str(1, doc.info.title); str(2, doc.info.description); str(6, doc.info.version); extensions(7, doc.info); });
    // Paths { repeated NamedPathItem path = 1 }
    if (doc.paths) sub(4, () => { named(1, doc.paths, pathItem); extensions(2, doc.paths); });
    // Components { SchemasOrReferences schemas = 1 }, SchemasOrReferences { repeated NamedSchemaOrReference additional_properties = 1 }
    // Components { SchemasOrReferences schemas = 1; SecuritySchemesOrReferences security_schemes = 7 }, each a list of
    // { name = 1; value = 2 }; SecuritySchemeOrReference { SecurityScheme security_scheme = 1 },
    // SecurityScheme { type = 1; description = 2; name = 3; in = 4 }
    if (doc.components) sub(5, () => {
      if (doc.components.schemas) sub(1, () => named(1, doc.components.schemas, schemaOrReference));
      if (doc.components.securitySchemes) sub(7, () => named(1, doc.components.securitySchemes, (s: Json) => sub(1, () => {
        str(1, s.type); str(2, s.description); str(3, s.name); str(4, s.in);
      })));
    });
    // SecurityRequirement { repeated NamedStringArray additional_properties = 1 }
    for (const r of doc.security ?? []) sub(6, () => securityRequirement(r));
    extensions(9, doc);
  });
}
