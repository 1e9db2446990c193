// The agent's own endpoints: healthz on --healthz-bind-address:--healthz-port; the authenticated
// HTTPS server on --address:--port (client certificates of --client-ca-file, bearer tokens through
// the TokenReview API with --authentication-token-webhook, anonymous per --anonymous-auth;
// authorization AlwaysAllow or Webhook through SubjectAccessReview on the node's subresources) with
// /healthz, /pods, /runningpods/, /stats/summary, /metrics/resource, /metrics, and the debugging ones:
// /containerLogs/<namespace>/<pod>/<container> (follow, tail, since, limit), /exec, /attach and
// /portForward (upgraded to SPDY or WebSocket: passed to the runtime's streaming server, or served
// here from the runtime's calls), /run and /logs/; and the read-only HTTP port (no authentication)
// with the same endpoints except the debugging ones.

import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { queryFlag } from '../api/request.js';
import { configurationOf, type AgentOptions } from './options.js';
import { HttpError } from './http-error.js';
import { logOptions, streamLog } from './logs.js';
import { defaultApiDomain } from '../api/naming.js';
import { ttlCache } from '../util/webhook-client.js';
import type { NodeAgent } from './agent.js';
import type { AgentPod } from './objects.js';
import type { ContainerInfo } from './runtime/types.js';
import type { Client } from '../client/rest-client.js';
import { servingPair } from '../pki/serving.js';
import { podLogDirectory } from './sandbox.js';
import { servingCertificate, type Logger, type RotatingCertificate } from './certificates.js';
import { hostIP } from './node-status.js';
import { resourceMetrics } from './stats/resource-metrics.js';
import { summaryJson } from './stats/summary.js';
import type { AgentMetrics } from './metrics.js';
import { refuseUpgrade, serveRemoteCommand, streamFlags, type CommandIO } from './streaming/remote-command.js';
import { servePortForward } from './streaming/port-forward.js';
import { serveWebSocketCommand, serveWebSocketPortForward } from './streaming/websocket.js';
import { forwardedHeaders, forwardUpgrade } from '../util/http-proxy.js';

/** where the node's own logs are (served at /logs/) */
const nodeLogDir = '/var/log';

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
  handle?(r: { req: IncomingMessage; res: ServerResponse; url: URL; match: RegExpExecArray }): Promise<void> | void;
  /** the route's upgraded connections (exec, attach, port-forward) */
  upgrade?(r: { req: IncomingMessage; url: URL; match: RegExpExecArray; socket: Duplex; head: Buffer }): Promise<void> | void;
}

const prometheusText = 'text/plain; version=0.0.4; charset=utf-8';

export async function startAgentServers(o: AgentOptions, nodes: NodeAgent[], client: Client | undefined, metrics?: AgentMetrics,
  log: Logger = { info() {}, warn() {} }): Promise<AgentServers> {
  const servers: Server[] = [];
  /** upgraded connections, cut when the servers close */
  const tunnels = new Set<Duplex>();
  const listen = async (server: Server, port: number, host: string) => {
    servers.push(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  };
  const ports = { healthz: 0, main: 0, readOnly: 0 };
  let serving: RotatingCertificate | undefined;

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
      // with --rotate-server-certificates the certificate comes from the API server once approved; until then no handshake completes
      const requested = o.rotateServerCertificates && client;
      const tls = requested ? {} : await selfSignedOrGiven(o);
      const ca = o.clientCaFile ? await readFile(o.clientCaFile, 'utf8') : undefined;
      const server = createHttpsServer({ ...tls, ca, requestCert: !!ca, rejectUnauthorized: false }, (req, res) =>
        handle(req, res, async () => {
          const user = await authenticate(req);
          await authorize(req, user);
          return route(req, res, o.enableDebuggingHandlers, 'https');
        }));
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        socket.on('error', () => socket.destroy());
        tunnels.add(socket);
        socket.once('close', () => tunnels.delete(socket));
        Promise.resolve()
          .then(async () => {
            const user = await authenticate(req);
            await authorize(req, user);
            await upgradeRoute(req, socket, head, o.enableDebuggingHandlers);
          })
          .catch((e) => refuseUpgrade(socket, e instanceof HttpError ? e.code : 500, (e as Error).message));
      });
      ports.main = await listen(server, o.port, o.address);
      if (requested) {
        serving = await servingCertificate({
          names: o.names, nodeName: o.nodeName, certDir: o.certDir, dnsNames: [o.nodeName], ips: [...new Set([hostIP(o.nodeIps), ...o.nodeIps])],
        }, client, (pair) => server.setSecureContext({ cert: pair.certPem, key: pair.keyPem, ca }), log);
      }
    }
  } catch (e) {
    serving?.stop();
    for (const s of servers) s.close();
    throw new Error(`agent server: ${(e as Error).message}`);
  }

  // bounded: every distinct token a client sends makes an entry
  const tokenCache = ttlCache<{ user?: User }>();
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
      let user = cached?.user;
      if (!cached) {
        const group = o.names.group('authentication');
        // a token that cannot be checked (the API server unreachable) is refused, as the reference's node agent does
        const review = await client.request({ method: 'POST', path: `/apis/${group}/v1/tokenreviews`, body: { apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token } } })
          .catch(() => { throw new HttpError(401, 'Unauthorized'); });
        user = review.status?.authenticated ? { name: review.status.user.username, groups: [...(review.status.user.groups ?? [])] } : undefined;
        tokenCache.set(token, { user }, o.values['authentication-token-webhook-cache-ttl'] as number);
      }
      if (!user) throw new HttpError(401, 'Unauthorized');
      return user;
    }
    if (auth) throw new HttpError(401, 'Unauthorized');
    if (o.anonymousAuth) return { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    throw new HttpError(401, 'Unauthorized');
  }

  const decisions = ttlCache<boolean>();
  async function authorize(req: IncomingMessage, user: User) {
    if (o.authorizationMode === 'AlwaysAllow' || !client) return;
    const p = path(req);
    const subresource = p.startsWith('/stats') ? 'stats' : p.startsWith('/metrics') ? 'metrics' : p.startsWith('/logs') ? 'log' : p.startsWith('/spec') ? 'spec' : 'proxy';
    const verb = ({ GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[req.method ?? 'GET'] ?? 'get';
    const key = JSON.stringify([user, verb, subresource]);
    let allowed = decisions.get(key);
    if (allowed === undefined) {
      const group = o.names.group('authorization');
      const review = await client.request({
        method: 'POST', path: `/apis/${group}/v1/subjectaccessreviews`,
        body: { apiVersion: `${group}/v1`, kind: 'SubjectAccessReview', spec: { user: user.name, groups: user.groups, resourceAttributes: { verb, resource: 'nodes', subresource, name: nodes[0]?.nodeName } } },
      });
      allowed = !!review.status?.allowed;
      const ttl = o.values[allowed ? 'authorization-webhook-cache-authorized-ttl' : 'authorization-webhook-cache-unauthorized-ttl'] as number;
      decisions.set(key, allowed, ttl);
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
    // the configuration in force, under the reference's name for it (a debugging handler, as there)
    { path: /^\/configz\/?$/, debugging: true, handle: ({ res }) => json(res, { [o.names.domain === defaultApiDomain ? 'agentconfig' : 'kubeletconfig']: configurationOf(o) }) },
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
    { path: /^\/stats\/summary\/?$/, handle: async ({ res, url }) => text(res, summaryJson(await nodeOf(url).stats.summary()), 'application/json') },
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
      handle: async ({ req, res, url, match }) => {
        const [ns, name, container] = match.slice(1).map(decodedSegment) as [string, string, string];
        const found = podOf(ns, name);
        const instances = found.containers.filter((c) => c.name === container).sort((a, b) => b.attempt - a.attempt);
        const previous = queryFlag(url.searchParams.get('previous'));
        const c = previous ? previousInstance(found.pod, container, instances) : instances[0];
        // a name the pod does not have is a 404; a container of the pod without a log yet says why, with 400
        if (!c && !hasContainer(found.pod, container)) throw new HttpError(404, `container "${container}" not found in pod "${ns}/${name}"`);
        if (!c) throw new HttpError(400, previous ? `previous terminated container "${container}" in pod "${name}" not found` : noLogsYet(found.pod, container));
        const file = join(podLogDirectory(o.rootDir, found.pod), container, `${c.attempt}.log`);
        const running = () => !previous && podOf(ns, name, false)?.containers.find((x) => x.id === c.id)?.state === 'running';
        return streamLog(res, file, logOptions(url), running);
      },
    },
    { path: /^\/exec\/([^/]+)\/([^/]+)\/([^/]+)$/, debugging: true, upgrade: (r) => remoteCommand('exec', r) },
    { path: /^\/attach\/([^/]+)\/([^/]+)\/([^/]+)$/, debugging: true, upgrade: (r) => remoteCommand('attach', r) },
    {
      path: /^\/portForward\/([^/]+)\/([^/]+)$/, debugging: true,
      upgrade: async ({ req, url, match, socket, head }) => {
        const [ns, name] = match.slice(1).map(decodedSegment) as [string, string];
        const found = podOf(ns, name);
        const { runtime } = nodeOfPod(found.pod);
        const sandboxId = found.sandbox?.id ?? found.containers[0]?.sandboxId;
        if (!sandboxId) throw new HttpError(404, `pod ${ns}/${name} has no sandbox`);
        const ports = url.searchParams.getAll('ports').flatMap((p) => p.split(',')).map(Number);
        if (runtime.streamUrl) return passTo(await runtime.streamUrl({ kind: 'portforward', sandboxId, ports }), req, socket, head);
        if (!runtime.openPort) throw new HttpError(501, 'this runtime cannot forward ports');
        const open = (port: number) => runtime.openPort!(sandboxId, port);
        if (String(req.headers.upgrade ?? '').toLowerCase() === 'websocket') return serveWebSocketPortForward({ req, socket, head }, ports, name, open);
        return servePortForward({ req, socket, head }, name, open);
      },
    },
    {
      // runs a command and answers with its output (the reference's /run)
      path: /^\/run\/([^/]+)\/([^/]+)\/([^/]+)$/, debugging: true,
      handle: async ({ req, res, url, match }) => {
        if (req.method !== 'POST') throw new HttpError(405, 'use POST');
        const [ns, name, container] = match.slice(1).map(decodedSegment) as [string, string, string];
        const found = podOf(ns, name);
        const c = runningContainer(found, container);
        const command = url.searchParams.getAll('cmd').flatMap((x) => x.split(' ')).filter(Boolean);
        if (!command.length) throw new HttpError(400, 'cmd is required');
        const r = await nodeOfPod(found.pod).runtime.execSync(c.id, command, 60);
        return text(res, r.stdout + r.stderr);
      },
    },
    {
      // the node's own log files (/var/log), listed or served
      path: /^\/logs(\/.*)?$/, debugging: true,
      handle: async ({ res, match }) => {
        const rel = normalize(decodedSegment(match[1] ?? '/'));
        if (rel.split('/').includes('..')) throw new HttpError(400, 'bad path');
        const p = join(nodeLogDir, rel);
        const st = await stat(p).catch(() => undefined);
        if (!st) throw new HttpError(404, 'not found');
        if (st.isDirectory()) {
          const entries = await readdir(p, { withFileTypes: true });
          return text(res, entries.map((e) => `${e.name}${e.isDirectory() ? '/' : ''}\n`).join(''));
        }
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': st.size });
        // a file that fails to read (gone, unreadable) cuts the answer rather than going unheard
        createReadStream(p).on('error', () => res.destroy()).pipe(res);
      },
    },
  ];

  /** a pod the agent runs, by namespace and name */
  function podOf(ns: string, name: string): ReturnType<typeof allPods>[number];
  function podOf(ns: string, name: string, must: false): ReturnType<typeof allPods>[number] | undefined;
  function podOf(ns: string, name: string, must = true) {
    const found = allPods().find((x) => x.pod.metadata.namespace === ns && x.pod.metadata.name === name);
    if (!found && must) throw new HttpError(404, `pod ${ns}/${name} not found`);
    return found;
  }
  const nodeOfPod = (pod: { metadata: { uid?: string } }): NodeAgent => nodes.find((n) => n.workers.pods().some((x) => x.pod.metadata.uid === pod.metadata.uid)) ?? nodes[0]!;
  const runningContainer = (found: ReturnType<typeof allPods>[number], container: string) => {
    const c = found.containers.filter((x) => x.name === container).sort((a, b) => b.attempt - a.attempt)[0];
    // as the kubelet, which looks among running containers only (its words carry no colon: kubectl reads a refused
    // upgrade's text as YAML, and a colon made it an empty Status)
    if (!c || c.state !== 'running') throw new HttpError(404, `container not found ("${container}")`);
    return c;
  };

  /** exec and attach: through the runtime's streaming server, or served here from the runtime's calls */
  async function remoteCommand(kind: 'exec' | 'attach', { req, url, match, socket, head }: { req: IncomingMessage; url: URL; match: RegExpExecArray; socket: Duplex; head: Buffer }) {
    const [ns, name, container] = match.slice(1).map(decodedSegment) as [string, string, string];
    const found = podOf(ns, name);
    const c = runningContainer(found, container);
    const { runtime } = nodeOfPod(found.pod);
    const flags = streamFlags(url.searchParams);
    const command = url.searchParams.getAll('command');
    if (kind === 'exec' && !command.length) throw new HttpError(400, 'you must specify at least 1 command');
    if (runtime.streamUrl) {
      const r = kind === 'exec' ? { kind, containerId: c.id, command, flags } as const : { kind, containerId: c.id, flags } as const;
      return passTo(await runtime.streamUrl(r), req, socket, head);
    }
    const serve = kind === 'exec' ? runtime.execStream && ((io: CommandIO) => runtime.execStream!(c.id, command, io)) : runtime.attachStream && ((io: CommandIO) => runtime.attachStream!(c.id, io));
    if (!serve) throw new HttpError(501, `this runtime cannot ${kind}`);
    if (String(req.headers.upgrade ?? '').toLowerCase() === 'websocket') return serveWebSocketCommand({ req, socket, head }, flags, command, serve);
    return serveRemoteCommand({ req, socket, head }, flags, command, serve);
  }

  /** passes an upgrade on to the runtime's streaming server, and its refusal back */
  async function passTo(streamUrl: string, req: IncomingMessage, socket: Duplex, head: Buffer) {
    const headers = forwardedHeaders(req.headers, (n) => n === 'authorization');
    const outcome = await forwardUpgrade({ url: new URL(streamUrl) }, req.method ?? 'GET', headers, String(req.headers.upgrade ?? ''), { socket, head });
    if (outcome.upgraded) return;
    let body = '';
    for await (const chunk of outcome.response) if ((body += chunk).length > 65536) break;
    refuseUpgrade(socket, outcome.response.statusCode ?? 500, body.trim() || 'the runtime refused the stream');
  }

  async function upgradeRoute(req: IncomingMessage, socket: Duplex, head: Buffer, debugging: boolean) {
    const url = requestUrl(req);
    for (const r of routes) {
      const match = r.path.exec(url.pathname);
      if (!match || (r.debugging && !debugging)) continue;
      if (!r.upgrade) throw new HttpError(400, `${url.pathname} does not upgrade connections`);
      metrics?.request(req.method ?? 'GET', r.path.source, 'https');
      return r.upgrade({ req, url, match, socket, head });
    }
    throw new HttpError(404, 'not found');
  }

  async function route(req: IncomingMessage, res: ServerResponse, debugging: boolean, serverType: string) {
    const url = requestUrl(req);
    for (const r of routes) {
      const match = r.path.exec(url.pathname);
      if (!match || (r.debugging && !debugging)) continue;
      if (!r.handle) throw new HttpError(400, 'Upgrade request required');
      metrics?.request(req.method ?? 'GET', r.path.source, serverType);
      return r.handle({ req, res, url, match });
    }
    throw new HttpError(404, 'not found');
  }

  return {
    ports,
    async close() {
      serving?.stop();
      for (const t of tunnels) t.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => { s.close(() => r()); s.closeAllConnections?.(); })));
    },
  };
}

/** the request's URL; a request target that is no URL is the client's error */
function requestUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://agent');
  } catch {
    throw new HttpError(400, `invalid request target: ${req.url}`);
  }
}

/** a path segment's text; a malformed percent-escape is the client's error */
function decodedSegment(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? '');
  } catch {
    throw new HttpError(400, `invalid percent-encoding in path segment ${segment}`);
  }
}

function path(req: IncomingMessage): string {
  return requestUrl(req).pathname;
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
const selfSignedOrGiven = (o: AgentOptions) => servingPair({
  certFile: o.tlsCertFile, keyFile: o.tlsPrivateKeyFile, certDir: o.certDir, name: 'agent', dnsNames: [o.nodeName, 'localhost'], ips: ['127.0.0.1'],
});

const hasContainer = (pod: AgentPod, container: string) =>
  [...pod.spec.containers, ...(pod.spec.initContainers ?? []), ...(pod.spec.ephemeralContainers ?? [])].some((c) => c.name === container);

const statusOf = (pod: AgentPod, container: string) => {
  const st = pod.status;
  return [...(st?.containerStatuses ?? []), ...(st?.initContainerStatuses ?? []), ...(st?.ephemeralContainerStatuses ?? [])].find((s) => s.name === container);
};

/** the instance whose log `previous` reads: the one the pod's status names as the container's last termination, as the
 *  reference reads it, so in a crash loop the instance that just ended (the same as without `previous`), not the one
 *  before it; none when the status names none (the container never restarted) */
export function previousInstance(pod: AgentPod, container: string, instances: ContainerInfo[]): ContainerInfo | undefined {
  const status = statusOf(pod, container);
  if (!status) return instances[1];
  const id = status.lastState?.terminated?.containerID;
  return id ? instances.find((c) => id.endsWith(`://${c.id}`)) : undefined;
}

/** why a container that never ran has no log, in the reference's words (its reason while it waits to start) */
export function noLogsYet(pod: AgentPod, container: string): string {
  const status = statusOf(pod, container);
  const who = `container "${container}" in pod "${pod.metadata.name}"`;
  if (!status) return `${who} is not available`;
  const reason = status.state?.waiting?.reason;
  if (reason === undefined) return `${who} is waiting to start - no logs yet`;
  if (reason === 'ErrImagePull') return `${who} is waiting to start: image can't be pulled`;
  if (reason === 'ImagePullBackOff') return `${who} is waiting to start: trying and failing to pull image`;
  return `${who} is waiting to start: ${reason}`;
}
