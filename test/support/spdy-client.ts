// A SPDY/3.1 client's side for tests of the agent's stream servers: the frames it sends (SYN_STREAM with its header
// block compressed in one context, as a connection's are; data) and a reader of what the server sends back.
import { createDeflate, constants as zlibConstants } from 'node:zlib';
import type { Duplex } from 'node:stream';
import { spdyDictionary } from '../../src/agent/streaming/spdy.js';

/** a SPDY/3.1 client's frames: SYN_STREAM (its header block compressed in one context, as a connection's are) and data */
export function spdyFrames() {
  const compressor = createDeflate({ dictionary: spdyDictionary });
  const compressed = (headers: Record<string, string>) => new Promise<Buffer>(resolve => {
    const parts = [Buffer.alloc(4)];
    parts[0]!.writeUInt32BE(Object.keys(headers).length);
    for (const text of Object.entries(headers).flat()) { const b = Buffer.from(text); const n = Buffer.alloc(4); n.writeUInt32BE(b.length); parts.push(n, b); }
    const out: Buffer[] = [];
    const take = (c: Buffer) => out.push(c);
    compressor.on('data', take);
    compressor.write(Buffer.concat(parts));
    compressor.flush(zlibConstants.Z_SYNC_FLUSH, () => { compressor.off('data', take); resolve(Buffer.concat(out)); });
  });
  return {
    async synStream(id: number, headers: Record<string, string>, fin = false) {
      const block = await compressed(headers);
      const head = Buffer.alloc(18);
      head.writeUInt16BE(0x8003, 0);
      head.writeUInt16BE(1, 2);
      head.writeUInt32BE(10 + block.length, 4);
      head[4] = fin ? 1 : 0;
      head.writeUInt32BE(id, 8);
      return Buffer.concat([head, block]);
    },
    data(id: number, bytes: Buffer, fin = false) {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(id, 0);
      head.writeUInt32BE(bytes.length, 4);
      head[4] = fin ? 1 : 0;
      return Buffer.concat([head, bytes]);
    },
  };
}

/**
 * reads a SPDY server's frames from `socket` (after its 101 answer, unless `upgraded`): RST_STREAM statuses, the
 * streams it ended, the bytes of data each stream got and (up to a few KiB a stream) their text, by stream id
 */
export function spdyReader(socket: Duplex, o: { upgraded?: boolean } = {}) {
  const seen = { resets: new Map<number, number>(), ended: new Set<number>(), data: new Map<number, number>(), text: new Map<number, string>() };
  let pending = Buffer.alloc(0);
  let upgraded = o.upgraded ?? false;
  socket.on('data', (d: Buffer) => {
    pending = Buffer.concat([pending, d]);
    if (!upgraded) {
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      upgraded = true;
      pending = pending.subarray(end + 4);
    }
    while (pending.length >= 8) {
      const length = pending.readUInt32BE(4) & 0xffffff;
      if (pending.length < 8 + length) break;
      const control = (pending[0]! & 0x80) !== 0;
      if (control && pending.readUInt16BE(2) === 3) seen.resets.set(pending.readUInt32BE(8) & 0x7fffffff, pending.readUInt32BE(12));
      if (!control) {
        const id = pending.readUInt32BE(0) & 0x7fffffff;
        seen.data.set(id, (seen.data.get(id) ?? 0) + length);
        const text = seen.text.get(id) ?? '';
        if (text.length < 4096) seen.text.set(id, text + pending.subarray(8, 8 + length).toString('utf8'));
        if (pending[4]! & 1) seen.ended.add(id);
      }
      pending = pending.subarray(8 + length);
    }
  });
  return seen;
}
