// A small aggregated API server for the tests: HTTPS with a serving certificate of its own for
// <service>.<namespace>.svc, its own group with one namespaced resource (flunders) it can list, get and watch,
// and authentication as extension servers do it: the front proxy's client certificate must chain to the
// request-header CA the API server publishes, and the user is read from the headers it names.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';

export interface SeenUser { username: string; groups: string[]; proxyName: string }

export interface AggregatedServer {
  port: number;
  caPem: string;
  /** the users of the requests it served, as the front proxy named them */
  seen: SeenUser[];
  /** requests refused because they came without a trusted proxy certificate */
  refused: number;
  stop(): Promise<void>;
  /** listens again on the same port */
  start(): Promise<void>;
  /** sends a watch event to every open watch */
  emit(type: string, name: string): void;
  /** how many watches are open */
  watching(): number;
}

export interface AuthenticationConfig {
  'requestheader-client-ca-file': string;
  'requestheader-allowed-names': string;
  'requestheader-username-headers': string;
  'requestheader-group-headers': string;
}

export async function startAggregatedServer(o: { group: string; version: string; service: string; namespace: string; auth: AuthenticationConfig }): Promise<AggregatedServer> {
  const ca = createCertificateAuthority('aggregated-test-ca', 3600);
  const key = generateKeyPair();
  const certPem = issueLeaf(ca, key.publicKey, {
    commonName: `${o.service}.${o.namespace}.svc`, dnsNames: [`${o.service}.${o.namespace}.svc`], usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 3600,
  });
  const proxyCa = new X509Certificate(o.auth['requestheader-client-ca-file']);
  const allowed = JSON.parse(o.auth['requestheader-allowed-names']) as string[];
  const userHeader = (JSON.parse(o.auth['requestheader-username-headers']) as string[])[0]!.toLowerCase();
  const groupHeader = (JSON.parse(o.auth['requestheader-group-headers']) as string[])[0]!.toLowerCase();
  const gv = `${o.group}/${o.version}`;
  const flunders = ['alpha', 'beta'].map((name, i) => flunder(gv, name, o.namespace, String(i + 1)));
  const watchers = new Set<ServerResponse>();
  const state: AggregatedServer = {
    port: 0, caPem: ca.certPem, seen: [], refused: 0,
    stop: async () => {
      for (const w of watchers) w.destroy();
      watchers.clear();
      await new Promise<void>(r => { server.close(() => r()); server.closeAllConnections(); });
    },
    start: () => new Promise<void>(r => server.listen(state.port, '127.0.0.1', () => r())),
    watching: () => watchers.size,
    emit(type, name) {
      for (const w of watchers) w.write(`${JSON.stringify({ type, object: flunder(gv, name, o.namespace, '10') })}\n`);
    },
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  /** the user the front proxy names, when its certificate is trusted */
  const frontProxyUser = (req: IncomingMessage): SeenUser | undefined => {
    const peer = (req.socket as TLSSocket).getPeerX509Certificate?.();
    const name = peer ? /CN=([^\n,]+)/.exec(peer.subject)?.[1] ?? '' : '';
    const username = req.headers[userHeader];
    if (!peer || !peer.checkIssued(proxyCa) || !peer.verify(proxyCa.publicKey) || (allowed.length && !allowed.includes(name)) || typeof username !== 'string') {
      state.refused++;
      return undefined;
    }
    // each group is a header of its own; Node joins repeated ones with commas
    const groups = ([] as string[]).concat(req.headers[groupHeader] ?? []).flatMap(v => v.split(',').map(g => g.trim()));
    const seen = { username, groups, proxyName: name };
    state.seen.push(seen);
    return seen;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (!frontProxyUser(req)) return send(res, 401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' });
    const url = new URL(req.url ?? '/', 'https://backend');
    const path = url.pathname;
    if (path === `/apis/${gv}`) {
      return send(res, 200, {
        kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv,
        resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'watch'] }],
      });
    }
    if (path === '/openapi/v2') {
      return send(res, 200, {
        swagger: '2.0', info: { title: 'flunders', version: 'v0' },
        paths: { [`/apis/${gv}/namespaces/{namespace}/flunders`]: { get: { description: 'list flunders' } } },
        definitions: { [`com.example.${o.version}.Flunder`]: { description: 'A test object of the aggregated server.', type: 'object' } },
      });
    }
    const m = new RegExp(`^/apis/${gv.replace(/\./g, '\\.')}/namespaces/([^/]+)/flunders(?:/([^/]+))?$`).exec(path);
    if (!m) return send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `no ${path}` });
    if (m[2]) {
      const one = flunders.find(f => f.metadata.name === m[2]);
      return one ? send(res, 200, one) : send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `flunders "${m[2]}" not found` });
    }
    if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      for (const f of flunders) res.write(`${JSON.stringify({ type: 'ADDED', object: f })}\n`);
      return;
    }
    return send(res, 200, { kind: 'FlunderList', apiVersion: gv, metadata: { resourceVersion: '5' }, items: flunders });
  };

  const server: Server = createServer({ key: key.keyPem, cert: certPem, requestCert: true, rejectUnauthorized: false }, handle);
  // a flunder's `echo` subresource upgrades to a protocol that sends back what it reads, after a greeting naming the user
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    const user = frontProxyUser(req);
    if (!user || req.headers.upgrade !== 'echo' || !/\/flunders\/[^/]+\/echo$/.test(new URL(req.url ?? '/', 'https://backend').pathname)) {
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nhello ${user.username}\n`);
    socket.pipe(socket);
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', () => r()));
  state.port = (server.address() as AddressInfo).port;
  return state;
}

const flunder = (apiVersion: string, name: string, namespace: string, resourceVersion: string) => ({
  apiVersion, kind: 'Flunder', metadata: { name, namespace, resourceVersion, uid: `uid-${name}`, creationTimestamp: '2024-01-01T00:00:00Z' }, spec: { reference: name },
});
