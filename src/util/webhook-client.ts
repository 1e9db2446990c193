// A client for remote review services (token review, authorization) described by a client-configuration file:
// `clusters` holds the service (server URL, CA), `users` this server's credentials (certificate, key or token).
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { dirname, resolve } from 'node:path';
import { loadYaml, yaml } from './yaml.js';
import { boundedChunks, settledWithin } from './bounded-body.js';

export interface WebhookClient {
  /** POSTs a JSON body; resolves to the JSON reply, rejects on transport errors and non-2xx answers */
  post(body: unknown): Promise<any>;
}

const named = <T>(list: Array<{ name?: string } & T> | undefined, name: string | undefined, what: string): T => {
  const hit = name ? list?.find(e => e.name === name) : list?.[0];
  if (!hit) throw new Error(`the client configuration has no ${what}${name ? ` named ${name}` : ''}`);
  return hit;
};

export async function webhookClient(configFile: string, timeoutMs = 30_000): Promise<WebhookClient> {
  await loadYaml();
  return openWebhookClient(configFile, timeoutMs);
}

/** the same, for start-up code that must stay synchronous and has loaded the YAML library */
export function openWebhookClient(configFile: string, timeoutMs = 30_000): WebhookClient {
  const config = yaml().parse(readFileSync(configFile, 'utf8')) as any;
  const context = config?.contexts?.find((c: any) => c.name === config['current-context'])?.context;
  const cluster = named<{ cluster: any }>(config?.clusters, context?.cluster, 'cluster').cluster ?? {};
  const user = config?.users?.length ? named<{ user: any }>(config.users, context?.user, 'user').user ?? {} : {};
  const base = dirname(configFile);
  const fileOrData = (file: string | undefined, data: string | undefined) =>
    data ? Buffer.from(data, 'base64').toString('utf8') : file ? readFileSync(resolve(base, file), 'utf8') : undefined;
  if (typeof cluster.server !== 'string' || !cluster.server) throw new Error(`${configFile}: the cluster names no server`);
  let server: URL;
  try { server = new URL(cluster.server); } catch { throw new Error(`${configFile}: the server ${JSON.stringify(cluster.server)} is not a URL`); }
  // plain http is the client's choice, as with the reference's client configurations (audit sinks often listen on it)
  if (server.protocol !== 'https:' && server.protocol !== 'http:') throw new Error(`${configFile}: the webhook server must use https or http, not ${server.protocol}`);
  const request = server.protocol === 'https:' ? httpsRequest : httpRequest;
  const ca = fileOrData(cluster['certificate-authority'], cluster['certificate-authority-data']);
  const cert = fileOrData(user['client-certificate'], user['client-certificate-data']);
  const key = fileOrData(user['client-key'], user['client-key-data']);
  const token = user.token ?? (user.tokenFile ? readFileSync(resolve(base, user.tokenFile), 'utf8').trim() : undefined);
  const auth = token ? { authorization: `Bearer ${token}` } : user.username ? { authorization: `Basic ${Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64')}` } : {};

  return {
    post(body) {
      const payload = Buffer.from(JSON.stringify(body));
      // the whole answer within the time, as the reference's client bounds it: a webhook trickling its answer would
      // otherwise hold the request (or an audit batch) for as long as it likes
      const call = settledWithin<unknown>(timeoutMs, 'the webhook did not answer in time', e => req.destroy(e));
      const req = request(server, {
        method: 'POST', ca, cert, key, rejectUnauthorized: !cluster['insecure-skip-tls-verify'], timeout: timeoutMs,
        servername: cluster['tls-server-name'],
        headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length, ...auth },
      }, r => {
        const chunks = boundedChunks(r);
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((r.statusCode ?? 0) < 200 || (r.statusCode ?? 0) > 299)
            return call.reject(Object.assign(new Error(`the webhook answered ${r.statusCode}: ${text.slice(0, 200)}`), { statusCode: r.statusCode }));
          try { call.resolve(JSON.parse(text)); } catch { call.reject(new Error('the webhook answered with a body that is not JSON')); }
        });
        r.on('error', call.reject);
      });
      req.on('timeout', () => req.destroy(new Error('the webhook did not answer in time')));
      req.on('error', call.reject);
      req.end(payload);
      return call.promise;
    },
  };
}

/** a failure worth another try, as the reference's webhooks judge it: a connection cut, or an answer of 429, 500 or 504 */
export function transientFailure(e: unknown): boolean {
  const status = (e as { statusCode?: number }).statusCode;
  if (status !== undefined) return status === 429 || status === 500 || status === 504;
  const code = (e as { code?: string }).code;
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'ERR_HTTP2_SESSION_ERROR' || (e as Error).message === 'socket hang up';
}

/**
 * A POST tried again on a transient failure, as the reference's authentication and authorization webhooks try: five
 * tries in all, waiting 500 ms, then half as long again each time (and up to a fifth more, at random).
 */
export async function postRetrying(client: WebhookClient, body: unknown, opts: { initialDelayMs?: number; tries?: number } = {}): Promise<any> {
  let wait = opts.initialDelayMs ?? 500;
  const tries = opts.tries ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.post(body);
    } catch (e) {
      if (attempt >= tries || !transientFailure(e)) throw e;
      await new Promise(r => setTimeout(r, wait * (1 + Math.random() * 0.2)).unref());
      wait *= 1.5;
    }
  }
}

/** a time-bounded cache of answers, keyed by a string */
export function ttlCache<T>(now = () => Date.now(), maxEntries = 10_000) {
  const entries = new Map<string, { value: T; until: number }>();
  return {
    get(key: string): T | undefined {
      const e = entries.get(key);
      if (!e) return undefined;
      if (e.until <= now()) { entries.delete(key); return undefined; }
      return e.value;
    },
    set(key: string, value: T, ttlMs: number) {
      if (ttlMs <= 0) return;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, until: now() + ttlMs });
    },
  };
}
