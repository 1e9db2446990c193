// The package as people install it: `npm pack` makes a tarball; a separate TypeScript project (the fixture in
// ./fixture, an operator with a CRD and a reconcile function) installs it, compiles against its types with
// `strict` on, and runs its own test: a test server from the package, its CRD loaded, the reconcile run. The
// package's programs run from node_modules/.bin, including the single command that gives non-Node users a server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

interface Run { code: number; stdout: string; stderr: string }
// the fixture's own `node --test` must report to its stdout, not to this runner
const { NODE_TEST_CONTEXT: _, ...environment } = process.env;
const run = (file: string, args: string[], cwd: string, timeoutMs = 300_000) => new Promise<Run>((resolve) => {
  execFile(file, args, { cwd, timeout: timeoutMs, maxBuffer: 64 << 20, env: { ...environment, npm_config_update_notifier: 'false' } }, (err, stdout, stderr) =>
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
});
const ok = async (file: string, args: string[], cwd: string) => {
  const r = await run(file, args, cwd);
  if (r.code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
};

describe('the package, installed into a separate TypeScript project', { concurrency: 1, timeout: 900_000 }, () => {
  const root = repositoryRoot();
  let work: string;
  let project: string;
  let tarball: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'package-'));
    const packed = JSON.parse(await ok('npm', ['pack', '--json', '--pack-destination', work], root));
    tarball = join(work, packed[0].filename);
    project = join(work, 'widget-operator');
    cpSync(join(root, 'test', 'package', 'fixture'), project, { recursive: true });
    const dev = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies;
    // from the npm cache where it can; install scripts are skipped (the native SQLite module is for the embedded
    // store, and the fixture's servers keep their state in memory)
    // TypeScript 5 as well, for projects that still resolve modules the CommonJS way (node10), which 7 removed
    await ok('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', tarball, `typescript@${dev.typescript}`, 'typescript5@npm:typescript@5', `@types/node@${dev['@types/node']}`], project);
  });
  after(() => { if (work) rmSync(work, { recursive: true, force: true }); });

  test('the tarball holds the programs, the compiled library with its types, and no tests', async () => {
    const listing = JSON.parse(await ok('npm', ['pack', '--dry-run', '--json'], root))[0].files.map((f: { path: string }) => f.path) as string[];
    for (const f of ['dist/bin/clusterctl.js', 'dist/bin/test-server.js', 'dist/bin/apiserver.js', 'dist/src/client/index.js', 'dist/src/client/index.d.ts', 'dist/src/testing.d.ts', 'dist/src/api/types/index.d.ts', 'README.md']) {
      assert.ok(listing.includes(f), `${f} is packed`);
    }
    assert.deepEqual(listing.filter((f) => /\.test\.(js|d\.ts)$/.test(f) || f.startsWith('test/') || f.startsWith('src/')), []);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'cluster-control-plane', 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './client', './package.json', './testing', './types', './types/*']);
  });

  test('the project compiles against the package with strict on', async () => {
    const r = await run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], project);
    assert.equal(r.code, 0, r.stdout + r.stderr);
  });

  test('the types are checked: a wrong use of the client does not compile', async () => {
    const bad = join(project, 'src', 'bad.ts');
    writeFileSync(bad, `import { createClient, kindClient } from 'cluster-control-plane';
import { widgets } from './controller.js';
export async function wrong() {
  const client = createClient({ contextName: '', clusterName: '', userName: '', server: 'https://x' });
  const w = await client.resource(widgets).get('w');
  const size: string = w.spec.size;
  const d = await kindClient(client, 'apps/v1', 'Deployment').get('d');
  const replicas: string | undefined = d.spec?.replicas;
  return [size, replicas];
}
`);
    try {
      const r = await run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--noEmit'], project);
      assert.notEqual(r.code, 0);
      assert.match(r.stdout, /bad\.ts\(6,9\).*Type 'number' is not assignable to type 'string'/);
      assert.match(r.stdout, /bad\.ts\(8,9\).*Type 'number \| undefined' is not assignable to type 'string \| undefined'/);
    } finally {
      rmSync(bad);
    }
  });

  test('a CommonJS project with TypeScript 5\'s node10 resolution finds the types of every entry point and require()s them', async () => {
    const cjs = join(work, 'cjs-project');
    mkdirSync(join(cjs, 'src'), { recursive: true });
    symlinkSync(join(project, 'node_modules'), join(cjs, 'node_modules'), 'dir');
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-project', version: '1.0.0', private: true }));
    writeFileSync(join(cjs, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', moduleResolution: 'node10', strict: true, outDir: 'dist', rootDir: 'src', types: ['node'] } }));
    writeFileSync(join(cjs, 'src', 'main.ts'), `import { startTestServer } from 'cluster-control-plane/testing';
import { createClient as fromRoot } from 'cluster-control-plane';
import { createClient as fromClient } from 'cluster-control-plane/client';
import type { appsV1 } from 'cluster-control-plane/types';
async function main(): Promise<void> {
  const server = await startTestServer();
  const d: appsV1.Deployment | undefined = undefined;
  console.log(fromRoot === fromClient, (await server.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).list()).items.length > 0, d);
  await server.close();
}
void main();
`);
    const r = await run(process.execPath, [join(project, 'node_modules', 'typescript5', 'bin', 'tsc'), '-p', '.'], cjs);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // require() of the package's ES modules: Node 20.19 and later
    if (!(process.features as { require_module?: boolean }).require_module) return;
    const ran = await run(process.execPath, ['dist/main.js'], cjs);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^true true undefined$/m);
  });

  test('the project\'s own test runs: a test server, its CRD loaded, the reconcile against it', async () => {
    const r = await run(process.execPath, ['--test', 'dist/'], project);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /# pass 1/);
  });

  test('cluster-test-server prints a kubeconfig path and serves; the installed clusterctl uses it', async () => {
    const bin = join(project, 'node_modules', '.bin');
    const child = spawn(join(bin, 'cluster-test-server'), ['--api-domain', 'k8s.io'], { cwd: project, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const path = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c;
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.once('exit', (code) => reject(new Error(`cluster-test-server exited ${code}`)));
      });
      assert.ok(existsSync(path), path);
      const r = await run(join(bin, 'clusterctl'), ['--kubeconfig', path, 'get', 'namespaces', '-o', 'name'], project);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /namespace\/kube-system/);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      // closing its standard input stops it, as when the process that started it goes away
      child.stdin.end();
      assert.equal(await exited, 0);
      assert.ok(!existsSync(path), 'its files are removed');
    } finally {
      child.kill();
    }
  });
});
