// An HTTPS AdmissionReview server on loopback for tests: each path answers with its handler's response (uid and
// envelope added), and every review it was sent is kept. It speaks HTTP/1.1, or HTTP/2 (and HTTP/1.1) when asked.
import { createServer } from 'node:https';
import { createSecureServer, type ServerHttp2Session } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ensurePki } from '../../src/pki/pki.js';
import type { reviewRequest } from '../../src/admission/webhook/call.js';

/** what a webhook was sent: the review's request, the query of the call, the review's apiVersion and the HTTP version,
 *  and the caller's credentials (its Authorization header, the common name of its client certificate) */
export type Received = ReturnType<typeof reviewRequest> & { query: string; apiVersion: string; httpVersion: string; authorization?: string; clientCommonName?: string };
/** a handler answers with a review's response, 'hang' (never answers), or an HTTP failure (its status and body) */
export type HttpFailure = { httpStatus: number; body?: string };
export type Handler = (request: Received) => Record<string, unknown> | 'hang' | HttpFailure | Promise<Record<string, unknown> | 'hang' | HttpFailure>;

export interface WebhookServer {
  url: string; caBundle: string; calls: Map<string, Received[]>; handle: Map<string, Handler>;
  /** TLS connections accepted so far */
  connections(): number;
  close(): Promise<void>;
}

/** an HTTPS AdmissionReview server: each path answers with its handler's response (uid and envelope added); its
 *  certificate names loopback and `hosts` (a Service's DNS name, say) */
export async function startWebhookServer(options: { http2?: boolean; hosts?: string[] } = {}): Promise<WebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-pki-'));
  const pki = await ensurePki(dir, { hosts: ['127.0.0.1', ...(options.hosts ?? [])] });
  rmSync(dir, { recursive: true, force: true });
  const calls = new Map<string, Received[]>();
  const handle = new Map<string, Handler>();
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url!, 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const clientCommonName = (req.socket as TLSSocket).getPeerCertificate?.()?.subject?.CN;
      calls.set(path, [...(calls.get(path) ?? []), { ...review.request, query: new URL(req.url!, 'https://x').search, apiVersion: review.apiVersion,
        httpVersion: req.httpVersion, authorization: req.headers.authorization, ...(clientCommonName ? { clientCommonName: String(clientCommonName) } : {}) }]);
      const answer = await (handle.get(path) ?? (() => ({ allowed: true })))(review.request);
      if (answer === 'hang') return;   // never answers: the caller's timeout decides
      if ('httpStatus' in answer && typeof answer.httpStatus === 'number') { res.writeHead(answer.httpStatus); res.end(String(answer.body ?? '')); return; }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer } }));
    });
  };
  // a client certificate is asked for, not required: it is what the caller presents, recorded with each call
  const tls = { cert: pki.serverCertPem, key: pki.serverKeyPem, requestCert: true, rejectUnauthorized: false };
  const server = options.http2
    ? createSecureServer({ ...tls, allowHTTP1: true }, serve as unknown as Parameters<typeof createSecureServer>[1])
    : createServer(tls, serve);
  // HTTP/2 sessions the server holds, ended at close (an HTTP/2 server has no closeAllConnections)
  const sessions = new Set<ServerHttp2Session>();
  let connections = 0;
  server.on('secureConnection', () => { connections++; });
  server.on('session', (session: ServerHttp2Session) => { sessions.add(session); session.on('close', () => sessions.delete(session)); });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    calls, handle, connections: () => connections,
    close: () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      else for (const session of sessions) session.destroy();
      return new Promise(r => server.close(() => r()));
    },
  };
}

