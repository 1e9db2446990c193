// The Swagger 2.0 document in the protobuf form clients fetch from /openapi/v2: the `openapi.v2.Document`
// message of the gnostic OpenAPI models. Vendor extensions, defaults and enum values travel as YAML text
// (JSON is valid YAML). Only the parts of the model the documents use are written.
type Json = Record<string, any>;


/** One growing buffer. A nested message is written in place and its length prefix inserted after it, which
 *  moves its bytes once per level of nesting; cheaper than collecting and joining pieces. */
let buf = Buffer.alloc(0);
let pos = 0;

function ensure(n: number) {
  if (pos + n <= buf.length) return;
  const next = Buffer.alloc(Math.max(buf.length * 2, pos + n, 1 << 16));
  buf.copy(next, 0, 0, pos);
  buf = next;
}

const varintSize = (n: number) => { let size = 1; while (n >= 128) { n = Math.floor(n / 128); size++; } return size; };

function varint(n: number) {
  ensure(10);
  if (n < 0) {
    // negative integers take ten bytes, as two's complement over 64 bits
    let v = BigInt.asUintN(64, BigInt(n));
    while (v > 127n) { buf[pos++] = Number(v & 127n) | 128; v >>= 7n; }
    buf[pos++] = Number(v);
    return;
  }
  while (n >= 128) { buf[pos++] = (n % 128) | 128; n = Math.floor(n / 128); }
  buf[pos++] = n;
}

const key = (field: number, wireType: number) => varint(field * 8 + wireType);

/** a length-delimited field whose content `fill` writes */
function sub(field: number, fill: () => void) {
  key(field, 2);
  const start = pos;
  fill();
  const length = pos - start;
  const size = varintSize(length);
  ensure(size);
  buf.copyWithin(start + size, start, pos);
  const end = pos + size;
  pos = start;
  varint(length);
  pos = end;
}

/** proto3 leaves empty strings out, except inside a oneof where presence matters */
function str(field: number, s: unknown, always = false) {
  if (typeof s !== 'string' || (s === '' && !always)) return;
  key(field, 2);
  const length = Buffer.byteLength(s);
  varint(length);
  ensure(length);
  pos += buf.write(s, pos, 'utf8');
}
function strs(field: number, list: unknown) {
  if (Array.isArray(list)) for (const s of list) if (s !== '') str(field, String(s));
}
/** proto3 leaves false and zero out, except inside a oneof where presence matters */
function bool(field: number, v: unknown, always = false) {
  if (v === true || (always && v === false)) { key(field, 0); varint(v ? 1 : 0); }
}
function int(field: number, v: unknown) {
  if (typeof v === 'number' && v !== 0) { key(field, 0); varint(Math.trunc(v)); }
}
function double(field: number, v: unknown, always = false) {
  if (typeof v !== 'number' || (v === 0 && !always)) return;
  key(field, 1);
  ensure(8);
  pos = buf.writeDoubleLE(v, pos);
}

// Any { yaml = 2 }
const any = (field: number, v: unknown) => sub(field, () => str(2, JSON.stringify(v)));
// NamedAny { name = 1; value = 2 }, written for every x- key
function extensions(field: number, o: Json) {
  for (const [k, v] of Object.entries(o)) if (k.startsWith('x-')) sub(field, () => { str(1, k); any(2, v); });
}

function schema(s: Json) {
  str(1, s.$ref); str(2, s.format); str(3, s.title); str(4, s.description);
  if (s.default !== undefined) any(5, s.default);
  double(6, s.multipleOf); double(7, s.maximum); bool(8, s.exclusiveMaximum);
  double(9, s.minimum); bool(10, s.exclusiveMinimum);
  int(11, s.maxLength); int(12, s.minLength); str(13, s.pattern);
  int(14, s.maxItems); int(15, s.minItems); bool(16, s.uniqueItems);
  int(17, s.maxProperties); int(18, s.minProperties);
  strs(19, s.required);
  if (Array.isArray(s.enum)) for (const e of s.enum) any(20, e);
  // AdditionalPropertiesItem { oneof { Schema schema = 1; bool boolean = 2 } }
  if (typeof s.additionalProperties === 'object') sub(21, () => sub(1, () => schema(s.additionalProperties)));
  else if (typeof s.additionalProperties === 'boolean') sub(21, () => bool(2, s.additionalProperties, true));
  // TypeItem { repeated string value = 1 }
  if (s.type !== undefined) sub(22, () => strs(1, [s.type].flat()));
  // ItemsItem { repeated Schema schema = 1 }
  if (s.items !== undefined) sub(23, () => { for (const i of [s.items].flat()) sub(1, () => schema(i)); });
  if (Array.isArray(s.allOf)) for (const a of s.allOf) sub(24, () => schema(a));
  // Properties { repeated NamedSchema additional_properties = 1 }
  if (s.properties) sub(25, () => namedSchemas(s.properties));
  bool(27, s.readOnly);
  if (s.example !== undefined) any(30, s.example);
  extensions(31, s);
}

// { repeated NamedSchema additional_properties = 1 }, NamedSchema { name = 1; value = 2 }
function namedSchemas(map: Json) {
  for (const [name, s] of Object.entries(map)) sub(1, () => { str(1, name); sub(2, () => schema(s)); });
}

// ParametersItem { Parameter parameter = 1 }, Parameter { BodyParameter = 1 | NonBodyParameter = 2 }
function parameter(field: number, p: Json) {
  sub(field, () => sub(1, () => {
    if (p.in === 'body') {
      sub(1, () => { str(1, p.description); str(2, p.name); str(3, p.in); bool(4, p.required); sub(5, () => schema(p.schema)); extensions(6, p); });
      return;
    }
    // NonBodyParameter { header = 1, formData = 2, query = 3, path = 4 }. The query and path messages number
    // their fields alike up to `name`; path has no allow_empty_value, so its later fields are one lower.
    const query = p.in === 'query';
    const shift = query ? 1 : 0;
    sub(2, () => sub(query ? 3 : 4, () => {
      bool(1, p.required); str(2, p.in); str(3, p.description); str(4, p.name);
      if (query) bool(5, p.allowEmptyValue);
      str(5 + shift, p.type); str(6 + shift, p.format);
      bool(19 + shift, p.uniqueItems);
      extensions(22 + shift, p);
    }));
  }));
}

// Responses { repeated NamedResponseValue response_code = 1 }, ResponseValue { Response response = 1 },
// Response { description = 1; SchemaItem schema = 2 }, SchemaItem { Schema schema = 1 }
function responses(r: Json) {
  for (const [code, resp] of Object.entries(r)) sub(1, () => {
    str(1, code);
    sub(2, () => sub(1, () => {
      str(1, resp.description);
      if (resp.schema) sub(2, () => sub(1, () => schema(resp.schema)));
      extensions(5, resp);
    }));
  });
}

function operation(o: Json) {
  strs(1, o.tags); str(2, o.summary); str(3, o.description); str(5, o.operationId);
  strs(6, o.produces); strs(7, o.consumes);
  for (const p of o.parameters ?? []) parameter(8, p);
  if (o.responses) sub(9, () => responses(o.responses));
  strs(10, o.schemes); bool(11, o.deprecated);
  extensions(13, o);
}

const methodFields: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(item: Json) {
  for (const [method, field] of Object.entries(methodFields)) if (item[method]) sub(field, () => operation(item[method]));
  for (const p of item.parameters ?? []) parameter(9, p);
  extensions(10, item);
}

/** SecurityRequirement { repeated NamedStringArray additional_properties = 1 }, StringArray { repeated string value = 1 } */
function securityRequirement(r: Json) {
  for (const [name, scopes] of Object.entries(r)) sub(1, () => { str(1, name); sub(2, () => strs(1, scopes)); });
}

/** the message `fill` writes, as bytes (the buffer is this module's, so one message at a time) */
export function encodeMessage(fill: () => void): Buffer {
  buf = Buffer.alloc(1 << 20);
  pos = 0;
  try {
    fill();
    return Buffer.from(buf.subarray(0, pos));
  } finally {
    buf = Buffer.alloc(0);
  }
}

export { sub, str, strs, bool, int, double, any, extensions, securityRequirement };

/** encodes a Swagger 2.0 document (the JSON form) as openapi.v2.Document */
export function encodeSwaggerDocument(doc: Json): Buffer {
  return encodeMessage(() => swaggerDocument(doc));
}

function swaggerDocument(doc: Json) {
  str(1, doc.swagger);
  if (doc.info) sub(2, () => { str(1, doc.info.title); str(2, doc.info.version); str(3, doc.info.description); extensions(7, doc.info); });
  str(3, doc.host); str(4, doc.basePath);
  strs(5, doc.schemes); strs(6, doc.consumes); strs(7, doc.produces);
  // Paths { vendor_extension = 1; repeated NamedPathItem path = 2 }
  if (doc.paths) sub(8, () => {
    for (const [path, item] of Object.entries(doc.paths)) sub(2, () => { str(1, path); sub(2, () => pathItem(item as Json)); });
  });
  if (doc.definitions) sub(9, () => namedSchemas(doc.definitions));
  for (const r of doc.security ?? []) sub(12, () => securityRequirement(r));
  // SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1 }, SecurityDefinitionsItem
  // { ApiKeySecurity api_key_security = 2 }, ApiKeySecurity { type = 1; name = 2; in = 3; description = 4 }
  if (doc.securityDefinitions) sub(13, () => {
    for (const [name, d] of Object.entries<Json>(doc.securityDefinitions)) if (d.type === 'apiKey') sub(1, () => {
      str(1, name); sub(2, () => sub(2, () => { str(1, d.type); str(2, d.name); str(3, d.in); str(4, d.description); }));
    });
  });
  extensions(16, doc);
}
