// The package as the README's testing section uses it: the entry points it names are in what `npm pack` ships,
// with their types, and a project that installed it imports them by those names and type-checks against them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repo = new URL('../../../', import.meta.url).pathname;

test('npm pack ships the entry points and their types, and no tests', async () => {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repo, maxBuffer: 64 << 20 });
  const files = new Set((JSON.parse(stdout)[0].files as { path: string }[]).map(f => f.path));
  for (const f of ['dist/src/testing.js', 'dist/src/testing.d.ts', 'dist/src/api/types/index.d.ts', 'dist/src/api/types/core-v1.d.ts',
    'dist/bin/apiserver.js', 'package.json', 'README.md'])
    assert.ok(files.has(f), f);
  assert.deepEqual([...files].filter(f => /\.test\.|^test\/|^src\//.test(f)), []);
});

test('a project that installed the package imports it by the README\'s names, with types', async () => {
  const project = mkdtempSync(join(tmpdir(), 'consumer-'));
  try {
    mkdirSync(join(project, 'node_modules'));
    // what npm install leaves: the package (here the checkout itself) under node_modules, beside its dependencies
    symlinkSync(repo, join(project, 'node_modules', 'cluster-control-plane'));
    symlinkSync(join(repo, 'node_modules', '@types'), join(project, 'node_modules', '@types'));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: ['node'] },
      files: ['main.ts'],
    }));
    writeFileSync(join(project, 'main.ts'), [
      "import { startTestServer } from 'cluster-control-plane/testing';",
      "import type { Pod } from 'cluster-control-plane/types/core-v1';",
      "import type { KindMap } from 'cluster-control-plane/types';",
      "const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };",
      "const role: KindMap['rbac.authorization.k8s.io/v1/Role'] = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' } };",
      "const server = await startTestServer({ apiDomain: 'k8s.io' });",
      "const url: string = server.url;",
      'console.log(JSON.stringify({ url, pod: pod.metadata?.name, role: role.kind }));',
      'await server.close();',
    ].join('\n'));
    const tsc = (...args: string[]) => run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), ...args], { cwd: project });
    await tsc('-p', project);
    // the types are the package's own: a misspelt field is an error
    writeFileSync(join(project, 'bad.ts'), "import type { Pod } from 'cluster-control-plane/types/core-v1';\nexport const p: Pod = { apiVersion: 'v1', kind: 'Pod', metdata: {} };\n");
    await assert.rejects(tsc('--ignoreConfig', '--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--skipLibCheck', '--types', 'node', 'bad.ts'),
      (e: { stdout: string; stderr: string }) => /metdata/.test(`${e.stdout}${e.stderr}`) || assert.fail(`${e.stdout}${e.stderr}`));
    const { stdout } = await run(process.execPath, [join(project, 'main.js')], { cwd: project });
    const out = JSON.parse(stdout);
    assert.match(out.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual([out.pod, out.role], ['web', 'Role']);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
});
