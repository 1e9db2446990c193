// The protobuf wire format, as far as the reference's messages use it: varints, 64- and 32-bit
// fixed values and length-delimited fields (no groups).

export const wireVarint = 0;
export const wireFixed64 = 1;
export const wireBytes = 2;
export const wireFixed32 = 5;

export type WireType = typeof wireVarint | typeof wireFixed64 | typeof wireBytes | typeof wireFixed32;

/** one field as found on the wire; `value` is a varint or the field's bytes */
export interface WireField {
  number: number;
  type: WireType;
  value: bigint | Buffer;
}

export class MalformedProtobufError extends Error {
  override name = 'MalformedProtobufError';
}

function readVarint(buf: Buffer, start: number): [bigint, number] {
  // one byte (a bool, a small count): no BigInt arithmetic
  if (start < buf.length && buf[start]! < 0x80) return [BigInt(buf[start]!), start + 1];
  let result = 0n;
  let shift = 0n;
  for (let pos = start; pos < buf.length && shift < 70n; shift += 7n) {
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [BigInt.asUintN(64, result), pos];
  }
  throw new MalformedProtobufError(`truncated or overlong varint at byte ${start}`);
}

/** where the last readSize ended: keys and lengths are read without a tuple or a BigInt each */
let sizeEnd = 0;

/**
 * A varint that is a field key or a length, as a number, when it has at most 7 bytes (below 2^49, exact); undefined
 * when it is longer, for the BigInt reading. Keys and lengths are read this way without a tuple or a BigInt each.
 */
function readSize(buf: Buffer, start: number): number | undefined {
  let result = 0;
  let factor = 1;
  for (let pos = start; pos < buf.length;) {
    const b = buf[pos++]!;
    result += (b & 0x7f) * factor;
    if (b < 0x80) { sizeEnd = pos; return result; }
    if (pos - start === 7) return undefined;
    factor *= 128;
  }
  throw new MalformedProtobufError(`truncated or overlong varint at byte ${start}`);
}

/** splits a message into its fields, in wire order */
export function readFields(buf: Buffer): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    let number: number, type: number;
    const small = readSize(buf, pos);
    if (small !== undefined) {
      number = Math.floor(small / 8);
      type = small % 8;
    } else {
      const [key, afterKey] = readVarint(buf, pos);
      number = Number(key >> 3n);
      type = Number(key & 7n);
      sizeEnd = afterKey;
    }
    if (number < 1) throw new MalformedProtobufError(`field number 0 at byte ${pos}`);
    pos = sizeEnd;
    if (type === wireVarint) {
      const [value, next] = readVarint(buf, pos);
      fields.push({ number, type, value });
      pos = next;
    } else if (type === wireBytes) {
      const small = readSize(buf, pos);
      let length: number | bigint, start: number;
      if (small !== undefined) { length = small; start = sizeEnd; } else [length, start] = readVarint(buf, pos);
      const end = start + Number(length);
      if (length > buf.length || end > buf.length) throw new MalformedProtobufError(`field ${number} runs past the end of the message`);
      fields.push({ number, type, value: buf.subarray(start, end) });
      pos = end;
    } else if (type === wireFixed64 || type === wireFixed32) {
      const size = type === wireFixed64 ? 8 : 4;
      if (pos + size > buf.length) throw new MalformedProtobufError(`field ${number} runs past the end of the message`);
      fields.push({ number, type, value: buf.subarray(pos, pos + size) });
      pos += size;
    } else {
      throw new MalformedProtobufError(`unsupported wire type ${type} for field ${number}`);
    }
  }
  return fields;
}

/** the varints packed into one length-delimited field (proto3-style repeated scalars) */
export function readPackedVarints(buf: Buffer): bigint[] {
  const values: bigint[] = [];
  for (let pos = 0; pos < buf.length;) {
    const [value, next] = readVarint(buf, pos);
    values.push(value);
    pos = next;
  }
  return values;
}

// ── writing ──────────────────────────────────────────────────────────────────────────────────────

export function varintBytes(value: bigint | number): Buffer {
  // most varints are lengths, field keys and small counts: plain arithmetic, no BigInt (encoding a large object makes
  // hundreds of thousands of them)
  if (typeof value === 'number' && value >= 0 && value <= 0xffffffff && Number.isInteger(value)) {
    const out = Buffer.allocUnsafe(varintSize(value));
    writeVarint(out, 0, value);
    return out;
  }
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

/** the bytes of a varint holding a number from 0 to 2^32-1 */
const varintSize = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/** writes such a varint at `at`; returns where it ends */
function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

/** field keys made once each: callers copy them, never change them */
const keys = new Map<number, Buffer>();
export const key = (number: number, type: WireType): Buffer => {
  const k = number * 8 + type;
  let bytes = keys.get(k);
  if (!bytes) keys.set(k, bytes = varintBytes((BigInt(number) << 3n) | BigInt(type)));
  return bytes;
};

export const varintField = (number: number, value: bigint | number) => Buffer.concat([key(number, wireVarint), varintBytes(value)]);

/** a length-delimited field: its key, the payload's length and the payload, in one buffer made at its size */
export function bytesField(number: number, payload: Buffer): Buffer {
  const k = key(number, wireBytes);
  const out = Buffer.allocUnsafe(k.length + varintSize(payload.length) + payload.length);
  k.copy(out, 0);
  payload.copy(out, writeVarint(out, k.length, payload.length));
  return out;
}

/** a string field: as bytesField of the string's UTF-8 bytes, written straight into the field's buffer */
export function stringField(number: number, text: string): Buffer {
  const k = key(number, wireBytes);
  const length = Buffer.byteLength(text);
  const out = Buffer.allocUnsafe(k.length + varintSize(length) + length);
  k.copy(out, 0);
  out.write(text, writeVarint(out, k.length, length), 'utf8');
  return out;
}

export function doubleField(number: number, value: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeDoubleLE(value);
  return Buffer.concat([key(number, wireFixed64), payload]);
}
