// End-to-end helpers: a fresh API server per client group, the real kubectl binaries run against it
// with their own HOME and discovery cache, long-running watches read line by line, and manifests
// written to a temporary folder.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startTestServer, type TestServer } from '../../src/testing.js';
import type { ApiDomain } from '../../src/api/naming.js';

export { apiDomains } from '../../src/api/naming.js';
export const kubectlVersions = ['1.27', '1.32'] as const;
/** Debian's kubectl (package kubernetes-client), for what older clients do: client-side validation against the
 *  OpenAPI v2 document. scripts/ensure-deps.sh unpacks it. */
export const oldKubectlVersion = '1.20' as const;
export type KubectlVersion = (typeof kubectlVersions)[number] | typeof oldKubectlVersion;

/** The versioned binaries: the plain `kubectl` on PATH is a dispatcher that picks one from the server's /version. */
export const kubectlPath = (version: KubectlVersion) =>
  version === oldKubectlVersion ? '/usr/local/lib/kubernetes-client/kubectl' : `/usr/lib/google-cloud-sdk/bin/kubectl.${version}`;

export interface Run { code: number; stdout: string; stderr: string }

export interface KubectlOptions { input?: string; timeoutMs?: number; env?: Record<string, string> }

export interface Manifest { apiVersion: string; kind: string; metadata: Record<string, unknown>; [field: string]: unknown }

export interface KubectlEnv {
  server: TestServer;
  version: KubectlVersion;
  /** runs kubectl; never throws on a non-zero exit */
  run(args: string[], opts?: KubectlOptions): Promise<Run>;
  /** runs kubectl and fails unless it exits 0; returns stdout */
  ok(args: string[], opts?: KubectlOptions): Promise<string>;
  /** `kubectl <args> -o json`, parsed */
  json<T = any>(args: string[]): Promise<T>;
  /** writes objects as a multi-document YAML file; returns its path */
  manifest(name: string, objects: Manifest[]): string;
  /** starts a long-running kubectl (e.g. `get -w`) */
  watch(args: string[]): Watch;
  close(): Promise<void>;
}

// a hung command is killed; a slow one on a busy machine is not
const commandTimeoutMs = 180_000;

/** kubectl against a fresh server, or against the given one (which the caller then closes) */
export async function startKubectlEnv(version: KubectlVersion, apiDomain: ApiDomain, existing?: TestServer): Promise<KubectlEnv> {
  if (!existsSync(kubectlPath(version))) throw new Error(`kubectl ${version} is missing at ${kubectlPath(version)}: run scripts/ensure-deps.sh`);
  return startCommandEnv([kubectlPath(version)], version, existing ?? await startTestServer({ apiDomain }), (home) => ['--cache-dir', join(home, 'cache')], !existing);
}

/** The bundled clusterctl, run as users run it. */
export const clusterctlPath = new URL('../../bin/clusterctl.js', import.meta.url).pathname;

/** clusterctl against a fresh server of the domain, or against the given one (which the caller then closes). */
export async function startClusterctlEnv(apiDomain: ApiDomain, existing?: TestServer): Promise<KubectlEnv> {
  return startCommandEnv([process.execPath, clusterctlPath], 'clusterctl', existing ?? await startTestServer({ apiDomain }), () => [], !existing);
}

/** A command-line client with its own HOME against one server; `extra` adds flags that need the HOME. */
export async function startCommandEnv(command: string[], label: string, server: TestServer, extra: (home: string) => string[],
  ownsServer: boolean): Promise<KubectlEnv> {
  const home = mkdtempSync(join(tmpdir(), `e2e-${label}-`));
  const watches = new Set<Watch>();
  // Own HOME and cache: discovery cached for one server must never answer for another.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: home };
  const base = ['--kubeconfig', server.kubeconfig, ...extra(home)];
  const [file, ...prefix] = command;

  const run = (args: string[], opts: KubectlOptions = {}) => new Promise<Run>((resolve) => {
    const child = execFile(file!, [...prefix, ...base, ...args],
      { env: { ...env, ...opts.env }, timeout: opts.timeoutMs ?? commandTimeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 << 20 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr: err?.killed ? `${stderr}\n(killed after timeout)` : stderr });
      });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
    else child.stdin!.end();
  });

  const ok = async (args: string[], opts?: KubectlOptions) => {
    const r = await run(args, opts);
    if (r.code !== 0) throw new Error(`${label} ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    return r.stdout;
  };

  return {
    server, version: label as KubectlVersion, run, ok,
    json: async (args) => JSON.parse(await ok([...args, '-o', 'json'])),
    manifest(name, objects) {
      const path = join(home, name);
      writeFileSync(path, objects.map((o) => stringify(o)).join('---\n'));
      return path;
    },
    watch(args) {
      const w = startWatch(spawn(file!, [...prefix, ...base, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
      watches.add(w);
      return w;
    },
    async close() {
      await Promise.all([...watches].map((w) => w.stop()));
      if (ownsServer) await server.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface Watch {
  /** stdout lines so far */
  readonly lines: string[];
  /** resolves with the first line (counting from `from`) that matches; rejects after the timeout */
  line(match: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<string>;
  /** kills the process and returns what it printed */
  stop(): Promise<{ stdout: string; stderr: string; code: number | null }>;
}

function startWatch(child: ChildProcess): Watch {
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let waiters: Array<() => void> = [];
  const wake = () => { const w = waiters; waiters = []; w.forEach((f) => f()); };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => { wake(); resolve(code); }));

  // a watch line comes when the server has sent it: the timeout only ends a watch that will never see it
  const line = async (match: RegExp, { from = 0, timeoutMs = 60_000 } = {}) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines.slice(from).find((l) => match.test(l));
      if (found !== undefined) return found;
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`no line matching ${match} (exit ${child.exitCode}); stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
        waiters.push(() => { clearTimeout(t); resolve(); });
      });
    }
  };

  return {
    lines, line,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const code = await exited;
      return { stdout: [...lines, partial].join('\n'), stderr, code };
    },
  };
}

/** Rows of a kubectl human table: header cells first. */
export function tableRows(stdout: string): string[][] {
  return stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.trim().split(/\s{2,}/));
}

/** The header of a kubectl human table. */
export const tableHeader = (stdout: string) => tableRows(stdout)[0] ?? [];

/** The first column of every data row of a kubectl human table. */
export const tableNames = (stdout: string) => tableRows(stdout).slice(1).map((r) => r[0]!);

/** ConfigMap manifests. */
export function configMaps(namespace: string | undefined, specs: Array<{ name: string; labels?: Record<string, string>; data?: Record<string, string> }>): Manifest[] {
  return specs.map(({ name, labels, data }) => ({
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
    data: data ?? {},
  }));
}

export const namespaceManifest = (name: string): Manifest => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
