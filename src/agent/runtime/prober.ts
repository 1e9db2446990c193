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

export async function httpProbe(probe: Probe, host: string, container: ProbedContainer | undefined): Promise<boolean> {
  const h = probe.httpGet!;
  const port = resolvePort(h.port, container);
  const scheme = (h.scheme ?? 'HTTP').toLowerCase();
  const target = h.host || host;
  const url = `${scheme}://${target.includes(':') ? `[${target}]` : target}:${port}${h.path?.startsWith('/') ? h.path : `/${h.path ?? ''}`}`;
  const headers = new Headers({ 'user-agent': 'cluster-probe/1.27' });
  for (const x of h.httpHeaders ?? []) headers.set(x.name, x.value);
  try {
    const res = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout((probe.timeoutSeconds ?? 1) * 1000) });
    await res.arrayBuffer().catch(() => {});
    return res.status >= 200 && res.status < 400;
  } catch {
    return false;
  }
}

export function tcpProbe(probe: Probe, host: string, container: ProbedContainer | undefined): Promise<boolean> {
  const tcp = probe.tcpSocket!;
  const port = resolvePort(tcp.port, container);
  return new Promise((resolve) => {
    const socket = connect({ host: tcp.host || host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout((probe.timeoutSeconds ?? 1) * 1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
