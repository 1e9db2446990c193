// An HTTPS AdmissionReview server on loopback for tests: each path answers with its handler's response (uid and
// envelope added), and every review it was sent is kept.
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ensurePki } from '../../src/pki/pki.js';
import type { reviewRequest } from '../../src/admission/webhook/call.js';

/** what a webhook was sent: the review's request, the query of the call and the review's apiVersion */
export type Received = ReturnType<typeof reviewRequest> & { query: string; apiVersion: string };
export type Handler = (request: Received) => Record<string, unknown> | 'hang' | Promise<Record<string, unknown> | 'hang'>;

export interface WebhookServer { url: string; caBundle: string; calls: Map<string, Received[]>; handle: Map<string, Handler>; close(): Promise<void> }

/** an HTTPS AdmissionReview server: each path answers with its handler's response (uid and envelope added) */
export async function startWebhookServer(): Promise<WebhookServer> {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-pki-'));
  const pki = await ensurePki(dir, { hosts: ['127.0.0.1'] });
  rmSync(dir, { recursive: true, force: true });
  const calls = new Map<string, Received[]>();
  const handle = new Map<string, Handler>();
  const server: Server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', c => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url!, 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      calls.set(path, [...(calls.get(path) ?? []), { ...review.request, query: new URL(req.url!, 'https://x').search, apiVersion: review.apiVersion }]);
      const answer = await (handle.get(path) ?? (() => ({ allowed: true })))(review.request);
      if (answer === 'hang') return;   // never answers: the caller's timeout decides
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer } }));
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    calls, handle,
    close: () => { server.closeAllConnections(); return new Promise(r => server.close(() => r())); },
  };
}

