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
  let result = 0n;
  let shift = 0n;
  for (let pos = start; pos < buf.length && shift < 70n; shift += 7n) {
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [BigInt.asUintN(64, result), pos];
  }
  throw new MalformedProtobufError(`truncated or overlong varint at byte ${start}`);
}

/** splits a message into its fields, in wire order */
export function readFields(buf: Buffer): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, afterKey] = readVarint(buf, pos);
    const number = Number(key >> 3n);
    const type = Number(key & 7n);
    if (number < 1) throw new MalformedProtobufError(`field number 0 at byte ${pos}`);
    pos = afterKey;
    if (type === wireVarint) {
      const [value, next] = readVarint(buf, pos);
      fields.push({ number, type, value });
      pos = next;
    } else if (type === wireBytes) {
      const [length, start] = readVarint(buf, pos);
      const end = start + Number(length);
      if (length > BigInt(buf.length) || end > buf.length) throw new MalformedProtobufError(`field ${number} runs past the end of the message`);
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
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

export const key = (number: number, type: WireType) => varintBytes((BigInt(number) << 3n) | BigInt(type));

export const varintField = (number: number, value: bigint | number) => Buffer.concat([key(number, wireVarint), varintBytes(value)]);

export const bytesField = (number: number, payload: Buffer) =>
  Buffer.concat([key(number, wireBytes), varintBytes(payload.length), payload]);

export function doubleField(number: number, value: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeDoubleLE(value);
  return Buffer.concat([key(number, wireFixed64), payload]);
}
