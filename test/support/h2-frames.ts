// Raw HTTP/2 over TLS, for tests that send what a well-behaved client never would: header blocks split into any
// number of frames, floods of PING or SETTINGS, bad WINDOW_UPDATEs. Frames are written as RFC 9113 lays them out and
// header blocks are HPACK literals without indexing (no dynamic table, no Huffman), which every decoder accepts.
import { connect as tlsConnect, type TLSSocket } from 'node:tls';

export const frameType = { data: 0, headers: 1, priority: 2, rstStream: 3, settings: 4, ping: 6, goaway: 7, windowUpdate: 8, continuation: 9 } as const;
export const flag = { endStream: 1, ack: 1, endHeaders: 4 } as const;
const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface Frame { type: number; flags: number; streamId: number; payload: Buffer }

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type; head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** an HPACK integer with an n-bit prefix, the prefix's other bits given in `first` */
function hpackInt(value: number, prefixBits: number, first = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([first | value]);
  const out = [first | max];
  for (value -= max; value >= 128; value = Math.floor(value / 128)) out.push((value % 128) | 128);
  out.push(value);
  return Buffer.from(out);
}

const hpackString = (s: string) => { const b = Buffer.from(s, 'latin1'); return Buffer.concat([hpackInt(b.length, 7), b]); };

/** a header block of literal fields without indexing, new names */
export const headerBlock = (fields: [string, string][]): Buffer =>
  Buffer.concat(fields.flatMap(([name, value]) => [Buffer.from([0]), hpackString(name), hpackString(value)]));

/** the HEADERS frame and CONTINUATION frames of one header block, each at most `frameSize` bytes */
export function headerFrames(streamId: number, block: Buffer, frameSize: number, endStream = true): Buffer {
  const frames: Buffer[] = [];
  for (let at = 0; at === 0 || at < block.length; at += frameSize) {
    const last = at + frameSize >= block.length;
    const flags = (last ? flag.endHeaders : 0) | (at === 0 && endStream ? flag.endStream : 0);
    frames.push(frame(at === 0 ? frameType.headers : frameType.continuation, flags, streamId, block.subarray(at, at + frameSize)));
  }
  return Buffer.concat(frames);
}

export function settingsPayload(settings: Record<number, number>): Buffer {
  const entries = Object.entries(settings);
  const b = Buffer.alloc(6 * entries.length);
  entries.forEach(([id, value], i) => { b.writeUInt16BE(Number(id), 6 * i); b.writeUInt32BE(value, 6 * i + 2); });
  return b;
}

/** the response header block's :status, read from a server that (as Node's does) sends it as an indexed field */
export function statusOf(block: Buffer): number | undefined {
  // static table entries 8-14 are :status 200, 204, 206, 304, 400, 404, 500
  const indexed: Record<number, number> = { 8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500 };
  const first = block[0];
  if (first & 0x80) return indexed[first & 0x7f];
  // a literal field whose name is a static :status entry (index 8..14): its value is the code, in 3 ASCII digits
  const nameIndex = first & ((first & 0x40) ? 0x3f : 0x0f);
  if (nameIndex >= 8 && nameIndex <= 14 && !(block[1] & 0x80)) return Number(block.subarray(2, 2 + block[1]).toString('latin1'));
  return undefined;
}

export interface RawH2 {
  socket: TLSSocket;
  frames: Frame[];
  /** resolves once the connection is closed (by either side) */
  closed: Promise<void>;
  isClosed(): boolean;
  write(b: Buffer): void;
}

/**
 * a TLS connection that speaks h2 by ALPN, every frame the server sends kept; unless `preface` is false, the connection
 * preface is sent and the server's SETTINGS acknowledged (its frame size applies from then on) before this resolves
 */
export async function rawH2(url: string, tls: { ca: string; cert?: string; key?: string }, opts: { settings?: Record<number, number>; preface?: boolean } = {}): Promise<RawH2> {
  const { hostname, port } = new URL(url);
  const socket = tlsConnect({ host: hostname, port: Number(port), ...tls, servername: 'localhost', ALPNProtocols: ['h2'] });
  const frames: Frame[] = [];
  let buffered = Buffer.alloc(0);
  let isClosed = false;
  socket.on('data', (d: Buffer) => {
    buffered = Buffer.concat([buffered, d]);
    while (buffered.length >= 9) {
      const length = buffered.readUIntBE(0, 3);
      if (buffered.length < 9 + length) break;
      const f = { type: buffered[3], flags: buffered[4], streamId: buffered.readUInt32BE(5) & 0x7fffffff, payload: Buffer.from(buffered.subarray(9, 9 + length)) };
      frames.push(f);
      buffered = buffered.subarray(9 + length);
      // the server's settings (its frame size among them) apply once acknowledged
      if (f.type === frameType.settings && !(f.flags & flag.ack) && opts.preface !== false && !socket.destroyed) { socket.write(frame(frameType.settings, flag.ack, 0)); serverSettings(); }
    }
  });
  socket.on('error', () => {});
  let serverSettings = () => {};
  const settled = new Promise<void>(resolve => { serverSettings = resolve; });
  const closed = new Promise<void>(resolve => socket.once('close', () => { isClosed = true; resolve(); }));
  await new Promise<void>((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject); });
  if (opts.preface === false) return { socket, frames, closed, isClosed: () => isClosed, write: b => { if (!socket.destroyed) socket.write(b); } };
  socket.write(Buffer.concat([preface, frame(frameType.settings, 0, 0, settingsPayload(opts.settings ?? {}))]));
  await Promise.race([settled, closed]);
  return { socket, frames, closed, isClosed: () => isClosed, write: b => { if (!socket.destroyed) socket.write(b); } };
}
