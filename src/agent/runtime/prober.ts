// Probe handlers that run outside the container: HTTP GET (2xx and 3xx pass), TCP connect and the gRPC health
// protocol (grpc.health.v1.Health/Check answering SERVING). Exec probes run inside the container through the runtime.

import { connect } from 'node:net';
import type { IntOrString } from '../../api/types/meta-v1.js';
import type { Probe } from '../objects.js';
import { formatDuration } from '../../config/flags.js';

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

/** the one field of a HealthCheckRequest (1: service), in protobuf's wire format */
function healthCheckRequest(service: string): Buffer {
  const text = Buffer.from(service);
  return text.length ? Buffer.concat([Buffer.from([0x0a]), varint(text.length), text]) : Buffer.alloc(0);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) out.push((n % 128) | 0x80);
  out.push(n);
  return Buffer.from(out);
}

const servingStatuses = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/** the status (field 1, an enum) of a HealthCheckResponse; fields it does not know are skipped */
function healthCheckStatus(b: Buffer): number {
  let i = 0;
  const read = () => {
    let v = 0;
    for (let shift = 1; i < b.length; shift *= 128) {
      const byte = b[i++]!;
      v += (byte & 0x7f) * shift;
      if (byte < 0x80) break;
    }
    return v;
  };
  let status = 0;
  while (i < b.length) {
    const tag = read();
    const wire = tag % 8;
    if (wire === 0) {
      const v = read();
      if (tag >>> 3 === 1) status = v;
    } else if (wire === 2) i += read();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else break;
  }
  return status;
}

/** the gRPC health check the reference's prober makes (plaintext, within the probe's timeout), and its words */
export async function grpcProbe(probe: Probe, host: string): Promise<ProbeOutcome> {
  const { port, service } = probe.grpc!;
  const grpc = await import('@grpc/grpc-js');
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  const timeout = formatDuration(timeoutMs);
  const address = hostPort(host, port);
  const deadline = Date.now() + timeoutMs;
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.primary_user_agent': 'kube-probe/1.27' });
  try {
    // the connection first, as the reference dials and blocks until it is up or the timeout passes
    const connected = await new Promise<boolean>((resolve) => client.waitForReady(deadline, (e) => resolve(!e)));
    if (!connected) return { ok: false, output: `timeout: failed to connect service "${address}" within ${timeout}: context deadline exceeded` };
    const answer = await new Promise<{ error?: { code?: number; details?: string; message: string }; body?: Buffer }>((resolve) => {
      client.makeUnaryRequest('/grpc.health.v1.Health/Check', (b: Buffer) => b, (b: Buffer) => b, healthCheckRequest(service ?? ''), new grpc.Metadata(), { deadline },
        (error, body) => resolve({ error: error ?? undefined, body }));
    });
    if (answer.error) {
      const e = answer.error;
      if (e.code === grpc.status.UNIMPLEMENTED) return { ok: false, output: `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${e.details ?? ''}` };
      if (e.code === grpc.status.DEADLINE_EXCEEDED) return { ok: false, output: `timeout: health rpc did not complete within ${timeout}` };
      const code = Object.entries(grpc.status).find(([, v]) => v === e.code)?.[0] ?? String(e.code);
      return { ok: false, output: `error: health rpc probe failed: rpc error: code = ${goCodeName(code)} desc = ${e.details ?? e.message}` };
    }
    const status = healthCheckStatus(answer.body ?? Buffer.alloc(0));
    return status === 1 ? { ok: true, output: '' } : { ok: false, output: `service unhealthy (responded with "${servingStatuses[status] ?? status}")` };
  } finally {
    client.close();
  }
}

/** a gRPC status name as Go's codes print it (NOT_FOUND is NotFound) */
const goCodeName = (name: string) => name.toLowerCase().split('_').map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}`).join('');
