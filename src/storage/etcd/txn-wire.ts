// etcd's KV.Txn in protobuf wire format, for the three guarded writes: encoding a request
// straight into one Buffer and decoding only the fields a write needs costs a fraction of the
// generic object <-> protobuf conversion of the etcd3 client. Field numbers are those of etcd's
// rpc.proto and kv.proto.

/** the gRPC method path of etcdserverpb.KV/Txn */
export const TXN_PATH = '/etcdserverpb.KV/Txn';

/** a protobuf field: a varint, bytes, or an embedded message given as its own fields */
type Field = readonly [number, number | Buffer | readonly Field[]];

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

// Compare.CompareResult and Compare.CompareTarget
const EQUAL = 0;
const GREATER = 1;
const CREATE = 1;
const MOD = 2;

// Field numbers
const TXN_COMPARE = 1, TXN_SUCCESS = 2, TXN_FAILURE = 3;
const COMPARE_RESULT = 1, COMPARE_TARGET = 2, COMPARE_KEY = 3, COMPARE_CREATE_REVISION = 5, COMPARE_MOD_REVISION = 6;
const OP_RANGE = 1, OP_PUT = 2, OP_DELETE_RANGE = 3;
const PUT_KEY = 1, PUT_VALUE = 2, PUT_PREV_KV = 4;
const RANGE_KEY = 1;
const DELETE_KEY = 1, DELETE_PREV_KV = 3;
const TXN_RESPONSE_HEADER = 1, TXN_RESPONSE_SUCCEEDED = 2, TXN_RESPONSE_RESPONSES = 3;
const HEADER_REVISION = 3;
const RANGE_RESPONSE_KVS = 2;
const PUT_RESPONSE_PREV_KV = 2;
const DELETE_RESPONSE_PREV_KVS = 3;
const KV_KEY = 1, KV_CREATE_REVISION = 2, KV_MOD_REVISION = 3, KV_VALUE = 5;

/** create: the key must not exist; then put */
export function encodeCreate(key: Buffer, value: Buffer): Buffer {
  return encode([
    [TXN_COMPARE, [[COMPARE_RESULT, EQUAL], [COMPARE_TARGET, CREATE], [COMPARE_KEY, key], [COMPARE_CREATE_REVISION, 0]]],
    [TXN_SUCCESS, [[OP_PUT, [[PUT_KEY, key], [PUT_VALUE, value]]]]],
  ]);
}

/** update: the key must exist at expectedModRevision; then put returning the previous pair, else read the key */
export function encodeUpdate(key: Buffer, value: Buffer, expectedModRevision: number): Buffer {
  return encode([
    exists(key),
    modIs(key, expectedModRevision),
    [TXN_SUCCESS, [[OP_PUT, [[PUT_KEY, key], [PUT_VALUE, value], [PUT_PREV_KV, 1]]]]],
    readBack(key),
  ]);
}

/** delete: the key must exist (at expectedModRevision if given); then delete returning the pair, else read the key */
export function encodeDelete(key: Buffer, expectedModRevision: number | undefined): Buffer {
  return encode([
    exists(key),
    ...expectedModRevision === undefined ? [] : [modIs(key, expectedModRevision)],
    [TXN_SUCCESS, [[OP_DELETE_RANGE, [[DELETE_KEY, key], [DELETE_PREV_KV, 1]]]]],
    readBack(key),
  ]);
}

// A missing key compares as create revision 0.
const exists = (key: Buffer): Field =>
  [TXN_COMPARE, [[COMPARE_RESULT, GREATER], [COMPARE_TARGET, CREATE], [COMPARE_KEY, key], [COMPARE_CREATE_REVISION, 0]]];
const modIs = (key: Buffer, revision: number): Field =>
  [TXN_COMPARE, [[COMPARE_RESULT, EQUAL], [COMPARE_TARGET, MOD], [COMPARE_KEY, key], [COMPARE_MOD_REVISION, revision]]];
const readBack = (key: Buffer): Field => [TXN_FAILURE, [[OP_RANGE, [[RANGE_KEY, key]]]]];

function encode(fields: readonly Field[]): Buffer {
  const buf = Buffer.allocUnsafe(messageSize(fields));
  const end = writeMessage(buf, 0, fields);
  if (end !== buf.length) throw new Error(`protobuf encoding wrote ${end} of ${buf.length} bytes`);
  return buf;
}

function messageSize(fields: readonly Field[]): number {
  let size = 0;
  for (const [number, value] of fields) {
    size += varintSize(number << 3);
    if (typeof value === 'number') size += varintSize(value);
    else {
      const length = Buffer.isBuffer(value) ? value.length : messageSize(value);
      size += varintSize(length) + length;
    }
  }
  return size;
}

function writeMessage(buf: Buffer, at: number, fields: readonly Field[]): number {
  for (const [number, value] of fields) {
    if (typeof value === 'number') {
      at = writeVarint(buf, at, (number << 3) | VARINT);
      at = writeVarint(buf, at, value);
    } else if (Buffer.isBuffer(value)) {
      at = writeVarint(buf, at, (number << 3) | LENGTH_DELIMITED);
      at = writeVarint(buf, at, value.length);
      at += value.copy(buf, at);
    } else {
      at = writeVarint(buf, at, (number << 3) | LENGTH_DELIMITED);
      at = writeVarint(buf, at, messageSize(value));
      at = writeMessage(buf, at, value);
    }
  }
  return at;
}

/** varints of non-negative integers up to 2^53 (revisions, lengths, tags) */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) { n = Math.floor(n / 0x80); size++; }
  return size;
}

function writeVarint(buf: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at++] = n;
  return at;
}

/** a key-value pair as etcd returned it; key and value are views of the response */
export interface WireKeyValue { key: Buffer; value: Buffer; createRevision: number; modRevision: number }

export interface TxnReply {
  /** the store's revision after the transaction */
  revision: number;
  succeeded: boolean;
  /**
   * The pairs the branch's single operation returned: the range's keys, the put's previous pair,
   * or the delete's previous pairs.
   */
  kvs: WireKeyValue[];
}

/** decodes a TxnResponse whose branch ran at most one range, put or delete */
export function decodeTxnResponse(buf: Buffer): TxnReply {
  const reply: TxnReply = { revision: 0, succeeded: false, kvs: [] };
  forEachField(buf, 0, buf.length, (number, value, start, end) => {
    if (number === TXN_RESPONSE_HEADER) {
      forEachField(buf, start, end, (n, v) => { if (n === HEADER_REVISION) reply.revision = v; });
    } else if (number === TXN_RESPONSE_SUCCEEDED) {
      reply.succeeded = value !== 0;
    } else if (number === TXN_RESPONSE_RESPONSES) {
      forEachField(buf, start, end, (op, _, opStart, opEnd) => {
        const kvsField = op === OP_RANGE ? RANGE_RESPONSE_KVS : op === OP_PUT ? PUT_RESPONSE_PREV_KV
          : op === OP_DELETE_RANGE ? DELETE_RESPONSE_PREV_KVS : 0;
        forEachField(buf, opStart, opEnd, (n, __, kvStart, kvEnd) => {
          if (n === kvsField) reply.kvs.push(decodeKeyValue(buf, kvStart, kvEnd));
        });
      });
    }
  });
  return reply;
}

function decodeKeyValue(buf: Buffer, from: number, to: number): WireKeyValue {
  const kv: WireKeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0 };
  forEachField(buf, from, to, (number, value, start, end) => {
    if (number === KV_KEY) kv.key = buf.subarray(start, end);
    else if (number === KV_VALUE) kv.value = buf.subarray(start, end);
    else if (number === KV_CREATE_REVISION) kv.createRevision = value;
    else if (number === KV_MOD_REVISION) kv.modRevision = value;
  });
  return kv;
}

const EMPTY = Buffer.alloc(0);

/**
 * Calls visit for each field of the message in buf[from, to): with the value of a varint, or the
 * bounds of a length-delimited field. Fixed-width fields, which none of ours are, are skipped.
 */
function forEachField(
  buf: Buffer, from: number, to: number,
  visit: (number: number, value: number, start: number, end: number) => void,
): void {
  let at = from;
  while (at < to) {
    const [tag, afterTag] = readVarint(buf, at);
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (wireType === VARINT) {
      const [value, next] = readVarint(buf, afterTag);
      visit(number, value, next, next);
      at = next;
    } else if (wireType === LENGTH_DELIMITED) {
      const [length, start] = readVarint(buf, afterTag);
      at = start + length;
      if (at > to) throw new Error('truncated protobuf message');
      visit(number, 0, start, at);
    } else if (wireType === FIXED64) {
      at = afterTag + 8;
    } else if (wireType === FIXED32) {
      at = afterTag + 4;
    } else {
      throw new Error(`unsupported protobuf wire type ${wireType}`);
    }
  }
  if (at !== to) throw new Error('truncated protobuf message');
}

/** reads a varint as a number (exact up to 2^53; etcd's revisions and counts stay far below) */
function readVarint(buf: Buffer, at: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at >= buf.length) throw new Error('truncated protobuf varint');
    const byte = buf[at++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, at];
    scale *= 0x80;
  }
}
