// The protobuf form of built-in objects: the envelope the reference wraps them in, and a
// conversion between an object's protobuf bytes and its JSON form driven by the field table.
import { apiDomains, type Naming } from '../naming.js';
import {
  jsonSchemaPropsDefinition, protobufKindDefinitions, protobufMessages, vendorGroups, type FieldDef, type MessageDef, type Scalar, type Special,
  type ValueType,
} from './fields.js';
import {
  bytesField, doubleField, key, MalformedProtobufError, readFields, readPackedVarints, stringField, varintBytes, varintField,
  wireBytes, wireFixed64, wireVarint, type WireField,
} from './wire.js';

export { MalformedProtobufError } from './wire.js';

/** the envelope's first bytes: "k8s" and a zero */
export const protobufMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** a kind the table has no protobuf form for; the server answers 415 */
export class UnsupportedKindError extends Error {
  override name = 'UnsupportedKindError';
  constructor(readonly apiVersion: string, readonly kind: string) {
    super(`no protobuf form is known for ${apiVersion ? `${apiVersion}, ` : ''}Kind=${kind || '(empty)'}; send it as JSON`);
  }
}

/** a JSON object that does not fit the protobuf form of its kind */
export class ProtobufEncodeError extends Error {
  override name = 'ProtobufEncodeError';
}

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding?: string;
  contentType?: string;
}

type Json = Record<string, unknown>;

const text = (v: bigint | Buffer) => (Buffer.isBuffer(v) ? v.toString('utf8') : '');
const asBytes = (f: WireField, what: string): Buffer => {
  if (!Buffer.isBuffer(f.value) || f.type !== wireBytes) throw new MalformedProtobufError(`${what}: field ${f.number} is not length-delimited`);
  return f.value;
};

// ── the envelope ─────────────────────────────────────────────────────────────────────────────────

export const decodeEnvelope = (buf: Buffer, names: Naming): Envelope => readEnvelope(buf, `a ${names.protobufMediaType} body`);

function readEnvelope(buf: Buffer, what: string): Envelope {
  if (!buf.subarray(0, protobufMagic.length).equals(protobufMagic)) {
    throw new MalformedProtobufError(`${what} must start with the bytes 6b 38 73 00`);
  }
  const env: Envelope = { apiVersion: '', kind: '', raw: Buffer.alloc(0) };
  for (const f of readFields(buf.subarray(protobufMagic.length))) {
    if (f.number === 1) {
      for (const t of readFields(asBytes(f, 'typeMeta'))) {
        if (t.number === 1) env.apiVersion = text(asBytes(t, 'typeMeta.apiVersion'));
        if (t.number === 2) env.kind = text(asBytes(t, 'typeMeta.kind'));
      }
    } else if (f.number === 2) env.raw = asBytes(f, 'raw');
    else if (f.number === 3) env.contentEncoding = text(asBytes(f, 'contentEncoding'));
    else if (f.number === 4) env.contentType = text(asBytes(f, 'contentType'));
  }
  return env;
}

export function encodeEnvelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([bytesField(1, Buffer.from(apiVersion)), bytesField(2, Buffer.from(kind))]);
  // the reference always writes the two (empty) content fields
  return Buffer.concat([
    protobufMagic, bytesField(1, typeMeta), bytesField(2, raw), bytesField(3, Buffer.alloc(0)), bytesField(4, Buffer.alloc(0)),
  ]);
}

/** an object in its JSON form, wrapped in the envelope */
export function encodeObject(obj: Json): Buffer {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  return encodeEnvelope(apiVersion, kind, jsonToProtobuf(obj, apiVersion, kind));
}

export interface ListEncoder {
  /** one item's bytes as a member of the list */
  item(obj: Json): Buffer;
  /** the list in its envelope, as pieces to write one after another around the members; `length` is their total */
  finish(metadata: Json, members: Buffer[]): { parts: Buffer[]; length: number };
}

/**
 * A list's encoder that takes its items one by one (each as the message the list's items field holds), so the caller
 * can cut the work into slices. Undefined for a list not of the usual shape (its metadata, then its items).
 */
export function listEncoder(apiVersion: string, listKind: string): ListEncoder | undefined {
  const def = kindDefinition(apiVersion, listKind);
  const itemsField = def.fields.find(f => f.json === 'items');
  if (!itemsField || !('message' in itemsField.value) || def.wireOrder.at(-1) !== itemsField) return undefined;
  const itemDef = message(itemsField.value.message);
  let count = 0;
  return {
    item: obj => bytesField(itemsField.number, encodeMessage(obj, itemDef, `${listKind}.items[${count++}]`)),
    finish(metadata, members) {
      const head = encodeMessage({ metadata }, def, listKind);
      const rawLength = members.reduce((n, m) => n + m.length, head.length);
      const typeMeta = Buffer.concat([bytesField(1, Buffer.from(apiVersion)), bytesField(2, Buffer.from(listKind))]);
      // the envelope's raw field holds the list: its key and length, then the list's own bytes
      const open = Buffer.concat([protobufMagic, bytesField(1, typeMeta), key(2, wireBytes), varintBytes(rawLength), head]);
      const close = Buffer.concat([bytesField(3, Buffer.alloc(0)), bytesField(4, Buffer.alloc(0))]);
      return { parts: [open, ...members, close], length: open.length - head.length + rawLength + close.length };
    },
  };
}

/**
 * One watch event as the reference streams it: a 4-byte big-endian length, then a WatchEvent message
 * (type = 1; object = 2, a RawExtension whose raw = 1 holds the object in its envelope).
 */
export function encodeWatchEvent(type: string, obj: Json): Buffer {
  return Buffer.concat(watchEventParts(type, encodeObject(obj)));
}

/**
 * The same event as two pieces to write one after the other: what comes before the object's bytes, then those bytes
 * as given, so watchers sending one object share its bytes rather than each holding a copy.
 */
export function watchEventParts(type: string, envelope: Buffer): [Buffer, Buffer] {
  const rawHead = Buffer.concat([key(1, wireBytes), varintBytes(envelope.length)]);
  const head = Buffer.concat([bytesField(1, Buffer.from(type)), key(2, wireBytes), varintBytes(rawHead.length + envelope.length), rawHead]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(head.length + envelope.length);
  return [Buffer.concat([length, head]), envelope];
}

// ── kinds ────────────────────────────────────────────────────────────────────────────────────────

/** the group without its vendor domain, or undefined when the domain does not fit the group */
function groupBase(group: string): string | undefined {
  for (const domain of apiDomains) {
    if (group.endsWith(`.${domain}`)) {
      const base = group.slice(0, -domain.length - 1);
      return vendorGroups.has(base) ? base : undefined;
    }
  }
  return vendorGroups.has(group) ? undefined : group;
}

/**
 * Kinds the reference's core discovery (/api, /api/v1) writes with an empty apiVersion, in JSON and in the protobuf
 * envelope alike: read as the meta v1 kinds they are
 */
const versionlessKinds = new Set(['APIVersions', 'APIResourceList']);

/** the definition of `kind` in `apiVersion`, in either API domain */
export function kindDefinition(apiVersion: string, kind: string): MessageDef {
  if (apiVersion === '' && versionlessKinds.has(kind)) return kindDefinition('v1', kind);
  const slash = apiVersion.lastIndexOf('/');
  const base = slash < 0 ? '' : groupBase(apiVersion.slice(0, slash));
  const name = base === undefined ? undefined
    : protobufKindDefinitions.get(`${base ? `${base}/` : ''}${apiVersion.slice(slash + 1)}/${kind}`);
  const def = name ? protobufMessages.get(name) : undefined;
  if (!def) throw new UnsupportedKindError(apiVersion, kind);
  return def;
}

/** whether `kind` in `apiVersion` has a protobuf form (custom resources and unlisted kinds have none) */
export function hasProtobufForm(apiVersion: string, kind: string): boolean {
  try {
    kindDefinition(apiVersion, kind);
    return true;
  } catch (e) {
    if (e instanceof UnsupportedKindError) return false;
    throw e;
  }
}

/** the `<apiVersion>/<Kind>` pairs with a protobuf form, in the given API domain */
export function protobufKinds(names: Naming): Set<string> {
  const out = new Set<string>();
  for (const key of protobufKindDefinitions.keys()) {
    const parts = key.split('/');
    const [kind, version] = [parts.pop()!, parts.pop()!];
    const base = parts.join('/');
    const group = !base ? '' : vendorGroups.has(base) ? names.group(base) : base;
    out.add(`${group ? `${group}/` : ''}${version}/${kind}`);
  }
  return out;
}

// ── decoding ─────────────────────────────────────────────────────────────────────────────────────

/**
 * An object's protobuf bytes (the envelope's raw field) in the reference's JSON form. Fields the table
 * does not know are dropped, as the reference's decoder does; `unknown` collects their paths.
 */
export function protobufToJson(raw: Buffer, apiVersion: string, kind: string, unknown?: string[]): Json {
  const def = kindDefinition(apiVersion, kind);
  return { apiVersion, kind, ...decodeMessage(raw, def, kind, unknown) };
}

const message = (name: string): MessageDef => {
  const def = protobufMessages.get(name);
  if (!def) throw new Error(`protobuf field table: no message ${name}`);
  return def;
};

function decodeMessage(buf: Buffer, def: MessageDef, path: string, unknown?: string[]): Json {
  const found = new Map<FieldDef, unknown>();
  for (const f of readFields(buf)) {
    const field = def.byNumber.get(f.number);
    if (!field) {
      unknown?.push(`${path}.#${f.number}`);
      continue;
    }
    // a field's path is made only where it is needed (a nested message, an error): a large map or list would
    // otherwise make a string per entry
    if (field.map) {
      let map = found.get(field) as Json | undefined;
      if (!map) found.set(field, map = {});
      addMapEntry(map, f, field, path, unknown);
    } else if (field.repeated) {
      let list = found.get(field) as unknown[] | undefined;
      if (!list) found.set(field, list = []);
      if ('scalar' in field.value && packable.has(field.value.scalar) && f.type === wireBytes) {
        for (const v of readPackedVarints(f.value as Buffer)) list.push(decodeValue({ number: f.number, type: wireVarint, value: v }, field, path, unknown));
      } else {
        list.push(decodeValue(f, field, path, unknown));
      }
    } else if (field.inline) {
      const inner = decodeMessage(asBytes(f, pathOf(path, field)), message((field.value as { message: string }).message), path, unknown);
      found.set(field, { ...(found.get(field) as Json | undefined), ...inner });
    } else {
      found.set(field, decodeValue(f, field, path, unknown));
    }
  }
  const out: Json = {};
  for (const field of def.fields) {
    // a field absent from the wire stays absent (the reference's own encoder always writes these times, if only as an
    // empty message), so what other senders leave out is not made up here
    if (!found.has(field)) continue;
    const value = found.get(field);
    if (field.inline) Object.assign(out, value);
    else if (value === undefined) { if (isAlwaysWrittenTime(field)) out[field.json] = null; }
    else if (field.keepZero || !isZeroScalar(value, field)) out[field.json] = value;
  }
  return out;
}

const pathOf = (path: string, field: FieldDef) => `${path}.${field.json}`;

/** one entry of a map field (key 1, value 2; the last of each wins) added to `map` */
function addMapEntry(map: Json, f: WireField, field: FieldDef, path: string, unknown?: string[]): void {
  const inPlace = 'scalar' in field.value && field.value.scalar === 'string' ? shortStringEntry(asBytes(f, pathOf(path, field))) : undefined;
  if (inPlace) return setEntry(map, inPlace[0], inPlace[1]);
  let k: WireField | undefined, v: WireField | undefined;
  for (const e of readFields(asBytes(f, pathOf(path, field)))) {
    if (e.number === 1) k = e;
    else if (e.number === 2) v = e;
  }
  const name = k ? asBytes(k, pathOf(path, field)).toString('utf8') : '';
  // an entry without a value holds the zero value: for messages, what an empty message decodes to
  const value = decodeValue(v ?? emptyField(field.value), field, path, unknown);
  setEntry(map, name, value);
}

function setEntry(map: Json, name: string, value: unknown): void {
  // a key named __proto__ is an entry like any other (validation judges it), never the map's prototype
  if (name === '__proto__') Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
  else map[name] = value;
}

/**
 * The commonest map entry (labels, annotations, a ConfigMap's data): a key and a string value under 128 bytes each,
 * laid out key then value, read in place without splitting the entry into fields (a map of 150,000 entries was a
 * long stall); undefined for any other layout, which the general reading takes
 */
function shortStringEntry(b: Buffer): [string, string] | undefined {
  if (b.length < 2 || b[0] !== 0x0a || b[1]! >= 0x80) return undefined;
  const keyEnd = 2 + b[1]!;
  if (keyEnd === b.length) return [b.toString('utf8', 2, keyEnd), ''];
  if (keyEnd + 2 > b.length || b[keyEnd] !== 0x12 || b[keyEnd + 1]! >= 0x80 || keyEnd + 2 + b[keyEnd + 1]! !== b.length) return undefined;
  return [b.toString('utf8', 2, keyEnd), b.toString('utf8', keyEnd + 2, b.length)];
}

/** a time the reference's JSON always carries (a struct without omitempty): null when unset or zero */
const isAlwaysWrittenTime = (field: FieldDef) =>
  field.keepZero && !field.repeated && !field.map && 'special' in field.value && (field.value.special === 'Time' || field.value.special === 'MicroTime');

function isZeroScalar(value: unknown, field: FieldDef): boolean {
  if (field.map || field.repeated || !('scalar' in field.value)) return false;
  return value === '' || value === 0 || value === false;
}

/** repeated scalars a sender may pack into one length-delimited field */
const packable = new Set(['bool', 'int32', 'int64']);

function emptyField(t: ValueType): WireField {
  if ('scalar' in t && packable.has(t.scalar)) return { number: 2, type: wireVarint, value: 0n };
  if ('scalar' in t && t.scalar === 'double') return { number: 2, type: wireFixed64, value: Buffer.alloc(8) };
  return { number: 2, type: wireBytes, value: Buffer.alloc(0) };
}

function int(f: WireField, where: string): bigint {
  if (f.type !== wireVarint) throw new MalformedProtobufError(`${where}: expected a varint`);
  return f.value as bigint;
}

/** the value of one field on the wire; its path (`path` and the field's name) is made only when needed */
function decodeValue(f: WireField, field: FieldDef, path: string, unknown?: string[]): unknown {
  const t = field.value;
  if ('scalar' in t) {
    if (t.scalar === 'string' && f.type === wireBytes) return (f.value as Buffer).toString('utf8');
    return decodeScalar(f, t.scalar, pathOf(path, field));
  }
  const where = pathOf(path, field);
  if ('message' in t) return decodeMessage(asBytes(f, where), message(t.message), where, unknown);
  return decodeSpecial(f, t.special, where, unknown);
}

function decodeScalar(f: WireField, scalar: Scalar, where: string): unknown {
  switch (scalar) {
    case 'string': return asBytes(f, where).toString('utf8');
    case 'bytes': return asBytes(f, where).toString('base64');
    case 'bool': return int(f, where) !== 0n;
    case 'int32': return Number(BigInt.asIntN(32, int(f, where)));
    case 'int64': return Number(BigInt.asIntN(64, int(f, where)));
    case 'double':
      if (f.type !== wireFixed64) throw new MalformedProtobufError(`${where}: expected a 64-bit value`);
      return (f.value as Buffer).readDoubleLE(0);
  }
}

function decodeSpecial(f: WireField, special: Special, where: string, unknown?: string[]): unknown {
  const parts = readFields(asBytes(f, where));
  // the last occurrence of a field wins, as in any protobuf decoder
  const last = (n: number) => parts.filter((x) => x.number === n).pop();
  const num = (n: number) => { const p = last(n); return p ? Number(BigInt.asIntN(64, int(p, where))) : 0; };
  const str = (n: number) => { const p = last(n); return p ? asBytes(p, where).toString('utf8') : ''; };
  const raw = () => last(1);
  const schema = (p: WireField) => decodeMessage(asBytes(p, where), message(jsonSchemaPropsDefinition), where, unknown);
  const all = (n: number) => parts.filter((p) => p.number === n);
  // the unions marshal as the member that is set; an empty one is null
  const schemaOr = (others: unknown[]) => (others.length ? others : last(1) ? schema(last(1)!) : null);
  switch (special) {
    case 'Time': return formatTime(num(1), num(2), false);
    case 'MicroTime': return formatTime(num(1), num(2), true);
    case 'Quantity': return str(1);
    case 'IntOrString': return num(1) === 1 ? str(3) : num(2);
    case 'ExtraValue': return parts.filter((p) => p.number === 1).map((p) => asBytes(p, where).toString('utf8'));
    case 'FieldsV1': { const r = raw(); return r ? parseEmbeddedJson(asBytes(r, where), where) : {}; }
    case 'JSON': { const r = raw(); const bytes = r ? asBytes(r, where) : undefined; return bytes?.length ? parseEmbeddedJson(bytes, where) : null; }
    case 'JSONSchemaPropsOrArray': return schemaOr(all(2).map(schema));
    case 'JSONSchemaPropsOrStringArray': return schemaOr(all(2).map((p) => asBytes(p, where).toString('utf8')));
    case 'JSONSchemaPropsOrBool': { const s = last(2); return s ? schema(s) : num(1) !== 0; }
    case 'RawExtension': {
      const r = raw();
      if (!r) return {};
      const bytes = asBytes(r, where);
      if (bytes.subarray(0, protobufMagic.length).equals(protobufMagic)) {
        const env = readEnvelope(bytes, where);
        return protobufToJson(env.raw, env.apiVersion, env.kind, unknown);
      }
      return parseEmbeddedJson(bytes, where);
    }
  }
}

function parseEmbeddedJson(bytes: Buffer, where: string): unknown {
  if (bytes.length === 0) return {};
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new MalformedProtobufError(`${where}: embedded JSON does not parse`);
  }
}

/** the reference writes Time with seconds and MicroTime with microseconds, in UTC; the zero time is null */
function formatTime(seconds: number, nanos: number, micro: boolean): string | undefined {
  if (seconds === 0 && nanos === 0) return undefined;
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

// ── encoding ─────────────────────────────────────────────────────────────────────────────────────

/** an object in its JSON form as the protobuf bytes of its kind (without the envelope) */
export function jsonToProtobuf(obj: Json, apiVersion: string, kind: string): Buffer {
  return encodeMessage(obj, kindDefinition(apiVersion, kind), kind);
}

/** the JSON names a message holds, its inline members' included */
const knownNames = new Map<MessageDef, Set<string>>();
function jsonNames(def: MessageDef): Set<string> {
  let names = knownNames.get(def);
  if (!names) {
    names = new Set(def.fields.flatMap((f) => (f.inline ? [...jsonNames(message((f.value as { message: string }).message))] : [f.json])));
    knownNames.set(def, names);
  }
  return names;
}

/** `inline`: the parent's object, whose other keys belong to the parent */
function encodeMessage(obj: unknown, def: MessageDef, path: string, inline = false): Buffer {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new ProtobufEncodeError(`${path}: expected an object`);
  // a field the table lacks would be lost: refuse, so the caller can answer in JSON instead
  if (!inline) for (const key of Object.keys(obj)) {
    if (!jsonNames(def).has(key) && key !== 'apiVersion' && key !== 'kind') throw new ProtobufEncodeError(`${path}.${key}: no protobuf field is known`);
  }
  const parts: Buffer[] = [];
  for (const field of def.wireOrder) {
    const where = `${path}.${field.json}`;
    if (field.inline) {
      const inner = message((field.value as { message: string }).message);
      if (inner.fields.some((f) => (obj as Json)[f.json] !== undefined)) parts.push(bytesField(field.number, encodeMessage(obj, inner, path, true)));
      continue;
    }
    const value = (obj as Json)[field.json];
    if (value === null && isAlwaysWrittenTime(field)) {
      // the reference writes the zero time as an empty message
      parts.push(bytesField(field.number, Buffer.alloc(0)));
      continue;
    }
    if (value === undefined || value === null) continue;
    if (field.map) {
      if (typeof value !== 'object' || Array.isArray(value)) throw new ProtobufEncodeError(`${where}: expected a map`);
      for (const k of Object.keys(value).sort()) {
        const v = (value as Json)[k];
        const entry: Buffer[] = [stringField(1, k)];
        if (v !== null && v !== undefined) entry.push(encodeValue(2, v, field.value, `${where}[${k}]`));
        parts.push(bytesField(field.number, Buffer.concat(entry)));
      }
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new ProtobufEncodeError(`${where}: expected a list`);
      value.forEach((v, i) => parts.push(encodeValue(field.number, v, field.value, `${where}[${i}]`)));
    } else {
      parts.push(encodeValue(field.number, value, field.value, where));
    }
  }
  return Buffer.concat(parts);
}

function encodeValue(number: number, v: unknown, t: ValueType, where: string): Buffer {
  const expect = (ok: boolean, what: string) => { if (!ok) throw new ProtobufEncodeError(`${where}: expected ${what}`); };
  if ('message' in t) return bytesField(number, encodeMessage(v, message(t.message), where));
  if ('scalar' in t) {
    switch (t.scalar) {
      case 'string': expect(typeof v === 'string', 'a string'); return stringField(number, v as string);
      case 'bytes': expect(typeof v === 'string', 'a base64 string'); return bytesField(number, Buffer.from(v as string, 'base64'));
      case 'bool': expect(typeof v === 'boolean', 'a boolean'); return varintField(number, v ? 1 : 0);
      // a number past the int64 range (read as a double) is held at its bound, never wrapped to the other sign
      case 'int32': case 'int64': expect(Number.isInteger(v), 'an integer'); return varintField(number, BigInt.asIntN(64, clampInt64(BigInt(v as number))));
      case 'double': expect(typeof v === 'number', 'a number'); return doubleField(number, v as number);
    }
  }
  const sub = (...fields: Buffer[]) => bytesField(number, Buffer.concat(fields));
  switch (t.special) {
    case 'Time': case 'MicroTime': {
      expect(typeof v === 'string', 'a timestamp');
      const { seconds, nanos } = parseTime(v as string, where);
      return sub(varintField(1, seconds), ...(nanos ? [varintField(2, nanos)] : []));
    }
    case 'Quantity':
      expect(typeof v === 'string' || typeof v === 'number', 'a quantity');
      return sub(bytesField(1, Buffer.from(String(v))));
    case 'IntOrString':
      expect(typeof v === 'string' || Number.isInteger(v), 'an integer or a string');
      return typeof v === 'string'
        ? sub(varintField(1, 1), varintField(2, 0), bytesField(3, Buffer.from(v)))
        : sub(varintField(1, 0), varintField(2, v as number), bytesField(3, Buffer.alloc(0)));
    case 'ExtraValue':
      expect(Array.isArray(v) && v.every((s) => typeof s === 'string'), 'a list of strings');
      return sub(...(v as string[]).map((s) => bytesField(1, Buffer.from(s))));
    case 'FieldsV1': case 'RawExtension': case 'JSON':
      return sub(bytesField(1, Buffer.from(JSON.stringify(v))));
    case 'JSONSchemaPropsOrArray':
      return Array.isArray(v) ? sub(...v.map((s, i) => schemaField(2, s, `${where}[${i}]`))) : sub(schemaField(1, v, where));
    case 'JSONSchemaPropsOrStringArray':
      if (!Array.isArray(v)) return sub(schemaField(1, v, where));
      expect(v.every((s) => typeof s === 'string'), 'a schema or a list of strings');
      return sub(...(v as string[]).map((s) => bytesField(2, Buffer.from(s))));
    case 'JSONSchemaPropsOrBool':
      // a schema allows what it describes: allows = true beside it
      return typeof v === 'boolean' ? sub(varintField(1, v ? 1 : 0)) : sub(varintField(1, 1), schemaField(2, v, where));
  }
}

const schemaField = (number: number, v: unknown, where: string) =>
  bytesField(number, encodeMessage(v, message(jsonSchemaPropsDefinition), where));

function parseTime(s: string, where: string): { seconds: number; nanos: number } {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s);
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new ProtobufEncodeError(`${where}: "${s}" is not an RFC 3339 time`);
  return { seconds: Math.floor(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

const maxInt64 = (1n << 63n) - 1n, minInt64 = -(1n << 63n);
const clampInt64 = (v: bigint) => (v > maxInt64 ? maxInt64 : v < minInt64 ? minInt64 : v);
