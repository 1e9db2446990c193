// The node side of port-forward for runtimes the agent serves itself: over SPDY/3.1 (the `portforward` protocol) the
// client opens an error stream and a data stream per connection, paired by a `requestID` header and naming the
// `port`; each pair is joined to a connection to that port of the pod, and a failure to connect is written to
// the error stream. As the reference's node agent, a pair still missing one of its streams after the stream
// creation timeout is dropped: its error stream (if it came) says so, and the lone streams are reset.
import type { Duplex } from 'node:stream';
import { acceptSpdy, streamCreationTimeoutMs, type Upgrade } from './remote-command.js';
import { spdyServer, type SpdyStream } from './spdy.js';
import { inEveryDomain } from '../../api/naming.js';

const protocols = inEveryDomain('portforward');

export interface PortForwardOptions {
  /** how long the second stream of a pair may come after the first (default the reference's 30 s) */
  streamCreationTimeoutMs?: number;
}

/** the streams of one forwarded connection as they arrive, and the timer that drops them if the pair never completes */
interface Pair { error?: SpdyStream; data?: SpdyStream; timer: NodeJS.Timeout }

/** serves port-forward until the client closes; `open` connects to a port of the pod */
export async function servePortForward(u: Upgrade, podName: string, open: (port: number) => Promise<Duplex>, o: PortForwardOptions = {}): Promise<void> {
  if (!acceptSpdy(u, protocols)) return;
  return portForwardOver(u.socket, u.head, podName, open, o);
}

/** port-forward's SPDY streams on a connection already switched (upgraded, or tunnelled in a WebSocket) */
export async function portForwardOver(socket: Duplex, head: Buffer, podName: string, open: (port: number) => Promise<Duplex>, o: PortForwardOptions = {}): Promise<void> {
  const pairs = new Map<string, Pair>();
  /** a pair incomplete at its deadline: its error stream tells why, then both streams are let go */
  const expire = (id: string) => {
    const pair = pairs.get(id);
    if (!pair) return;
    pairs.delete(id);
    pair.data?.reset();
    const error = pair.error;
    if (error) error.outgoing.end(`(request=${id}) timed out waiting for streams`, () => { if (!error.incoming.writableEnded) error.reset(); });
  };
  const conn = spdyServer(socket, head, s => {
    s.reply();
    const id = s.headers.requestid ?? '';
    const type = s.headers.streamtype;
    const port = Number(s.headers.port);
    if ((type !== 'error' && type !== 'data') || !Number.isInteger(port) || port < 1 || port > 65535) return s.reset();
    let pair = pairs.get(id);
    if (!pair) {
      pair = { timer: setTimeout(expire, o.streamCreationTimeoutMs ?? streamCreationTimeoutMs, id) };
      pairs.set(id, pair);
    }
    if (pair[type]) {
      // a second stream of one kind for a request: refused, and told on the request's error stream
      pair.error?.outgoing.write(`error processing stream for request ${id}: ${type} stream already assigned`);
      return s.reset();
    }
    pair[type] = s;
    if (pair.error && pair.data) {
      clearTimeout(pair.timer);
      pairs.delete(id);
      forward(pair.error, pair.data, port);
    }
  });
  const forward = async (error: SpdyStream, data: SpdyStream, port: number) => {
    let target: Duplex;
    try {
      target = await open(port);
    } catch (e) {
      error.outgoing.end(`error forwarding port ${port} to pod ${podName}: ${(e as Error).message}`);
      data.outgoing.end();
      return;
    }
    data.incoming.pipe(target);
    target.pipe(data.outgoing);
    target.on('error', e => { if (!error.outgoing.writableEnded) error.outgoing.end(`error forwarding port ${port} to pod ${podName}: ${e.message}`); data.outgoing.end(); });
    target.once('close', () => { if (!error.outgoing.writableEnded) error.outgoing.end(); });
    data.incoming.once('end', () => target.end());
  };
  await conn.closed;
  for (const pair of pairs.values()) clearTimeout(pair.timer);
  pairs.clear();
}
