// clusterctl against a server of the default domain does what unmodified kubectl does against a server of the
// reference's domain: each command runs three ways (kubectl 1.32 on a `k8s.io` server, clusterctl on a `cluster.io`
// server, clusterctl on a `k8s.io` server) and the outputs, with the domain's names and the clock's values taken
// out, must be the same. The suites (clusterctl-*.test.ts) share what is here.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import {
  clusterctlPath, startClusterctlEnv, startKubectlEnv, tableRows, type KubectlEnv, type Manifest, type Run,
} from './support.js';
import { startTestServer, type TestServer } from '../../src/testing.js';

export type Env = KubectlEnv & { domain: 'cluster.io' | 'k8s.io'; label: string };

/** the domain's names made neutral, so outputs of the two domains compare */
export function neutral(text: string): string {
  return text
    .replace(/\.(cluster\.io|k8s\.io)\b/g, '.<domain>')
    .replace(/\b(cluster\.io|kubernetes\.io)\//g, '<labels>/')
    .replace(/\b(cluster|kube)-(system|public|node-lease|root-ca\.crt|api-access)/g, '<vendor>-$2')
    .replace(/application\/vnd\.(cluster|kubernetes)\.protobuf/g, '<protobuf>');
}

/** table rows without the AGE column, whose values depend on the clock */
export function rowsWithoutAge(stdout: string): string[][] {
  const rows = tableRows(neutral(stdout));
  const age = rows[0]?.indexOf('AGE') ?? -1;
  return age < 0 ? rows : rows.map((r) => r.filter((_, i) => i !== age));
}

/** an object without what the server assigns anew each time, and with neutral names */
export function stable(obj: any): any {
  const clean = (o: any) => {
    if (!o?.metadata) return o;
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  const cleaned = obj?.items ? { ...obj, items: obj.items.map(clean) } : clean(obj);
  return JSON.parse(neutral(JSON.stringify(cleaned)));
}

export const out = (r: Run) => ({ code: r.code, stdout: neutral(r.stdout).trim() });
export const lines = (r: Run) => ({ code: r.code, stdout: neutral(r.stdout).trim().split('\n'), stderr: neutral(r.stderr).trim() });

export interface Compared {
  /** kubectl's environment first, then clusterctl's in each domain */
  envs(): Env[];
  kubectl(): Env;
  clusterctls(): Env[];
  /**
   * Runs a command in every environment (kubectl may need other arguments) and checks that the views of the
   * results agree with kubectl's; returns them, kubectl's first.
   */
  same<T>(args: string[] | ((e: Env) => string[]), view: (r: Run, e: Env) => T, opts?: { input?: string; env?: (e: Env) => Record<string, string> }): Promise<T[]>;
  /** creates objects in every environment */
  setup(objects: Manifest[]): Promise<unknown>;
}

/**
 * A suite of comparisons: three fresh servers and clients, `prepare` run in each before the tests. The servers run
 * the controllers but the root-CA publisher, whose ConfigMap is named by the domain (and so lists differently), and
 * those `leftOut`.
 */
export function comparedSuite(name: string, prepare: (e: Env) => Promise<unknown>, tests: (c: Compared) => void, leftOut: string[] = []): void {
  const flags = [`--controllers=${['*', 'root-ca-cert-publisher', ...leftOut].map((c, i) => (i ? `-${c}` : c)).join(',')}`];
  describe(name, { concurrency: 1, timeout: 1_200_000 }, () => {
    let envs: Env[] = [];
    let servers: TestServer[] = [];
    before(async () => {
      servers = await Promise.all((['k8s.io', 'cluster.io', 'k8s.io'] as const).map((apiDomain) => startTestServer({ apiDomain, flags })));
      const [k, c, r] = await Promise.all([startKubectlEnv('1.32', 'k8s.io', servers[0]), startClusterctlEnv('cluster.io', servers[1]), startClusterctlEnv('k8s.io', servers[2])]);
      envs = [
        Object.assign(k, { domain: 'k8s.io' as const, label: 'kubectl 1.32 (k8s.io)' }),
        Object.assign(c, { domain: 'cluster.io' as const, label: 'clusterctl (cluster.io)' }),
        Object.assign(r, { domain: 'k8s.io' as const, label: 'clusterctl (k8s.io)' }),
      ];
      await Promise.all(envs.map(prepare));
    });
    after(async () => {
      await Promise.all(envs.map((e) => e.close()));
      await Promise.all(servers.map((s) => s.close()));
    });
    const compared: Compared = {
      envs: () => envs,
      kubectl: () => envs[0]!,
      clusterctls: () => envs.slice(1),
      async same(args, view, opts = {}) {
        const results = await Promise.all(envs.map(async (e) => view(await e.run(typeof args === 'function' ? args(e) : args, { input: opts.input, env: opts.env?.(e) }), e)));
        for (let i = 1; i < envs.length; i++) assert.deepEqual(results[i], results[0], `${envs[i]!.label} differs from ${envs[0]!.label}`);
        return results;
      },
      setup: (objects) => Promise.all(envs.map((e) => e.ok(['create', '-f', e.manifest(`setup-${Math.random()}.yaml`, objects)]))),
    };
    tests(compared);
  });
}


export { clusterctlPath };

/** runs the environment's command without --kubeconfig, so the files of KUBECONFIG count */
export function runBare(e: Env, args: string[], env: Record<string, string>): Promise<Run> {
  const isKubectl = e.label.startsWith('kubectl');
  const file = isKubectl ? '/usr/lib/google-cloud-sdk/bin/kubectl.1.32' : process.execPath;
  const full = isKubectl ? args : [clusterctlPath, ...args];
  // a hung command still ends; the bound is generous, since a busy machine starts processes slowly
  return new Promise<Run>((resolve) => execFile(file, full, { env: { PATH: process.env.PATH, HOME: tmpdir(), ...env }, timeout: 180_000 }, (err, stdout, stderr) =>
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr })));
}
