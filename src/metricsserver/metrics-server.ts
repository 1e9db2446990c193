// The metrics server: a client of the API that scrapes every node's agent for its resource metrics once per
// resolution, keeps the last two scrapes, and serves the resource metrics API over HTTPS, to be reached through
// the API server's aggregation layer (an APIService for `v1beta1.metrics.<domain>`). It runs inside the API
// server's process or as its own program.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import { startInformer } from '../client/informer.js';
import { delegatedAuth } from './delegated-auth.js';
import { scrapeNode } from './scrape.js';
import { createMetricsStore } from './store.js';
import { metricsApi, type Objects } from './serve.js';

export interface Logger { info(m: string): void; warn(m: string): void; error(m: string): void }

export interface MetricsServerOptions {
  client: Client;
  names: Naming;
  log: Logger;
  /** how often every node is scraped (metrics-server's --metric-resolution) */
  resolutionMs: number;
  /** the address and port to serve on (0: a free port) */
  host: string;
  port: number;
  /** the serving certificate and key */
  certPem: string;
  keyPem: string;
  /** scrapes of different nodes in flight at once */
  concurrency?: number;
}

export interface RunningMetricsServer {
  port: number;
  /** resolves once the informers have synced: from then on it can answer */
  synced: Promise<void>;
  /** resolves once the informers have synced and the first scrape has finished */
  ready: Promise<void>;
  stop(): Promise<void>;
}

type NodeObject = ReturnType<Objects['nodes']> extends Iterable<infer N> ? N : never;
type PodObject = NonNullable<ReturnType<Objects['pod']>>;

export async function startMetricsServer(o: MetricsServerOptions): Promise<RunningMetricsServer> {
  const store = createMetricsStore();
  const onError = (what: string) => (e: unknown) => o.log.warn(`metrics server: ${what}: ${(e as Error).message}`);
  const nodes = startInformer(o.client.resource<NodeObject>({ group: '', version: 'v1', resource: 'nodes' }), () => {}, { onError: onError('watching nodes') });
  const pods = startInformer(o.client.resource<PodObject>({ group: '', version: 'v1', resource: 'pods' }), () => {}, { onError: onError('watching pods') });
  const auth = delegatedAuth(o.client, o.names);
  let scraped = false;
  let stopped = false;
  const failing = new Set<string>();

  async function scrapeAll() {
    const names = [...nodes.store.keys()];
    store.keepOnly(names);
    const queue = [...names];
    const worker = async () => {
      for (let node = queue.shift(); node !== undefined && !stopped; node = queue.shift()) {
        try {
          store.record(node, await scrapeNode(o.client, node, Math.max(1000, o.resolutionMs)));
          if (failing.delete(node)) o.log.info(`metrics server: node ${node} scraped again`);
        } catch (e) {
          // said once per node until it recovers, so a node that is down does not fill the log
          if (!failing.has(node)) onError(`scraping node ${node}`)(e);
          failing.add(node);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 16, names.length) }, worker));
  }

  let timer: NodeJS.Timeout | undefined;
  const loop = async () => {
    if (stopped) return;
    const started = Date.now();
    await scrapeAll().catch(onError('scraping'));
    scraped = true;
    if (!stopped) timer = setTimeout(() => void loop(), Math.max(0, o.resolutionMs - (Date.now() - started)));
  };
  const synced = Promise.all([nodes.synced, pods.synced, auth.synced]).then(() => {});
  const ready = synced.then(loop);

  const handle = metricsApi({
    names: o.names, store, auth, ready: () => scraped,
    objects: { nodes: () => nodes.store.values(), pod: (key) => pods.store.get(key) },
  });
  const server: Server = createServer({ cert: o.certPem, key: o.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => { server.off('error', reject); resolve(); });
  });

  return {
    port: (server.address() as AddressInfo).port,
    synced,
    ready,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      nodes.stop();
      pods.stop();
      auth.stop();
      await new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); });
    },
  };
}
