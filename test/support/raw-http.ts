// Raw HTTP/1.1 exchanges for hostile-input tests: bytes no well-behaved client would send, and the answer as text.
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RawOptions {
  /** plain TCP instead of TLS (certificates are not checked over TLS) */
  plain?: boolean;
  /** stop reading once the answer so far says enough (default: read until the server closes) */
  enough?: (answer: string) => boolean;
}

/** sends `bytes` and gives back what the server answers, as Latin-1 text */
export function rawExchange(port: number, bytes: string | Buffer, o: RawOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const send = () => socket.write(bytes);
    const socket = o.plain ? connect(port, '127.0.0.1', send) : tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false }, send);
    let answer = '';
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      if (o.enough?.(answer)) { socket.destroy(); resolve(answer); }
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** the status code of a raw HTTP/1.1 answer (0 when there is none) */
export const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);

/** a GET of `target` as written (no URL parsing on the way), with extra header lines */
export const rawGet = (port: number, target: string, headers = '', o: RawOptions = {}) =>
  rawExchange(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`, o);
