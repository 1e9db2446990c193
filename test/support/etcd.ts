// Runs a private, single-member etcd (Debian's `etcd` binary) for tests and benchmarks:
// loopback ports picked free, a temporary data directory, stopped by its process id.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export interface EtcdServer {
  /** the client URL, e.g. http://127.0.0.1:40123 */
  endpoint: string;
  dataDir: string;
  /** the current server process id (changes on restart) */
  pid: number;
  /** stops the server for good (SIGTERM, then SIGKILL) and removes the data directory */
  stop(): Promise<void>;
  /** SIGKILLs the server at once, keeping the data directory (a crash) */
  kill(): void;
  /** stops the server if it still runs and starts it again on the same data directory and ports */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;
/** big enough for the 5 MiB value test (etcd's default is 1.5 MiB) */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

const running = new Set<ChildProcess>();
// A test that fails before stop() must not leave an etcd behind.
process.once('exit', () => { for (const child of running) child.kill('SIGKILL'); });

/** a member serving clients over TLS: its certificate and key, and the CA that client certificates must chain to */
export interface EtcdTls { certFile: string; keyFile: string; clientCaFile: string; clientCertFile: string; clientKeyFile: string }

/** extraArgs: more etcd flags, such as a small --quota-backend-bytes */
export async function startEtcd(tls?: EtcdTls, extraArgs: readonly string[] = []): Promise<EtcdServer> {
  const dataDir = await mkdtemp(join(tmpdir(), 'etcd-test-'));
  let clientPort = 0;
  let peerPort = 0;
  let child: ChildProcess | undefined;

  const launch = async () => {
    // Ports are picked free but can be taken between the pick and etcd's bind: retry with new ones.
    for (let attempt = 1; ; attempt++) {
      if (!clientPort || attempt > 1) [clientPort, peerPort] = [await freePort(), await freePort()];
      try {
        child = await spawnEtcd(dataDir, clientPort, peerPort, undefined, tls, extraArgs);
        return;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
  };
  const terminate = async () => {
    const current = child;
    child = undefined;
    if (current) await stopProcess(current);
  };

  try {
    await launch();
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const server: EtcdServer = {
    get endpoint() { return `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`; },
    dataDir,
    get pid() { return child?.pid ?? -1; },
    async stop() {
      await terminate();
      await rm(dataDir, { recursive: true, force: true });
    },
    kill() {
      child?.kill('SIGKILL');
    },
    async restart() {
      await terminate();
      // Same ports: clients keep their endpoint across the restart.
      child = await spawnEtcd(dataDir, clientPort, peerPort, undefined, tls, extraArgs);
    },
  };
  return server;
}

export interface EtcdCluster {
  /** every member's client URL */
  endpoints: string[];
  members: EtcdServer[];
  stop(): Promise<void>;
}

/** a cluster of `size` members on loopback, each with its own data directory; members are killed and restarted one by one */
export async function startEtcdCluster(size = 3): Promise<EtcdCluster> {
  const ports = [];
  for (let i = 0; i < size; i++) ports.push({ client: await freePort(), peer: await freePort() });
  const names = ports.map((_, i) => `m${i}`);
  const initialCluster = ports.map((p, i) => `${names[i]}=http://127.0.0.1:${p.peer}`).join(',');
  const dirs = await Promise.all(ports.map(() => mkdtemp(join(tmpdir(), 'etcd-member-'))));
  const children: Array<ChildProcess | undefined> = [];
  // members wait for each other to form the cluster: start them together
  await Promise.all(ports.map(async (p, i) => { children[i] = await spawnEtcd(dirs[i], p.client, p.peer, { name: names[i], initialCluster }); }));
  const members: EtcdServer[] = ports.map((p, i) => ({
    get endpoint() { return `http://127.0.0.1:${p.client}`; },
    dataDir: dirs[i],
    get pid() { return children[i]?.pid ?? -1; },
    async stop() { const c = children[i]; children[i] = undefined; if (c) await stopProcess(c); },
    kill() { children[i]?.kill('SIGKILL'); },
    async restart() {
      const c = children[i]; children[i] = undefined;
      if (c) await stopProcess(c);
      children[i] = await spawnEtcd(dirs[i], p.client, p.peer, { name: names[i], initialCluster, existing: true });
    },
  }));
  return {
    endpoints: members.map(m => m.endpoint),
    members,
    async stop() {
      await Promise.all(members.map(m => m.stop()));
      await Promise.all(dirs.map(d => rm(d, { recursive: true, force: true })));
    },
  };
}

async function spawnEtcd(dataDir: string, clientPort: number, peerPort: number,
  member: { name: string; initialCluster: string; existing?: boolean } | undefined = undefined, tls?: EtcdTls,
  extraArgs: readonly string[] = []): Promise<ChildProcess> {
  const clientUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const name = member?.name ?? 'test';
  const child = spawn('etcd', [
    '--name', name,
    '--data-dir', dataDir,
    '--listen-client-urls', clientUrl,
    '--advertise-client-urls', clientUrl,
    '--listen-peer-urls', peerUrl,
    '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', member?.initialCluster ?? `test=${peerUrl}`,
    '--initial-cluster-state', member?.existing ? 'existing' : 'new',
    '--max-request-bytes', String(MAX_REQUEST_BYTES),
    '--logger', 'zap',
    '--log-level', 'error',
    ...(tls ? ['--cert-file', tls.certFile, '--key-file', tls.keyFile, '--trusted-ca-file', tls.clientCaFile, '--client-cert-auth'] : []),
    ...extraArgs,
  ], {
    // etcd 3.4 refuses to start outside amd64 unless ETCD_UNSUPPORTED_ARCH names the (Go) arch.
    env: process.arch === 'x64' ? process.env : { ...process.env, ETCD_UNSUPPORTED_ARCH: goArch() },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000); });
  const exited = new Promise<string>(resolve => {
    child.once('error', err => resolve(`could not run etcd: ${err.message} (is etcd-server installed?)`));
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(`etcd exited (${signal ?? code}) before it was ready: ${stderr.trim()}`);
    });
  });

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let failure: string | undefined;
  exited.then(reason => { failure = reason; });
  while (Date.now() < deadline) {
    if (failure !== undefined) throw new Error(failure);
    if (await healthy(clientUrl, tls)) return child;
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  await stopProcess(child);
  throw new Error(`etcd did not become ready on ${clientUrl} within ${READY_TIMEOUT_MS} ms: ${stderr.trim()}`);
}

async function healthy(clientUrl: string, tls?: EtcdTls): Promise<boolean> {
  if (tls) {
    // the member's own certificate is self-signed by the test's CA; the client shows one of the same CA
    return new Promise(resolve => {
      const req = request(`${clientUrl}/health`, {
        ca: readFileSync(tls.clientCaFile), cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile), timeout: 1000,
      }, res => {
        let body = '';
        res.setEncoding('utf8').on('data', c => { body += c; }).on('end', () => resolve(res.statusCode === 200 && /"health":\s*"true"/.test(body)));
      });
      req.on('error', () => resolve(false)).on('timeout', () => { req.destroy(); resolve(false); });
      req.end();
    });
  }
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    const body = await res.json() as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise(resolve => {
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => { clearTimeout(force); resolve(); });
    child.kill('SIGTERM');
  });
}


function goArch(): string {
  return ({ ia32: '386', ppc64: 'ppc64le' } as Record<string, string>)[process.arch] ?? process.arch;
}
