// Just enough DER (ITU-T X.690) to write X.509 certificates and to find fields in them.
// Certificates are built by hand because loading a full ASN.1 library costs about 100 ms
// of start-up time, while building one with node:crypto takes about a millisecond.

export const tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

export function tlv(t: number, ...content: Uint8Array[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let header: number[];
  if (n < 0x80) header = [t, n];
  else {
    const lenBytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) lenBytes.unshift(rest & 0xff);
    header = [t, 0x80 | lenBytes.length, ...lenBytes];
  }
  return Buffer.concat([Buffer.from(header), body]);
}

export const sequence = (...items: Uint8Array[]) => tlv(tag.sequence, ...items);
export const set = (...items: Uint8Array[]) => tlv(tag.set, ...items);
export const octetString = (b: Uint8Array) => tlv(tag.octetString, b);
export const utf8 = (s: string) => tlv(tag.utf8String, Buffer.from(s, 'utf8'));
export const ia5 = (s: string) => tlv(tag.ia5String, Buffer.from(s, 'ascii'));
export const booleanTrue = () => tlv(tag.boolean, Buffer.from([0xff]));
export const nullValue = () => Buffer.from([0x05, 0x00]);
/** [n] EXPLICIT: a constructed context-specific wrapper */
export const explicit = (n: number, inner: Uint8Array) => tlv(0xa0 | n, inner);
/** [n] IMPLICIT over a primitive value */
export const implicit = (n: number, content: Uint8Array) => tlv(0x80 | n, content);

/** A non-negative integer from big-endian bytes. */
export function unsignedInteger(bytes: Uint8Array): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = Buffer.from(bytes.subarray(i));
  return tlv(tag.integer, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number) => unsignedInteger(Buffer.from([n]));

export function bitString(bytes: Uint8Array, unusedBits = 0): Buffer {
  return tlv(tag.bitString, Buffer.from([unusedBits]), bytes);
}

export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out = [arcs[0]! * 40 + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) chunk.unshift((rest & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(tag.oid, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 §4.1.2.5 requires. */
export function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? tlv(tag.utcTime, Buffer.from(iso.slice(2))) : tlv(tag.generalizedTime, Buffer.from(iso));
}

// ---- reading ----

export interface Node {
  tag: number;
  /** offset of the tag byte */
  start: number;
  /** offset of the first content byte */
  contentStart: number;
  /** offset just past the content */
  end: number;
}

export function read(buf: Uint8Array, offset = 0): Node {
  const t = buf[offset];
  let len = buf[offset + 1];
  if (t === undefined || len === undefined) throw new Error('DER: truncated');
  let contentStart = offset + 2;
  if (len & 0x80) {
    const count = len & 0x7f;
    len = 0;
    for (let i = 0; i < count; i++) len = len * 256 + buf[contentStart + i]!;
    contentStart += count;
  }
  const end = contentStart + len;
  if (end > buf.length) throw new Error('DER: length past the end');
  return { tag: t, start: offset, contentStart, end };
}

export function children(buf: Uint8Array, node: Node): Node[] {
  const out: Node[] = [];
  for (let at = node.contentStart; at < node.end; at = out[out.length - 1]!.end) out.push(read(buf, at));
  return out;
}

export const content = (buf: Uint8Array, node: Node) => Buffer.from(buf.subarray(node.contentStart, node.end));
export const whole = (buf: Uint8Array, node: Node) => Buffer.from(buf.subarray(node.start, node.end));

export function readOid(buf: Uint8Array, node: Node): string {
  const bytes = content(buf, node);
  const arcs = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}
