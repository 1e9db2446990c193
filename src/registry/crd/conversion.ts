// Conversion of custom objects between the versions of their CRD. Strategy None changes apiVersion only; strategy
// Webhook sends the objects that need it, as one ConversionReview, to the CRD's webhook over HTTPS and checks what
// comes back: one object per object sent, each at the desired version and the same object (name, namespace, uid),
// metadata other than labels (which must be valid) and annotations kept as it was. A webhook named by service reference is called at an endpoint of the Service, its serving
// certificate checked against the Service's DNS name.
import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import type { ApiObject } from '../../api/meta.js';
import type { CustomResourceConversion } from '../../api/types/apiextensions-v1.js';
import { internalError } from '../../api/status.js';
import { serviceTarget, serviceUrl, type ServiceResolver } from '../../api/apiservices.js';
import { boundedChunks, maxAnswerBytes } from '../../util/bounded-body.js';
import { labels as labelCauses } from '../validation/fields.js';
import { maxNestingDepth, valueBeyond } from '../../util/value-bounds.js';
import { httpFailure } from '../../util/http-failure.js';

/** converts objects to the given apiVersion (`<group>/<version>`) */
export type Convert = (objects: ApiObject[], toApiVersion: string) => Promise<ApiObject[]>;

export interface ConverterOptions {
  /** the custom resource's group and kind */
  group: string;
  kind: string;
  /** the group of ConversionReview (the API extensions group) */
  reviewGroup: string;
  /** prunes and defaults a converted object by the schema of the version it was converted to */
  normalize(obj: ApiObject, version: string): void;
  /** where a webhook named by service reference is reached */
  resolveService?: ServiceResolver;
  timeoutMs?: number;
}

/** what a conversion webhook answers: checked field by field, since it is the webhook's to get right */
interface ConversionReply {
  apiVersion?: unknown;
  kind?: unknown;
  response?: { uid?: unknown; result?: { status?: unknown; message?: string }; convertedObjects?: unknown };
}

/** the reference's timeout for conversion webhook calls */
const defaultTimeoutMs = 30_000;

/** the converter of a CRD's conversion settings */
export function converterFor(conversion: CustomResourceConversion | undefined, opts: ConverterOptions): Convert {
  const { group, kind } = opts;
  if (conversion?.strategy !== 'Webhook') {
    // the object is then read by the schema of the version it now is, as after a webhook's conversion: fields that
    // version does not know are pruned (written at a version that keeps them, they are not stored at one that does
    // not) and its defaults are applied
    return async (objects, desired) => objects.map(o => {
      if (o.apiVersion === desired) return o;
      const converted = { ...structuredClone(o), apiVersion: desired };
      opts.normalize(converted, desired.slice(group.length + 1));
      return converted;
    });
  }
  const webhook = conversion.webhook;
  const client = webhook?.clientConfig ?? {};
  const reviewVersion = (webhook?.conversionReviewVersions ?? []).includes('v1') ? 'v1' : 'v1beta1';
  const reviewApiVersion = `${opts.reviewGroup}/${reviewVersion}`;

  return async (objects, desired) => {
    const toVersion = desired.slice(group.length + 1);
    const pending = objects.flatMap((o, i) => (o.apiVersion === desired ? [] : [i]));
    if (!pending.length) return objects;
    const failed = (message: string) => internalError(`conversion webhook for ${objects[pending[0]].apiVersion}, Kind=${kind} failed: ${message}`);
    const service = client.url ? undefined : client.service;
    // a Service's URL is shown with its DNS name, and called at one of its endpoints
    const shown = service ? serviceUrl(service) : client.url ?? '';
    let url = shown, servername: string | undefined;
    if (service) {
      const to = await serviceTarget(service, opts.resolveService);
      if (!to.ok) throw failed(`Post "${shown}": ${to.message}`);
      url = to.url.toString(); servername = to.servername;
    }
    const uid = randomUUID();
    const review = { apiVersion: reviewApiVersion, kind: 'ConversionReview', request: { uid, desiredAPIVersion: desired, objects: pending.map(i => objects[i]) } };
    let reply: ConversionReply | undefined;
    try {
      reply = await post(url, client.caBundle, review, opts.timeoutMs ?? defaultTimeoutMs, servername) as ConversionReply | undefined;
    } catch (e) {
      // the webhook's own failure is told as it is; one to reach it names the call
      throw failed(e instanceof HttpStatusError ? e.message : `Post "${shown}": ${(e as Error).message}`);
    }
    if (reviewVersion === 'v1' && (reply?.apiVersion !== reviewApiVersion || reply?.kind !== 'ConversionReview'))
      throw failed(`expected webhook response of ${reviewApiVersion}, Kind=ConversionReview, got ${reply?.apiVersion}, Kind=${reply?.kind}`);
    const response = reply?.response;
    if (!response || typeof response !== 'object') throw failed('no response provided');
    if (response.uid !== uid) throw failed(`expected response uid "${uid}", got "${String(response.uid)}"`);
    if (response.result?.status !== 'Success') throw failed(response.result?.message || 'the webhook did not report success');
    const converted: unknown[] = Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
    if (converted.length !== pending.length) throw failed(`expected ${pending.length} converted objects, got ${converted.length}`);

    const out = objects.slice();
    converted.forEach((item, n) => {
      const original = objects[pending[n]];
      if (!item || typeof item !== 'object' || Array.isArray(item)) throw failed(`invalid converted object at index ${n}: not an object`);
      const c = item as Partial<ApiObject>;
      if (c.apiVersion !== desired) throw failed(`invalid converted object at index ${n}: invalid apiVersion "${c.apiVersion}", expected "${desired}"`);
      if (c.kind !== original.kind) throw failed(`invalid converted object at index ${n}: invalid kind "${c.kind}", expected "${original.kind}"`);
      const labels = stringMap(c.metadata?.labels), annotations = stringMap(c.metadata?.annotations);
      if (labels === null || annotations === null) throw failed(`invalid converted object at index ${n}: labels and annotations must map strings to strings`);
      // held to a request body's bound: stored or served, an object nested past it fails every read of its resource
      if (valueBeyond(c, Infinity, maxNestingDepth)) throw failed(`invalid converted object at index ${n}: nested more than ${maxNestingDepth} levels deep`);
      const changed = changedIdentity(original, c);
      if (changed) throw failed(`invalid converted object at index ${n}: ${changed}`);
      const badLabels = labelsChanged(original.metadata.labels, labels) ? labelCauses('metadata.labels', labels) : [];
      if (badLabels.length) throw failed(`invalid converted object at index ${n}: ${badLabels.map(b => `${b.field}: ${b.message}`).join(', ')}`);
      // the webhook may change labels and annotations; the rest of metadata stays the server's
      const metadata = { ...original.metadata };
      if (labels) metadata.labels = labels; else delete metadata.labels;
      if (annotations) metadata.annotations = annotations; else delete metadata.annotations;
      const obj: ApiObject = { ...c, metadata };
      opts.normalize(obj, toVersion);
      out[pending[n]] = obj;
    });
    return out;
  };
}

/** what makes the converted object another object than the one sent (its name, namespace or uid), as the reference says it */
function changedIdentity(original: ApiObject, converted: Partial<ApiObject>): string | undefined {
  for (const [field, shown] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    const was = original.metadata[field] ?? '', now = converted.metadata?.[field] ?? '';
    if (was !== now) return `must have the same ${shown}: ${was} != ${now}`;
  }
  return undefined;
}

const labelsChanged = (was: Record<string, string> | undefined, now: Record<string, string> | undefined) =>
  Object.keys(was ?? {}).length !== Object.keys(now ?? {}).length || Object.entries(now ?? {}).some(([k, v]) => was?.[k] !== v);

/** the webhook answered, with another status than 200 */
class HttpStatusError extends Error {}

/** a string map, undefined when absent, null when not a map of strings */
function stringMap(v: unknown): Record<string, string> | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) return null;
  return Object.values(v).every(x => typeof x === 'string') ? (v as Record<string, string>) : null;
}

/**
 * POSTs a JSON document over HTTPS, trusting the CA bundle when one is given (the system's roots otherwise).
 * A kept-alive connection the webhook has closed meanwhile is retried once on a new one.
 */
function post(url: string, caBundle: string | undefined, body: unknown, timeoutMs: number, servername?: string, retry = true): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = request(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': data.length },
      ...(caBundle ? { ca: Buffer.from(caBundle, 'base64').toString('utf8') } : {}),
      ...(servername ? { servername } : {}),
      timeout: timeoutMs,
    }, res => {
      // a list's objects are converted in one review: its answer may be larger than a single object's
      const chunks = boundedChunks(res, 4 * maxAnswerBytes);
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new HttpStatusError(httpFailure(res.statusCode ?? 0, text)));
        try { resolve(JSON.parse(text)); } catch { reject(new Error('the response is not JSON')); }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no response within ${timeoutMs / 1000}s`)));
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (retry && req.reusedSocket && e.code === 'ECONNRESET') resolve(post(url, caBundle, body, timeoutMs, servername, false));
      else reject(e);
    });
    req.end(data);
  });
}
