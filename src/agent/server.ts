// The agent's own endpoints: healthz on --healthz-bind-address:--healthz-port; the authenticated
// HTTPS server on --address:--port (client certificates of --client-ca-file, bearer tokens through
// the TokenReview API with --authentication-token-webhook, anonymous per --anonymous-auth;
// authorization AlwaysAllow or Webhook through SubjectAccessReview on the node's subresources) with
// /healthz, /pods, /runningpods/, /stats/summary, /metrics/resource, /metrics and
// /containerLogs/<namespace>/<pod>/<container>; and the read-only HTTP port (no authentication) with
// the same endpoints except the debugging ones.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { AgentOptions } from './options.js';
import type { NodeAgent } from './agent.js';
import type { Client } from '../client/rest-client.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../pki/certificates.js';
import { podLogDirectory } from './sandbox.js';
import { resourceMetrics } from './stats/resource-metrics.js';
import type { AgentMetrics } from './metrics.js';

export interface AgentServers {
  /** bound ports: 0 when a server is off */
  ports: { healthz: number; main: number; readOnly: number };
  close(): Promise<void>;
}

interface User {
  name: string;
  groups: string[];
}

interface Route {
  path: RegExp;
  /** served only with --enable-debugging-handlers */
  debugging?: boolean;
  handle(r: { req: IncomingMessage; res: ServerResponse; url: URL; match: RegExpExecArray }): Promise<void> | void;
}

const prometheusText = 'text/plain; version=0.0.4; charset=utf-8';

class HttpError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

export async function startAgentServers(o: AgentOptions, nodes: NodeAgent[], client: Client | undefined, metrics?: AgentMetrics): Promise<AgentServers> {
  const servers: Server[] = [];
  const listen = async (server: Server, port: number, host: string) => {
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };
  const ports = { healthz: 0, main: 0, readOnly: 0 };

  try {
    if (o.healthzPort > 0) {
      ports.healthz = await listen(createHttpServer((req, res) => handle(req, res, async () => {
        if (path(req) !== '/healthz') throw new HttpError(404, 'not found');
        return text(res, 'ok');
      })), o.healthzPort, o.healthzBindAddress);
    }
    if (o.readOnlyPort > 0) {
      ports.readOnly = await listen(createHttpServer((req, res) => handle(req, res, () => route(req, res, false, 'readonly'))), o.readOnlyPort, o.address);
    }
    if (o.enableServer) {
      const tls = await servingCertificate(o);
      const ca = o.clientCaFile ? await readFile(o.clientCaFile, 'utf8') : undefined;
      const server = createHttpsServer({ ...tls, ca, requestCert: !!ca, rejectUnauthorized: false }, (req, res) =>
        handle(req, res, async () => {
          const user = await authenticate(req);
          await authorize(req, user);
          return route(req, res, o.enableDebuggingHandlers, 'https');
        }));
      ports.main = await listen(server, o.port, o.address);
    }
  } catch (e) {
    for (const s of servers) s.close();
    throw new Error(`agent server: ${(e as Error).message}`);
  }

  const tokenCache = new Map<string, { user?: User; until: number }>();
  async function authenticate(req: IncomingMessage): Promise<User> {
    const socket = req.socket as TLSSocket;
    if (socket.authorized) {
      const cert = socket.getPeerCertificate();
      const subject = cert.subject as unknown as Record<string, string | string[]>;
      const orgs = subject.O === undefined ? [] : Array.isArray(subject.O) ? subject.O : [subject.O];
      return { name: String(subject.CN ?? ''), groups: [...orgs, 'system:authenticated'] };
    }
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && o.authenticationTokenWebhook && client) {
      const token = auth.slice(7).trim();
      const cached = tokenCache.get(token);
      let user = cached && cached.until > Date.now() ? cached.user : undefined;
      if (!cached || cached.until <= Date.now()) {
        const group = o.names.group('authentication');
        const review = await client.request({ method: 'POST', path: `/apis/${group}/v1/tokenreviews`, body: { apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token } } });
        user = review.status?.authenticated ? { name: review.status.user.username, groups: [...(review.status.user.groups ?? [])] } : undefined;
        tokenCache.set(token, { user, until: Date.now() + (o.values['authentication-token-webhook-cache-ttl'] as number) });
      }
      if (!user) throw new HttpError(401, 'Unauthorized');
      return user;
    }
    if (auth) throw new HttpError(401, 'Unauthorized');
    if (o.anonymousAuth) return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    throw new HttpError(401, 'Unauthorized');
  }

  const decisions = new Map<string, { allowed: boolean; until: number }>();
  async function authorize(req: IncomingMessage, user: User) {
    if (o.authorizationMode === 'AlwaysAllow' || !client) return;
    const p = path(req);
    const subresource = p.startsWith('/stats') ? 'stats' : p.startsWith('/metrics') ? 'metrics' : p.startsWith('/logs') ? 'log' : p.startsWith('/spec') ? 'spec' : 'proxy';
    const verb = ({ GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[req.method ?? 'GET'] ?? 'get';
    const key = JSON.stringify([user, verb, subresource]);
    const cached = decisions.get(key);
    let allowed = cached && cached.until > Date.now() ? cached.allowed : undefined;
    if (allowed === undefined) {
      const group = o.names.group('authorization');
      const review = await client.request({
        method: 'POST', path: `/apis/${group}/v1/subjectaccessreviews`,
        body: { apiVersion: `${group}/v1`, kind: 'SubjectAccessReview', spec: { user: user.name, groups: user.groups, resourceAttributes: { verb, resource: 'nodes', subresource, name: nodes[0]?.nodeName } } },
      });
      allowed = !!review.status?.allowed;
      const ttl = o.values[allowed ? 'authorization-webhook-cache-authorized-ttl' : 'authorization-webhook-cache-unauthorized-ttl'] as number;
      decisions.set(key, { allowed, until: Date.now() + ttl });
    }
    if (!allowed) throw new HttpError(403, `Forbidden (user=${user.name}, verb=${verb}, resource=nodes, subresource(s)=[${subresource}])`);
  }

  /** the node a request is about: the only one, or the simulated one named by ?node= */
  const nodeOf = (url: URL): NodeAgent => {
    const name = url.searchParams.get('node');
    const n = name ? nodes.find((x) => x.nodeName === name) : nodes[0];
    if (!n) throw new HttpError(404, `node ${name} is not run by this agent`);
    return n;
  };
  const allPods = () => nodes.flatMap((n) => n.workers.pods());

  /**
   * The endpoints, matched in order: a path pattern, whether it needs --enable-debugging-handlers, and
   * the handler. New endpoints (exec, attach, port-forward) go here.
   */
  const routes: Route[] = [
    { path: /^\/healthz$/, handle: ({ res }) => text(res, 'ok') },
    { path: /^\/pods\/?$/, handle: ({ res }) => json(res, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: allPods().map((x) => x.pod) }) },
    {
      path: /^\/runningpods\/?$/,
      handle: ({ res }) => {
        const items = allPods().filter((x) => x.containers.some((c) => c.state === 'running')).map(({ pod, containers }) => ({
          metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid },
          spec: { containers: containers.filter((c) => c.state === 'running').map((c) => ({ name: c.name, image: c.image })) },
        }));
        return json(res, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items });
      },
    },
    { path: /^\/stats\/summary\/?$/, handle: async ({ res, url }) => json(res, await nodeOf(url).stats.summary()) },
    { path: /^\/metrics\/resource\/?$/, handle: async ({ res, url }) => text(res, resourceMetrics(await nodeOf(url).stats.summary()), prometheusText) },
    {
      path: /^\/metrics\/?$/,
      handle: async ({ res }) => {
        if (!metrics) throw new HttpError(404, 'not found');
        return text(res, await metrics.registry.metrics(), metrics.registry.contentType);
      },
    },
    {
      path: /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/, debugging: true,
      handle: async ({ res, url, match }) => {
        const [ns, name, container] = match.slice(1).map(decodeURIComponent) as [string, string, string];
        const found = allPods().find((x) => x.pod.metadata.namespace === ns && x.pod.metadata.name === name);
        if (!found) throw new HttpError(404, `pod ${ns}/${name} not found`);
        const instances = found.containers.filter((c) => c.name === container).sort((a, b) => b.attempt - a.attempt);
        const previous = url.searchParams.get('previous') === 'true';
        const c = previous ? instances[1] : instances[0];
        if (!c) throw new HttpError(404, previous ? `previous terminated container "${container}" in pod "${name}" not found` : `container "${container}" in pod "${name}" is not available`);
        const file = join(podLogDirectory(o.rootDir, found.pod), container, `${c.attempt}.log`);
        const raw = existsSync(file) ? await readFile(file, 'utf8') : '';
        let lines = parseCriLog(raw, url.searchParams.get('timestamps') === 'true');
        const tail = url.searchParams.get('tailLines');
        if (tail !== null) lines = lines.slice(-Math.max(0, Number(tail)));
        return text(res, lines.join(''));
      },
    },
  ];

  async function route(req: IncomingMessage, res: ServerResponse, debugging: boolean, serverType: string) {
    const url = new URL(req.url ?? '/', 'http://agent');
    for (const r of routes) {
      const match = r.path.exec(url.pathname);
      if (!match || (r.debugging && !debugging)) continue;
      metrics?.request(req.method ?? 'GET', r.path.source, serverType);
      return r.handle({ req, res, url, match });
    }
    throw new HttpError(404, 'not found');
  }

  return {
    ports,
    async close() {
      await Promise.all(servers.map((s) => new Promise<void>((r) => { s.close(() => r()); s.closeAllConnections?.(); })));
    },
  };
}

/** CRI log lines are `<RFC 3339 time> <stream> <P|F> <text>`; partial lines join the next. */
export function parseCriLog(raw: string, timestamps: boolean): string[] {
  const out: string[] = [];
  let partial = '';
  for (const line of raw.split('\n')) {
    const m = /^(\S+) (stdout|stderr) ([PF]) ?(.*)$/.exec(line);
    if (!m) continue;
    partial += m[4];
    if (m[3] === 'P') continue;
    out.push(`${timestamps ? `${m[1]} ` : ''}${partial}\n`);
    partial = '';
  }
  return out;
}

function path(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://agent').pathname;
}

function text(res: ServerResponse, body: string, contentType = 'text/plain; charset=utf-8') {
  res.writeHead(200, { 'content-type': contentType }).end(body);
}

function json(res: ServerResponse, body: unknown) {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function handle(req: IncomingMessage, res: ServerResponse, f: () => Promise<void> | void) {
  Promise.resolve()
    .then(f)
    .catch((e) => {
      const code = e instanceof HttpError ? e.code : 500;
      if (!res.headersSent) res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8' }).end(`${(e as Error).message}\n`);
      else res.destroy();
    });
}

/** --tls-cert-file and --tls-private-key-file, else a self-signed pair kept in --cert-dir. */
async function servingCertificate(o: AgentOptions): Promise<{ cert: string; key: string }> {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) return { cert: await readFile(o.tlsCertFile, 'utf8'), key: await readFile(o.tlsPrivateKeyFile, 'utf8') };
  const certFile = join(o.certDir, 'agent.crt');
  const keyFile = join(o.certDir, 'agent.key');
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = await readFile(certFile, 'utf8');
    if (new Date(new X509Certificate(cert).validTo).getTime() > Date.now()) return { cert, key: await readFile(keyFile, 'utf8') };
  }
  const ca = createCertificateAuthority(`${o.nodeName}-ca@${Math.floor(Date.now() / 1000)}`, 365 * 86400);
  const pair = generateKeyPair();
  const leaf = issueLeaf(ca, pair.publicKey, { commonName: `${o.nodeName}@${Math.floor(Date.now() / 1000)}`, usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 365 * 86400, dnsNames: [o.nodeName, 'localhost'], ips: ['127.0.0.1'] });
  await mkdir(o.certDir, { recursive: true });
  await writeFile(certFile, leaf + ca.certPem, { mode: 0o644 });
  await writeFile(keyFile, pair.keyPem, { mode: 0o600 });
  return { cert: leaf + ca.certPem, key: pair.keyPem };
}
