// Probe handlers that run outside the container: HTTP GET (2xx and 3xx pass) and TCP connect.
// Exec probes run inside the container through the runtime.

import { connect } from 'node:net';
import type { IntOrString } from '../../api/types/meta-v1.js';
import type { Probe } from '../objects.js';

/** the part of a container probes look at: its named ports */
export interface ProbedContainer {
  name: string;
  ports?: { name?: string; containerPort: number }[];
}

/** a named port resolves through the container's ports */
export function resolvePort(port: IntOrString, container: ProbedContainer | undefined): number {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  const named = (container?.ports ?? []).find((p) => p.name === port);
  if (!named) throw new Error(`port ${port} is not a named port of container ${container?.name}`);
  return named.containerPort;
}

/** whether a probe passed, and what the reference's prober would say about it (the text after "probe failed: ") */
export interface ProbeOutcome {
  ok: boolean;
  output: string;
}

/** `host:port` as Go joins them (IPv6 in brackets) */
const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** a connection error in the words of Go's dialer, as the reference's probe outputs read */
function dialError(e: unknown, address: string): string {
  const err = e as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.cause?.code ?? err.code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connect: connection refused', EHOSTUNREACH: 'connect: no route to host', ENETUNREACH: 'connect: network is unreachable',
    ECONNRESET: 'read: connection reset by peer', ETIMEDOUT: 'i/o timeout',
  };
  if (code && reasons[code]) return `dial tcp ${address}: ${reasons[code]}`;
  return (err.cause?.message ?? err.message) || String(e);
}

export async function httpProbe(probe: Probe, host: string, container: ProbedContainer | undefined): Promise<ProbeOutcome> {
  const h = probe.httpGet!;
  const port = resolvePort(h.port, container);
  const scheme = (h.scheme ?? 'HTTP').toLowerCase();
  const target = h.host || host;
  const url = `${scheme}://${hostPort(target, port)}${h.path?.startsWith('/') ? h.path : `/${h.path ?? ''}`}`;
  const headers = new Headers({ 'user-agent': 'cluster-probe/1.27' });
  for (const x of h.httpHeaders ?? []) headers.set(x.name, x.value);
  try {
    const res = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout((probe.timeoutSeconds ?? 1) * 1000) });
    await res.arrayBuffer().catch(() => {});
    const ok = res.status >= 200 && res.status < 400;
    return { ok, output: ok ? '' : `HTTP probe failed with statuscode: ${res.status}` };
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError' || (e as Error).name === 'AbortError';
    return { ok: false, output: `Get "${url}": ${timedOut ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' : dialError(e, hostPort(target, port))}` };
  }
}

export function tcpProbe(probe: Probe, host: string, container: ProbedContainer | undefined): Promise<ProbeOutcome> {
  const tcp = probe.tcpSocket!;
  const port = resolvePort(tcp.port, container);
  const address = hostPort(tcp.host || host, port);
  return new Promise((resolve) => {
    const socket = connect({ host: tcp.host || host, port });
    const done = (outcome: ProbeOutcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout((probe.timeoutSeconds ?? 1) * 1000, () => done({ ok: false, output: `dial tcp ${address}: i/o timeout` }));
    socket.once('connect', () => done({ ok: true, output: '' }));
    socket.once('error', (e) => done({ ok: false, output: dialError(e, address) }));
  });
}
