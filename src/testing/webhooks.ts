// Admission webhooks served from the test's own process: an HTTPS server on a loopback port with a certificate
// of its own CA, registered with the API server through a Mutating- or ValidatingWebhookConfiguration that points
// at it by URL. A handler sees the AdmissionReview request and answers allowed or not, with a changed object or
// JSON patch operations for mutating hooks.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { ApiObject } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../pki/certificates.js';

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username?: string; uid?: string; groups?: string[] };
  object?: any;
  oldObject?: any;
  dryRun?: boolean;
  options?: unknown;
}

export type JsonPatchOperation = { op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'; path: string; value?: unknown; from?: string };

export interface AdmissionDecision {
  allowed?: boolean;
  /** shown to the client when not allowed */
  message?: string;
  /** HTTP-like code of the refusal (default 403) */
  code?: number;
  /** mutating hooks: the object as it should be stored (turned into a JSON patch) ... */
  object?: ApiObject;
  /** ... or the patch itself */
  patch?: JsonPatchOperation[];
  warnings?: string[];
}

export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  operations: Array<'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*'>;
  scope?: 'Cluster' | 'Namespaced' | '*';
}

export interface WebhookOptions {
  name: string;
  type: 'mutating' | 'validating';
  rules: WebhookRule[];
  handler: (request: AdmissionRequest) => AdmissionDecision | Promise<AdmissionDecision>;
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: unknown;
  objectSelector?: unknown;
  timeoutSeconds?: number;
  sideEffects?: 'None' | 'NoneOnDryRun';
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface RunningWebhook {
  url: string;
  /** the requests the handler saw, oldest first */
  readonly requests: AdmissionRequest[];
  /** removes the configuration and stops the server */
  close(): Promise<void>;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** JSON patch operations that turn `from` into `to` (objects field by field, arrays and scalars whole) */
export function diffToPatch(from: unknown, to: unknown, path = ''): JsonPatchOperation[] {
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (isObject(from) && isObject(to)) {
    const ops: JsonPatchOperation[] = [];
    for (const k of Object.keys(from)) if (!(k in to)) ops.push({ op: 'remove', path: `${path}/${escapePointer(k)}` });
    for (const [k, v] of Object.entries(to)) {
      if (!(k in from)) ops.push({ op: 'add', path: `${path}/${escapePointer(k)}`, value: v });
      else ops.push(...diffToPatch(from[k], v, `${path}/${escapePointer(k)}`));
    }
    return ops;
  }
  return JSON.stringify(from) === JSON.stringify(to) ? [] : [{ op: 'replace', path, value: to }];
}

export async function startWebhook(client: Client, names: Naming, o: WebhookOptions): Promise<RunningWebhook> {
  const ca = createCertificateAuthority(`webhook-ca-${randomUUID()}`, 24 * 3600);
  const key = generateKeyPair();
  const cert = issueLeaf(ca, key.publicKey, { commonName: '127.0.0.1', usages: ['digital signature', 'key encipherment', 'server auth'], ttlSeconds: 24 * 3600, ips: ['127.0.0.1'], dnsNames: ['localhost'] });
  const requests: AdmissionRequest[] = [];
  const server: Server = createServer({ cert, key: key.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      let review: any;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('not an AdmissionReview');
        return;
      }
      const request: AdmissionRequest = review.request;
      requests.push(request);
      let response: Record<string, unknown>;
      try {
        const d = await o.handler(request);
        const allowed = d.allowed ?? true;
        const patch = d.patch ?? (d.object ? diffToPatch(request.object, d.object) : undefined);
        response = {
          uid: request.uid, allowed,
          ...(allowed ? {} : { status: { code: d.code ?? 403, message: d.message ?? `denied by the webhook ${o.name}` } }),
          ...(patch?.length && o.type === 'mutating' ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') } : {}),
          ...(d.warnings?.length ? { warnings: d.warnings } : {}),
        };
      } catch (e) {
        response = { uid: request.uid, allowed: false, status: { code: 500, message: `webhook ${o.name} failed: ${(e as Error).message}` } };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/${o.type}/${encodeURIComponent(o.name)}`;
  const group = names.group('admissionregistration');
  const resource = o.type === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  const configs = client.resource({ group, version: 'v1', resource });
  const hookName = o.name.includes('.') ? o.name : `${o.name}.webhooks.test`;
  const created = await configs.create({
    apiVersion: `${group}/v1`, kind: o.type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name: o.name },
    webhooks: [{
      name: hookName,
      clientConfig: { url, caBundle: Buffer.from(ca.certPem).toString('base64') },
      rules: o.rules.map((r) => ({ scope: '*', ...r })),
      admissionReviewVersions: ['v1'],
      sideEffects: o.sideEffects ?? 'None',
      failurePolicy: o.failurePolicy ?? 'Fail',
      timeoutSeconds: o.timeoutSeconds ?? 10,
      ...(o.namespaceSelector ? { namespaceSelector: o.namespaceSelector } : {}),
      ...(o.objectSelector ? { objectSelector: o.objectSelector } : {}),
      ...(o.type === 'mutating' ? { reinvocationPolicy: o.reinvocationPolicy ?? 'Never' } : {}),
    }],
  });
  // the hook takes effect once the server's cache holds the configuration
  await configs.list({ resourceVersion: created.metadata.resourceVersion, resourceVersionMatch: 'NotOlderThan', limit: 1 });
  return {
    url, requests,
    async close() {
      await configs.delete(o.name).catch(() => {});
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
