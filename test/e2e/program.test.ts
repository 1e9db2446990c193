// The program as a new user runs it: no flags but a free port, the embedded store in ./data, the admin client
// configuration it writes used by real kubectl, --help, and a clean stop on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubectlPath } from './support.js';

const program = new URL('../../bin/apiserver.js', import.meta.url).pathname;   // the bundled program in dist/bin
const run = promisify(execFile);

test('cluster-apiserver starts on the embedded store and kubectl works with the file it writes', { skip: existsSync(program) ? false : 'the bundled program is missing (npm run build)' }, async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'program-'));
  const child = spawn(process.execPath, [program, '--secure-port=0', '--bind-address=127.0.0.1'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => { log += d; if (/admin client configuration: data\/admin\.kubeconfig/.test(log)) resolve(); });
      child.once('exit', code => reject(new Error(`exited ${code}: ${log}`)));
    });
    assert.match(log, /serving on https:\/\/127\.0\.0\.1:\d+ \(storage: sqlite, API domain: cluster\.io, authorization: AlwaysAllow\)/);
    assert.ok(existsSync(join(cwd, 'data', 'store.db')), 'the SQLite store is in ./data');
    const kubectl = kubectlPath('1.32');
    if (existsSync(kubectl)) {
      const { stdout } = await run(kubectl, ['--kubeconfig', join(cwd, 'data', 'admin.kubeconfig'), 'get', 'namespaces', '-o', 'name'],
        { env: { PATH: process.env.PATH, HOME: cwd }, timeout: 120_000 });
      assert.deepEqual(stdout.trim().split('\n').sort(),
        ['namespace/cluster-node-lease', 'namespace/cluster-public', 'namespace/cluster-system', 'namespace/default']);
    }
    const exited = new Promise<number | null>(r => child.once('exit', code => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('cluster-apiserver --help lists its flags; a bad flag is refused naming it', { skip: existsSync(program) ? false : 'the bundled program is missing' }, async () => {
  const { stdout } = await run(process.execPath, [program, '--help']);
  for (const flag of ['--storage-backend', '--etcd-servers', '--data-dir', '--secure-port', '--bind-address', '--api-domain'])
    assert.ok(stdout.includes(flag), flag);
  await assert.rejects(run(process.execPath, [program, '--secure-port=99999']), (e: { code: number; stderr: string }) =>
    e.code === 2 && /secure-port/.test(e.stderr));
});
