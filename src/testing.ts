// The testing entry point: an isolated API server on a random loopback port, ready in milliseconds,
// with its own certificates and admin client configuration in a temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiServerOptions } from './config/apiserver-options.js';
import { startApiServer, type ApiServer } from './main/apiserver.js';
import { defaultApiDomain, type ApiDomain } from './api/naming.js';

export interface TestServerOptions {
  apiDomain?: ApiDomain;
  storage?: 'memory' | 'sqlite' | 'etcd';
  etcdServers?: string[];
  /** etcd: a key prefix of its own, so servers can share one etcd */
  etcdPrefix?: string;
  /** more API server flags, e.g. ['--enable-admission-plugins=...'] */
  flags?: string[];
  /** keep the data folder after close (sqlite restarts) */
  dataDir?: string;
  /** how often idle watches that allow bookmarks get one (the server's default is 60 s) */
  bookmarkIntervalMs?: number;
  /** how long a read waits for a too-new resourceVersion before 504 (the server's default is 3 s) */
  freshnessTimeoutMs?: number;
  /**
   * run the scheduler inside the server, as cluster-apiserver does by default; off here, since a test
   * server usually has no nodes and its pods are the test's to watch (default false)
   */
  scheduler?: boolean;
}

export interface TestServer extends ApiServer {
  /** the admin client-configuration file */
  kubeconfig: string;
  dataDir: string;
}

const quiet = { info() {}, warn() {}, error: (m: string) => process.stderr.write(`${m}\n`) };

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'cluster-test-'));
  const { options } = parseApiServerOptions([
    '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dataDir}`,
    `--storage-backend=${opts.storage ?? 'memory'}`, `--api-domain=${opts.apiDomain ?? defaultApiDomain}`,
    ...(opts.etcdServers ? [`--etcd-servers=${opts.etcdServers.join(',')}`] : []),
    ...(opts.etcdPrefix ? [`--etcd-prefix=${opts.etcdPrefix}`] : []),
    `--scheduler=${opts.scheduler ?? false}`,
    ...(opts.flags ?? []),
  ]);
  const server = await startApiServer(options, quiet, { bookmarkIntervalMs: opts.bookmarkIntervalMs, freshnessTimeoutMs: opts.freshnessTimeoutMs });
  const close = server.close;
  return {
    ...server, kubeconfig: server.adminKubeconfigPath!, dataDir,
    async close() {
      await close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
