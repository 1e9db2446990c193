// The testing kit: an isolated API server on a random loopback port, ready in milliseconds, with its own
// certificates and admin client configuration in a temporary folder; an admin client; CustomResourceDefinitions
// loaded from files; admission webhooks served in-process; snapshots, restores and forks of its state; and
// faults injected at its storage (watches ended as by compaction, compaction, lost compare-and-swap races,
// latency); simulated nodes that run its pods. The API domain is the naming module's default unless `apiDomain` names the reference's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseApiServerOptions } from './config/apiserver-options.js';
import { startApiServer, type ApiServer } from './main/apiserver.js';
import { defaultApiDomain, type ApiDomain } from './api/naming.js';
import type { ApiObject } from './api/meta.js';
import { createClient, type Client } from './client/rest-client.js';
import { loadClientConfig, writeAdminClientConfig } from './config/client-config.js';
import { generateKeyPair, issueLeaf } from './pki/certificates.js';
import { withFaults, type Faults } from './storage/faults.js';
import { restoreSnapshot, takeSnapshot, type Snapshot } from './storage/snapshot.js';
import { loadCRDs, type LoadCRDsOptions } from './testing/crds.js';
import { startWebhook, type RunningWebhook, type WebhookOptions } from './testing/webhooks.js';
import { startSimulatedNodes, type SimulatedNodes } from './testing/nodes.js';

export type { Snapshot } from './storage/snapshot.js';
export type { Faults } from './storage/faults.js';
export type { LoadCRDsOptions } from './testing/crds.js';
export { diffToPatch } from './testing/webhooks.js';
export { waitFor, type WaitOptions } from './testing/wait.js';
export type { AdmissionRequest, AdmissionDecision, WebhookOptions, WebhookRule, RunningWebhook, JsonPatchOperation } from './testing/webhooks.js';

export interface TestServerOptions {
  /** one of the naming module's domains; the reference's makes unmodified clients work in full (default: the naming module's default) */
  apiDomain?: ApiDomain;
  /** `memory` (the default), `sqlite` or `etcd` */
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
  /** how often the backends of APIServices are checked (the server's default is 30 s) */
  apiServiceCheckIntervalMs?: number;
  /** how long a deleted CRD waits for instances holding finalizers before its condition says so (the server's default is 1 min) */
  crdInstanceWaitMs?: number;
  /** start from this state (a snapshot of another server) */
  from?: Snapshot;
  /**
   * run the scheduler inside the server, as cluster-apiserver does by default; off here unless `nodes` are asked
   * for, since a server without nodes leaves its pods to the test to watch (default: on with nodes, else off)
   */
  scheduler?: boolean;
  /**
   * simulated nodes, run by the node agent's fake mode in this process: pods are scheduled to them and run
   * (nothing is executed), report Ready, complete when a Job's, and serve logs and exec through the API server.
   * They are named `node-<id>-0` to `node-<id>-(N-1)`, `<id>` six hex digits of this server's own (see `nodeNames`);
   * a fork's take its original's names, so the copied nodes and pods bound to them are its own (default 0)
   */
  nodes?: number;
  /**
   * run the metrics server inside the server and register the resource metrics API, as cluster-apiserver does by
   * default; off here, since most tests have no agents to scrape (default false)
   */
  metricsServer?: boolean;
}

/** Faults of the storage under a test server, with writes named by the objects they touch. */
export interface TestFaults extends Omit<Faults, 'conflictOnNextWrite'> {
  /**
   * the next update or delete of the objects named (every object of a resource, of a namespace, or one by name)
   * loses a compare-and-swap race to a real concurrent write: an update with the resourceVersion read before gets
   * 409, while patches and the server's own retries succeed on the next attempt
   */
  conflictOnNextWrite(target: { group?: string; resource: string; namespace?: string; name?: string }, count?: number): void;
}

export interface TestServer extends ApiServer {
  /** the admin client-configuration file */
  kubeconfig: string;
  dataDir: string;
  /** a client of this library with the admin's rights; closed with the server */
  client: Client;
  /** applies the CustomResourceDefinitions of these files and folders and waits until they are served */
  loadCRDs(paths: string | string[], opts?: LoadCRDsOptions): Promise<ApiObject[]>;
  /** serves an admission webhook from this process and registers it */
  webhook(opts: WebhookOptions): Promise<RunningWebhook>;
  /** every stored key at one revision */
  snapshot(): Promise<Snapshot>;
  /** makes the stored state that of the snapshot, through ordinary writes (revisions keep rising) */
  restore(snapshot: Snapshot): Promise<void>;
  /** a new, independent server that starts with this one's state */
  fork(opts?: Omit<TestServerOptions, 'from' | 'apiDomain' | 'storage'>): Promise<TestServer>;
  /** faults injected at the storage under this server */
  faults: TestFaults;
  /** a client-configuration file for another user, with a client certificate this server's CA signed */
  userKubeconfig(user: string, groups?: string[]): Promise<string>;
  /** the names of the simulated nodes of `nodes` (empty without) */
  nodeNames: string[];
}

const quiet = { info() {}, warn() {}, error: (m: string) => process.stderr.write(`${m}\n`) };

// the temporary folders of servers not closed yet: removed when the process exits, so a test that forgets
// close(), a runner's forced exit or a process.exit() leaves none behind
const openTemporaryDirs = new Set<string>();
let removeOnExit = false;

function temporaryDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cluster-test-'));
  openTemporaryDirs.add(dir);
  if (!removeOnExit) {
    removeOnExit = true;
    process.on('exit', () => { for (const d of openTemporaryDirs) rmSync(d, { recursive: true, force: true }); });
  }
  return dir;
}

function removeTemporaryDir(dir: string): void {
  openTemporaryDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

type KitNodes = SimulatedNodes & { rootDir: string; prefix: string };

function nodeCount(opts: TestServerOptions): number {
  const n = opts.nodes ?? 0;
  if (!Number.isInteger(n) || n < 0) throw new Error(`nodes must be a whole number, 0 or more, not ${n}`);
  return n;
}

/**
 * The simulated nodes of `opts.nodes`, their files in the kit's temporary data folder (in a temporary folder of
 * their own when the caller gave the data folder, so that a kept folder holds no agent files)
 */
async function startNodes(opts: TestServerOptions, dataDir: string, kubeconfig: string, server: ApiServer, prefix: string): Promise<KitNodes | undefined> {
  const count = nodeCount(opts);
  if (count === 0) return undefined;
  const rootDir = opts.dataDir ? temporaryDir() : join(dataDir, 'agent');
  mkdirSync(rootDir, { recursive: true });
  try {
    const nodes = await startSimulatedNodes({
      kubeconfig, caCertPem: server.caCertPem, apiDomain: server.names.domain, count, prefix, rootDir,
    });
    return { ...nodes, rootDir, prefix };
  } catch (e) {
    if (opts.dataDir) removeTemporaryDir(rootDir);
    throw e;
  }
}

export function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  return startServer(opts, `node-${randomBytes(3).toString('hex')}`);
}

/** a server whose simulated nodes, if any, are named `<nodePrefix>-<index>` */
async function startServer(opts: TestServerOptions, nodePrefix: string): Promise<TestServer> {
  const dataDir = opts.dataDir ?? temporaryDir();
  try {
    return await startInDataDir(opts, dataDir, nodePrefix);
  } catch (err) {
    // a server that did not start leaves no folder of ours behind
    if (!opts.dataDir) removeTemporaryDir(dataDir);
    throw err;
  }
}

async function startInDataDir(opts: TestServerOptions, dataDir: string, nodePrefix: string): Promise<TestServer> {
  const apiDomain = opts.apiDomain ?? defaultApiDomain;
  const storage = opts.storage ?? 'memory';
  const { options } = parseApiServerOptions([
    '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dataDir}`,
    `--storage-backend=${storage}`, `--api-domain=${apiDomain}`,
    ...(opts.etcdServers ? [`--etcd-servers=${opts.etcdServers.join(',')}`] : []),
    ...(opts.etcdPrefix ? [`--etcd-prefix=${opts.etcdPrefix}`] : []),
    // privileged pods are accepted, as in the reference's test environment (its own default refuses them)
    '--allow-privileged=true',
    `--scheduler=${opts.scheduler ?? nodeCount(opts) > 0}`,
    `--metrics-server=${opts.metricsServer ?? false}`,
    ...(opts.flags ?? []),
  ]);
  let faults!: Faults;
  const server = await startApiServer(options, quiet, {
    bookmarkIntervalMs: opts.bookmarkIntervalMs, freshnessTimeoutMs: opts.freshnessTimeoutMs, apiServiceCheckIntervalMs: opts.apiServiceCheckIntervalMs,
    crdInstanceWaitMs: opts.crdInstanceWaitMs,
    async decorateStorage(kv) {
      if (opts.from) await restoreSnapshot(kv, opts.from);
      const decorated = withFaults(kv);
      faults = decorated.faults;
      return decorated.kv;
    },
  });
  const kubeconfig = server.adminKubeconfigPath!;
  const client = createClient(await loadClientConfig(kubeconfig), { qps: 0 });
  const close = server.close;
  let nodes: KitNodes | undefined;
  try {
    nodes = await startNodes(opts, dataDir, kubeconfig, server, nodePrefix);
  } catch (e) {
    await client.close();
    await close();
    throw e;
  }
  const testFaults: TestFaults = {
    ...faults,
    get injected() { return faults.injected; },
    conflictOnNextWrite(target, count) {
      const info = server.resources.preferred(target.group ?? '', target.resource);
      if (!info) throw new Error(`no resource ${target.resource} in group "${target.group ?? ''}"`);
      const under = info.keyPrefix + (target.namespace ? `${target.namespace}/` : '');
      faults.conflictOnNextWrite((key) => (target.name === undefined ? key.startsWith(under) : key === under + target.name), count);
    },
  };
  const self: TestServer = {
    ...server, kubeconfig, dataDir, client, faults: testFaults, nodeNames: nodes?.nodeNames ?? [],
    loadCRDs: (paths, o) => loadCRDs(client, server.names, Array.isArray(paths) ? paths : [paths], o),
    webhook: (o) => startWebhook(client, server.names, o),
    snapshot: () => takeSnapshot(server.kv),
    async restore(snapshot) {
      await restoreSnapshot(server.kv, snapshot);
      // reads after this see the restored state: wait until the server's cache holds the latest revision
      const revision = await server.kv.currentRevision();
      await client.request({ method: 'GET', path: '/api/v1/namespaces', query: { resourceVersion: String(revision), resourceVersionMatch: 'NotOlderThan', limit: 1 } });
    },
    async fork(o = {}) {
      // the fork's simulated nodes take the names of this server's, so that the nodes and the pods bound to them in
      // the copied state are its own to run, rather than nodes without an agent that the scheduler would still use
      return startServer({ ...opts, ...o, dataDir: undefined, storage: 'memory', from: await self.snapshot() }, nodePrefix);
    },
    async userKubeconfig(user, groups = []) {
      const pki = options.certDir;
      const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
      const key = generateKeyPair();
      const certPem = issueLeaf(ca, key.publicKey, { commonName: user, organizations: groups, usages: ['digital signature', 'key encipherment', 'client auth'], ttlSeconds: 24 * 3600 });
      const path = join(dataDir, `${user.replace(/[^A-Za-z0-9_.-]/g, '_')}.kubeconfig`);
      await writeAdminClientConfig(path, { server: server.url, caPem: server.caCertPem, certPem, keyPem: key.keyPem, clusterName: server.names.vendor, userName: user, contextName: user });
      return path;
    },
    async close() {
      // the nodes go first: they mark themselves NotReady through the server
      await nodes?.stop();
      await client.close();
      await close();
      if (!opts.dataDir) removeTemporaryDir(dataDir);
      if (nodes && opts.dataDir) removeTemporaryDir(nodes.rootDir);
    },
  };
  return self;
}

