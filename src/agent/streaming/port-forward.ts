// The node side of port-forward for runtimes the agent serves itself: over SPDY/3.1 (the `portforward` protocol) the
// client opens an error stream and a data stream per connection, paired by a `requestID` header and naming the
// `port`; each pair is joined to a connection to that port of the pod, and a failure to connect is written to
// the error stream.
import type { Duplex } from 'node:stream';
import { acceptSpdy, type Upgrade } from './remote-command.js';
import { spdyServer, type SpdyStream } from './spdy.js';
import { inEveryDomain } from '../../api/naming.js';

const protocols = inEveryDomain('portforward');

/** serves port-forward until the client closes; `open` connects to a port of the pod */
export async function servePortForward(u: Upgrade, podName: string, open: (port: number) => Promise<Duplex>): Promise<void> {
  if (!acceptSpdy(u, protocols)) return;
  return portForwardOver(u.socket, u.head, podName, open);
}

/** port-forward's SPDY streams on a connection already switched (upgraded, or tunnelled in a WebSocket) */
export async function portForwardOver(socket: Duplex, head: Buffer, podName: string, open: (port: number) => Promise<Duplex>): Promise<void> {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  const conn = spdyServer(socket, head, s => {
    s.reply();
    const id = s.headers.requestid ?? '';
    const type = s.headers.streamtype;
    const port = Number(s.headers.port);
    if ((type !== 'error' && type !== 'data') || !Number.isInteger(port) || port < 1 || port > 65535) return s.reset();
    const pair = pairs.get(id) ?? {};
    pairs.set(id, pair);
    pair[type] = s;
    if (pair.error && pair.data) {
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
}
