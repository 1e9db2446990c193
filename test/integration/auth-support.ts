// Helpers for the authentication and authorization tests: identities (tokens, client certificates), a raw
// HTTPS caller that presents them, loopback HTTPS services standing in for OIDC issuers and webhooks, and
// client configurations for kubectl.
import { request } from 'node:https';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, generateKeyPair, signCertificate, type CertificateAuthority } from '../../src/pki/certificates.js';

export interface Identity { token?: string; certPem?: string; keyPem?: string }
export interface Reply { status: number; json: any; body: string; headers: Record<string, unknown> }

export async function issueClientCert(ca: CertificateAuthority, commonName: string, organizations: string[] = [], ttlSeconds = 3600): Promise<Required<Pick<Identity, 'certPem' | 'keyPem'>>> {
  const key = generateKeyPair();
  const certPem = await signCertificate(ca, { publicKey: key.publicKey, commonName, organizations, usages: ['digital signature', 'client auth'], ttlSeconds });
  return { certPem, keyPem: key.keyPem };
}

/** the test server's CA, read from its data folder */
export const serverCa = (server: { caCertPem: string; dataDir: string }): CertificateAuthority =>
  ({ certPem: server.caCertPem, keyPem: readFileSync(join(server.dataDir, 'pki', 'ca.key'), 'utf8') });

export function call(server: { url: string; caCertPem: string }, who: Identity, method: string, path: string,
  opts: { body?: unknown; headers?: Record<string, string | string[]> } = {}): Promise<Reply> {
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      method, ca: server.caCertPem, cert: who.certPem, key: who.keyPem, agent: false,
      headers: {
        accept: 'application/json',
        ...(who.token !== undefined ? { authorization: `Bearer ${who.token}` } : {}),
        ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
        ...opts.headers,
      },
    }, res => {
      const chunks: Buffer[] = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: any;
        try { json = JSON.parse(body); } catch { json = undefined; }
        resolve({ status: res.statusCode ?? 0, json, body, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export interface FakeService { url: string; caCertPem: string; caFile: string; requests: any[]; close(): Promise<void> }

/** an HTTPS service on loopback with a certificate from a CA of its own; handle returns the JSON answer */
export async function fakeHttpsService(dir: string, name: string, handle: (req: IncomingMessage, body: any, res: ServerResponse) => unknown): Promise<FakeService> {
  const ca = createCertificateAuthority(`${name}-ca`, 3600);
  const key = generateKeyPair();
  const cert = await signCertificate(ca, { publicKey: key.publicKey, commonName: name, usages: ['digital signature', 'server auth'], ttlSeconds: 3600, ips: ['127.0.0.1'], dnsNames: ['localhost'] });
  const requests: any[] = [];
  const server: Server = createServer({ key: key.keyPem, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c));
    req.on('end', async () => {
      let body: any;
      try { body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined; } catch { body = undefined; }
      requests.push({ path: req.url, body, headers: req.headers });
      const answer = await handle(req, body, res);
      if (res.headersSent) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', () => r()));
  const caFile = join(dir, `${name}-ca.crt`);
  writeFileSync(caFile, ca.certPem);
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caCertPem: ca.certPem, caFile, requests,
    close: () => new Promise(r => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** a client configuration naming one service (used for the webhooks) */
export function writeWebhookConfig(path: string, service: FakeService, urlPath: string) {
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'hook', cluster: { server: `${service.url}${urlPath}`, 'certificate-authority': service.caFile } }],
    users: [{ name: 'apiserver', user: { token: 'apiserver-secret' } }],
    contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }], 'current-context': 'hook',
  }));
}

/** a kubectl client configuration for one identity */
export function writeKubeconfig(path: string, server: { url: string; caCertPem: string }, who: Identity) {
  const user: Record<string, string> = {};
  if (who.token) user.token = who.token;
  if (who.certPem) user['client-certificate-data'] = Buffer.from(who.certPem).toString('base64');
  if (who.keyPem) user['client-key-data'] = Buffer.from(who.keyPem).toString('base64');
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64') } }],
    users: [{ name: 'u', user }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }], 'current-context': 'c',
  }));
  return path;
}
