// A component's own HTTPS port (the controller manager's --secure-port, as the reference's components serve one):
// /healthz, /healthz/<check>, /livez and /readyz answer anyone, as the reference's always-allowed paths; every
// other path (/metrics) needs a user — a client certificate of --client-ca-file, or a bearer token the API server
// confirms by TokenReview through --authentication-kubeconfig, else system:anonymous — whom the API server allows
// by SubjectAccessReview through --authorization-kubeconfig (no such client: refused).
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { Client } from '../client/rest-client.js';
import type { Naming } from '../api/naming.js';
import type { MetricsRegistry } from '../metrics/metrics.js';
import { servingPair } from '../pki/serving.js';
import { ttlCache } from '../util/webhook-client.js';
import { bearerToken } from '../authn/types.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import { discoverNaming } from '../client/discovery.js';
import { createMetrics } from '../metrics/metrics.js';
import type { ServingOptions } from '../config/serving-options.js';

export interface SecureServingOptions {
  bindAddress: string;
  /** 0: nothing is served */
  securePort: number;
  certFile?: string;
  keyFile?: string;
  /** where a self-signed pair is kept when no files are given */
  certDir: string;
  /** the component, naming its self-signed pair */
  name: string;
  clientCaFile?: string;
  /** TokenReviews go through it; none: bearer tokens are refused */
  authentication?: Client;
  /** SubjectAccessReviews go through it; none: only the always-allowed paths answer */
  authorization?: Client;
  /** the API's names, asked for at the first review (health answers before the API server does) */
  names: () => Promise<Naming>;
  /** health checks by name, besides `ping` */
  checks?: Record<string, () => boolean>;
  metrics: MetricsRegistry;
}

export interface SecureServing { port: number; close(): Promise<void> }

interface User { name: string; groups: string[] }

/** the reference's defaults of --authorization-always-allow-paths */
const alwaysAllowed = /^\/(healthz|livez|readyz)(\/.*)?$/;
/** how long a TokenReview or SubjectAccessReview answer is kept, as the reference's delegated caches (10 s) */
const cacheMs = 10_000;

export async function startSecureServing(o: SecureServingOptions): Promise<SecureServing | undefined> {
  if (o.securePort === 0) return undefined;
  const tls = await servingPair({ certFile: o.certFile, keyFile: o.keyFile, certDir: o.certDir, name: o.name, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  const ca = o.clientCaFile ? await readFile(o.clientCaFile, 'utf8') : undefined;
  const checks: Record<string, () => boolean> = { ping: () => true, ...o.checks };
  // bounded: every distinct token or path a client sends makes an entry
  const tokens = ttlCache<{ user?: User }>();
  const decisions = ttlCache<boolean>();

  async function authenticate(req: IncomingMessage): Promise<User | undefined> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[] | undefined>;
      const orgs = subject.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
      return { name: String(subject.CN ?? ''), groups: [...orgs, 'system:authenticated'] };
    }
    // read as the API server reads it: a header that carries no bearer token (another scheme, none after the
    // scheme) is no credential, and the request is anonymous
    const token = bearerToken({ headers: req.headers, rawHeaders: req.rawHeaders });
    if (token === undefined) return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    if (!o.authentication) return undefined;
    const cached = tokens.get(token);
    if (cached) return cached.user;
    const group = (await o.names()).group('authentication');
    const review = await o.authentication.request({ method: 'POST', path: `/apis/${group}/v1/tokenreviews`, body: { apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token } } });
    const user = review.status?.authenticated ? { name: String(review.status.user?.username ?? ''), groups: [...(review.status.user?.groups ?? [])] } : undefined;
    tokens.set(token, { user }, cacheMs);
    return user;
  }

  async function allowed(user: User, verb: string, path: string): Promise<boolean> {
    if (!o.authorization) return false;
    const key = JSON.stringify([user, verb, path]);
    const cached = decisions.get(key);
    if (cached !== undefined) return cached;
    const group = (await o.names()).group('authorization');
    const review = await o.authorization.request({
      method: 'POST', path: `/apis/${group}/v1/subjectaccessreviews`,
      body: { apiVersion: `${group}/v1`, kind: 'SubjectAccessReview', spec: { user: user.name, groups: user.groups, nonResourceAttributes: { verb, path } } },
    });
    const answer = !!review.status?.allowed;
    decisions.set(key, answer, cacheMs);
    return answer;
  }

  function health(res: ServerResponse, path: string, verbose: boolean) {
    const [, , one] = path.split('/');
    if (one) {
      const check = checks[one];
      if (!check) return send(res, 404, 'not found');
      return check() ? send(res, 200, 'ok') : send(res, 500, `[-]${one} failed: reason withheld\n`);
    }
    const results = Object.entries(checks).map(([name, check]) => [name, check()] as const);
    const ok = results.every(([, passed]) => passed);
    const root = path.split('/')[1];
    if (!verbose && ok) return send(res, 200, 'ok');
    const lines = results.map(([name, passed]) => (passed ? `[+]${name} ok` : `[-]${name} failed: reason withheld`));
    send(res, ok ? 200 : 500, `${lines.join('\n')}\n${root} check ${ok ? 'passed' : 'failed'}\n`);
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'https://localhost');
    } catch {
      return send(res, 400, `invalid request target: ${req.url}`);
    }
    const path = url.pathname;
    const verb = req.method === 'GET' || req.method === 'HEAD' ? 'get' : (req.method ?? 'get').toLowerCase();
    if (!alwaysAllowed.test(path)) {
      // a token that cannot be checked (the API server unreachable) is refused, as the reference's authentication does
      const user = await authenticate(req).catch(() => undefined);
      if (!user) return send(res, 401, 'Unauthorized');
      if (!(await allowed(user, verb, path))) return send(res, 403, `Forbidden: user "${user.name}" cannot ${verb} path "${path}"`);
    }
    if (verb !== 'get') return send(res, 405, 'method not allowed');
    if (alwaysAllowed.test(path)) return health(res, path, url.searchParams.has('verbose'));
    if (path === '/metrics') {
      const body = await o.metrics.render();
      res.writeHead(200, { 'content-type': o.metrics.contentType }).end(body);
      return;
    }
    send(res, 404, 'not found');
  }

  const server: Server = createServer({ ...tls, ca, requestCert: !!ca, rejectUnauthorized: false }, (req, res) => {
    route(req, res).catch((e) => { if (!res.headersSent) send(res, 500, `internal error: ${(e as Error).message}`); else res.destroy(); });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.securePort, o.bindAddress, () => { server.off('error', reject); resolve(); });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

function send(res: ServerResponse, code: number, text: string) {
  res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(text.endsWith('\n') || code === 200 ? text : `${text}\n`);
}

/**
 * A component program's HTTPS port (none when --secure-port is 0): its delegated authentication and authorization go
 * through the clients their files name, and its metrics tell whether it holds its lease
 */
export async function serveComponent(s: ServingOptions, client: Client, component: { program: string; leaseName: string; isLeader(): boolean },
  metrics: MetricsRegistry = createMetrics()): Promise<SecureServing | undefined> {
  if (s.securePort === 0) return undefined;
  let naming: Promise<Naming> | undefined;
  const names = () => (naming ??= discoverNaming(client).catch((e) => { naming = undefined; throw e; }));
  const delegate = async (file?: string) => (file ? createClient(await loadClientConfig(file), { userAgent: component.program }) : undefined);
  metrics.collected('leader_election_master_status', 'Whether this process holds the lease (1) or not (0).', ['name'],
    () => [[{ name: component.leaseName }, component.isLeader() ? 1 : 0]]);
  return startSecureServing({
    bindAddress: s.bindAddress, securePort: s.securePort, certFile: s.certFile, keyFile: s.keyFile,
    certDir: s.certDir ?? join(tmpdir(), component.program), name: component.program,
    clientCaFile: s.clientCaFile, authentication: await delegate(s.authenticationKubeconfig), authorization: await delegate(s.authorizationKubeconfig), names, metrics,
  });
}
