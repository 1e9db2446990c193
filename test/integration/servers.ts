// Runs a block of integration tests once per storage backend (memory, sqlite, etcd): one server per backend
// per file, one etcd per file shared by its servers under distinct key prefixes.
import { after, before, describe } from 'node:test';
import { startTestServer, type TestServer, type TestServerOptions } from '../../src/testing.js';
import { startEtcd, type EtcdServer } from '../support/etcd.js';
import { createClient, type Client } from './client.js';

export type Backend = 'memory' | 'sqlite' | 'etcd';
export const backends: Backend[] = ['memory', 'sqlite', 'etcd'];

export interface Harness {
  backend: Backend;
  /** the server of the running block */
  server(): TestServer;
  client(): Client;
  /** a fresh namespace for one test */
  namespace(prefix?: string): Promise<string>;
}

let etcd: Promise<EtcdServer> | undefined;
let etcdUsers = 0;
let prefixCount = 0;

/** a server on this backend; etcd ones share one etcd per file */
export async function serverOn(backend: Backend, given: Omit<TestServerOptions, 'storage'> = {}): Promise<{ server: TestServer; close(): Promise<void> }> {
  // these suites count what fresh namespaces hold: no root-CA ConfigMap in them (test/integration/endpoints.test.ts has it)
  const opts = { ...given, flags: ['--controllers=*,-root-ca-cert-publisher', ...(given.flags ?? [])] };
  if (backend !== 'etcd') {
    const server = await startTestServer({ ...opts, storage: backend });
    return { server, close: () => server.close() };
  }
  etcd ??= startEtcd();
  etcdUsers++;
  const e = await etcd;
  const server = await startTestServer({ ...opts, storage: 'etcd', etcdServers: [e.endpoint], etcdPrefix: `/it-${process.pid}-${++prefixCount}` });
  return {
    server,
    async close() {
      await server.close();
      if (--etcdUsers === 0) { const stopping = etcd; etcd = undefined; await (await stopping!).stop(); }
    },
  };
}

let nsCount = 0;

export function eachBackend(title: string, body: (h: Harness) => void, opts: Omit<TestServerOptions, 'storage'> = {}) {
  for (const backend of backends) {
    describe(`${title} [${backend}]`, () => {
      let running: { server: TestServer; close(): Promise<void> } | undefined;
      let client: Client | undefined;
      before(async () => {
        running = await serverOn(backend, opts);
        client = createClient(running.server);
      });
      after(async () => {
        client?.close();
        await running?.close();
      });
      const h: Harness = {
        backend,
        server: () => running!.server,
        client: () => client!,
        async namespace(prefix = 'it') {
          const name = `${prefix}-${process.pid % 10000}-${++nsCount}`;
          const r = await client!.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
          if (r.status !== 201) throw new Error(`creating namespace ${name}: ${r.status} ${r.body}`);
          return name;
        },
      };
      body(h);
    });
  }
}

/** a ConfigMap body */
export const configMap = (name: string, data: Record<string, string> = {}, labels?: Record<string, string>) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data });

export const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));
