// SPDY/3.1 framing, the server side, as kubectl and the reference's clients speak it for exec, attach and
// port-forward: streams opened by the client (SYN_STREAM with a header block), answered (SYN_REPLY), data frames
// each way with FIN, RST_STREAM, PING, GOAWAY. Header blocks are compressed with one zlib context per direction
// and the protocol's dictionary. Flow control is not enforced: the reference's clients neither send nor honour
// window updates; instead, as the reference's connections do, a stream whose reader falls behind holds up the
// reading of the connection, so what a peer sends is never buffered without bound. Our own because the one npm
// implementation (spdy-transport, unmaintained since 2018) enforces flow-control windows these clients never open,
// which stalls any stream past 64 KiB. A connection held so is pinged now and then, for a peer gone meanwhile to be
// noticed (held.ts).
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { PassThrough, Writable, type Duplex } from 'node:stream';
import { heldProbe } from './held.js';

/** the SPDY/3 header dictionary: these words, each with its length before it, then the tail */
const dictionaryWords = ('options|head|post|put|delete|trace|accept|accept-charset|accept-encoding|accept-language|accept-ranges|'
  + 'age|allow|authorization|cache-control|connection|content-base|content-encoding|content-language|'
  + 'content-length|content-location|content-md5|content-range|content-type|date|etag|expect|expires|from|host|'
  + 'if-match|if-modified-since|if-none-match|if-range|if-unmodified-since|last-modified|location|max-forwards|'
  + 'pragma|proxy-authenticate|proxy-authorization|range|referer|retry-after|server|te|trailer|'
  + 'transfer-encoding|upgrade|user-agent|vary|via|warning|www-authenticate|method|get|status|200 OK|version|'
  + 'HTTP/1.1|url|public|set-cookie|keep-alive|origin').split('|');
const dictionaryTail = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 Non-Authoritative '
  + 'Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server '
  + 'Error501 Not Implemented503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, '
  + 'Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,'
  + 'text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
export const spdyDictionary = Buffer.concat([
  ...dictionaryWords.map(w => { const b = Buffer.alloc(4 + w.length); b.writeUInt32BE(w.length); b.write(w, 4, 'latin1'); return b; }),
  Buffer.from(dictionaryTail, 'latin1'),
]);

const enum Type { SynStream = 1, SynReply = 2, RstStream = 3, Settings = 4, Ping = 6, GoAway = 7, Headers = 8, WindowUpdate = 9 }
const finFlag = 1;
/** limits on what a peer may send */
const maxHeaderBlock = 256 * 1024;
const maxHeaders = 1000;
/**
 * the longest frame a peer may send: the reference's clients send data in pieces of 32 KiB; a frame is held whole
 * until it is complete, so a longer one would only cost memory (and copying)
 */
const maxFrame = 1 << 20;
/** data frames are sent in pieces of at most this size */
const maxDataFrame = 32 * 1024;
/** what a stream holds for its reader before the connection stops reading */
const streamBuffer = 32 * 1024;
/**
 * streams a peer may have open at once on a connection; one more is refused (REFUSED_STREAM). kubectl port-forward
 * opens two per local connection, exec five at most: this many only serves to keep a peer from opening streams
 * without end, each holding memory until the connection closes
 */
const maxOpenStreams = 1000;
/** frames read but not handled yet before the connection stops reading */
const maxQueuedFrames = 16;

export interface SpdyStream {
  id: number;
  /** the SYN_STREAM's headers, names in lower case */
  headers: Record<string, string>;
  /** what the peer sends on the stream; ends when the peer closes its side */
  incoming: PassThrough;
  /** what we send; ending it sends FIN */
  outgoing: Writable;
  /** answers the stream's opening (every stream the server accepts is answered) */
  reply(): void;
  reset(status?: number): void;
}

export interface SpdyConnection {
  /** says goodbye (GOAWAY) and ends the connection once what was written is out */
  close(): Promise<void>;
  /** resolves when the connection is gone */
  closed: Promise<void>;
}

/** frames queued while an earlier one is still being compressed keep their order */
function serialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(f: () => Promise<T> | T): Promise<T> => {
    const next = tail.then(f);
    tail = next.catch(() => undefined);
    return next;
  };
}

function zlibBlock(z: Inflate | Deflate, input: Buffer, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => { size += c.length; if (size > limit) { z.off('data', onData); reject(new Error('header block too large')); } else chunks.push(c); };
    z.on('data', onData);
    z.once('error', reject);
    z.write(input);
    z.flush(constants.Z_SYNC_FLUSH, () => { z.off('data', onData); z.off('error', reject); resolve(Buffer.concat(chunks)); });
  });
}

function parseHeaderBlock(b: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  const u32 = () => { if (at + 4 > b.length) throw new Error('truncated header block'); const v = b.readUInt32BE(at); at += 4; return v; };
  const str = () => { const n = u32(); if (at + n > b.length) throw new Error('truncated header block'); const s = b.toString('utf8', at, at + n); at += n; return s; };
  const count = u32();
  if (count > maxHeaders) throw new Error('too many headers');
  for (let i = 0; i < count; i++) {
    const name = str().toLowerCase();
    // several values of one header are separated by NUL; the streaming protocols use the first
    out[name] = str().split('\0')[0]!;
  }
  return out;
}

function encodeHeaderBlock(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.alloc(4)];
  parts[0]!.writeUInt32BE(Object.keys(headers).length);
  for (const [k, v] of Object.entries(headers)) {
    for (const s of [k.toLowerCase(), v]) {
      const b = Buffer.from(s, 'utf8');
      const len = Buffer.alloc(4);
      len.writeUInt32BE(b.length);
      parts.push(len, b);
    }
  }
  return Buffer.concat(parts);
}

function controlFrame(type: Type, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | 3, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(payload.length, 4);
  head[4] = flags;
  return Buffer.concat([head, payload]);
}

function dataFrame(id: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id & 0x7fffffff, 0);
  head.writeUInt32BE(data.length, 4);
  head[4] = flags;
  return Buffer.concat([head, data]);
}

const u32 = (...values: number[]) => { const b = Buffer.alloc(4 * values.length); values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i)); return b; };

/** serves SPDY on an upgraded connection; `onStream` gets each stream the client opens */
export function spdyServer(socket: Duplex, head: Buffer, onStream: (s: SpdyStream) => void): SpdyConnection {
  const inflater = createInflate({ dictionary: spdyDictionary });
  const deflater = createDeflate({ dictionary: spdyDictionary });
  const inbound = serialQueue();
  const outbound = serialQueue();
  const streams = new Map<number, SpdyStream>();
  let buffered: Buffer = Buffer.alloc(0);
  let lastStreamId = 0;
  let gone = false;
  /** the ids of our PINGs (a server's are even) */
  let pingId = 0;

  const closed = new Promise<void>(resolve => socket.once('close', resolve));
  const send = (frame: () => Buffer | Promise<Buffer>) => outbound(async () => {
    const bytes = await frame();
    if (socket.destroyed) return;
    if (!socket.write(bytes)) await new Promise<void>(resolve => { socket.once('drain', resolve); socket.once('close', resolve); });
  });
  const fail = () => { gone = true; socket.destroy(); };
  const finish = (s: SpdyStream) => { if (!s.incoming.writableEnded) s.incoming.end(); };

  const newStream = (id: number, headers: Record<string, string>, fin: boolean): SpdyStream => {
    let replied = false;
    const incoming = new PassThrough({ highWaterMark: streamBuffer });
    const outgoing = new Writable({
      write(chunk: Buffer, _enc, cb) {
        const pieces: Buffer[] = [];
        for (let i = 0; i < chunk.length; i += maxDataFrame) pieces.push(chunk.subarray(i, i + maxDataFrame));
        Promise.all(pieces.map(p => send(() => dataFrame(id, 0, p)))).then(() => cb(), cb);
      },
      final(cb) { send(() => dataFrame(id, finFlag, Buffer.alloc(0))).then(() => cb(), cb); },
    });
    outgoing.on('error', () => undefined);
    const s: SpdyStream = {
      id, headers, incoming, outgoing,
      reply() {
        if (replied) return;
        replied = true;
        send(async () => controlFrame(Type.SynReply, 0, Buffer.concat([u32(id), await zlibBlock(deflater, encodeHeaderBlock({}), maxHeaderBlock)])));
      },
      reset(status = 5 /* CANCEL */) {
        send(() => controlFrame(Type.RstStream, 0, u32(id, status)));
        streams.delete(id);
        finish(s);
      },
    };
    streams.set(id, s);
    // a stream closed both ways is forgotten (a long port-forward opens two for each connection it carries)
    const closedBothWays = () => { if (incoming.writableFinished && (outgoing.writableFinished || outgoing.destroyed) && streams.get(id) === s) streams.delete(id); };
    incoming.once('finish', closedBothWays);
    outgoing.once('finish', closedBothWays);
    outgoing.once('close', closedBothWays);
    if (fin) finish(s);
    return s;
  };

  const handle = async (frame: Buffer) => {
    if (frame[0]! & 0x80) {
      const version = frame.readUInt16BE(0) & 0x7fff;
      const type = frame.readUInt16BE(2) as Type;
      const flags = frame[4]!;
      if (version !== 3) return fail();
      switch (type) {
        case Type.SynStream: {
          const id = frame.readUInt32BE(8) & 0x7fffffff;
          const headers = parseHeaderBlock(await zlibBlock(inflater, frame.subarray(18), maxHeaderBlock));
          // client streams are odd and increasing
          if (id % 2 === 0 || id <= lastStreamId || gone) { send(() => controlFrame(Type.RstStream, 0, u32(id, 1 /* PROTOCOL_ERROR */))); return; }
          lastStreamId = id;
          if (streams.size >= maxOpenStreams) { send(() => controlFrame(Type.RstStream, 0, u32(id, 3 /* REFUSED_STREAM */))); return; }
          onStream(newStream(id, headers, (flags & finFlag) !== 0));
          return;
        }
        case Type.SynReply: case Type.Headers:
          // kept only so the compression context stays in step
          await zlibBlock(inflater, frame.subarray(12), maxHeaderBlock);
          if (flags & finFlag) { const s = streams.get(frame.readUInt32BE(8) & 0x7fffffff); if (s) finish(s); }
          return;
        case Type.RstStream: {
          const s = streams.get(frame.readUInt32BE(8) & 0x7fffffff);
          if (s) { streams.delete(s.id); finish(s); s.outgoing.destroy(); }
          return;
        }
        case Type.Ping: {
          const id = frame.readUInt32BE(8);
          if (id % 2 === 1) send(() => controlFrame(Type.Ping, 0, u32(id)));
          return;
        }
        case Type.GoAway:
          gone = true;
          return;
        default:
          return; // SETTINGS, WINDOW_UPDATE and others need no action
      }
    }
    const s = streams.get(frame.readUInt32BE(0) & 0x7fffffff);
    if (!s) return;
    const data = frame.subarray(8);
    if (data.length && !s.incoming.writableEnded && !s.incoming.write(Buffer.from(data))) await drained(s.incoming);
    if (frame[4]! & finFlag) finish(s);
  };

  /** a stream's reader has caught up, or the stream or the connection is gone */
  const drained = (incoming: PassThrough) => new Promise<void>(resolve => {
    const done = () => { incoming.off('drain', done); incoming.off('close', done); socket.off('close', done); resolve(); };
    incoming.once('drain', done);
    incoming.once('close', done);
    socket.once('close', done);
  });
  let queued = 0;
  const handled = () => { if (--queued < maxQueuedFrames && socket.isPaused()) socket.resume(); };
  const probe = heldProbe(() => socket.isPaused() && !socket.destroyed, () => socket.writableLength === 0,
    () => { send(() => controlFrame(Type.Ping, 0, u32(pingId = (pingId + 2) & 0x7ffffffe))); });

  const onData = (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    while (buffered.length >= 8) {
      const length = buffered.readUInt32BE(4) & 0xffffff;
      if (length > maxFrame) return fail();
      if (buffered.length < 8 + length) break;
      const frame = buffered.subarray(0, 8 + length);
      buffered = buffered.subarray(8 + length);
      queued++;
      inbound(() => handle(frame)).catch(fail).finally(handled);
    }
    // frames wait while a stream's reader is behind: the connection is not read meanwhile
    if (queued >= maxQueuedFrames) { socket.pause(); probe.start(); }
  };
  socket.on('data', onData);
  socket.on('error', () => socket.destroy());
  socket.once('close', () => {
    probe.stop();
    for (const s of streams.values()) { finish(s); s.outgoing.destroy(); }
    streams.clear();
    inflater.close();
    deflater.close();
  });
  if (head.length) onData(head);

  return {
    closed,
    async close() {
      if (socket.destroyed) return;
      await send(() => controlFrame(Type.GoAway, 0, u32(lastStreamId, 0)));
      socket.end();
      // a peer that keeps its side open is cut after a moment
      setTimeout(() => socket.destroy(), 2000).unref();
    },
  };
}
