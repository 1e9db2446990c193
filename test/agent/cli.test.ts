// The cluster-agent program: --help, refused options, an unreachable runtime, a bad configuration file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { startTestServer } from '../../src/testing.js';
import { clientFromFile } from '../../src/client/rest-client.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, waitFor } from './helpers.js';

const agentMain = new URL('../../src/main/agent.js', import.meta.url).pathname;
const run = (...args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
  execFile(process.execPath, [agentMain, ...args], { timeout: 20_000 }, (err, stdout, stderr) => resolve({ code: err ? Number((err as any).code ?? 1) : 0, stdout, stderr })));

describe('cluster-agent', () => {
  test('--help prints the flags and exits 0', async () => {
    const r = await run('--help');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage: cluster-agent/);
    assert.match(r.stdout, /--node-status-update-frequency duration {2}\(default 10s\)/);
  });

  test('a bad value is refused at start-up naming the option', async () => {
    const r = await run('--oom-score-adj=5000');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /invalid value for flag --oom-score-adj: must be an integer from -1000 to 1000/);
  });

  test('a bad configuration file is refused naming the file and field', async () => {
    const dir = tempDir('agent-cli-');
    try {
      const file = join(dir, 'config.yaml');
      writeFileSync(file, 'apiVersion: agent.config.cluster.io/v1beta1\nkind: AgentConfiguration\nmaxPods: lots\n');
      const r = await run(`--config=${file}`);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /config\.yaml: field maxPods: expected an integer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an unreachable runtime is a clear error', async () => {
    const dir = tempDir('agent-cli-');
    try {
      const r = await run(`--container-runtime-endpoint=unix://${dir}/none.sock`, `--root-dir=${dir}`, '--hostname-override=x');
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`container runtime at unix://${dir}/none\\.sock is unreachable`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('runs until SIGTERM, then exits 0 leaving its node NotReady', async () => {
    const server = await startTestServer();
    const client = await clientFromFile(server.kubeconfig);
    const dir = tempDir('agent-cli-');
    const child = spawn(process.execPath, [agentMain, `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--hostname-override=signalled', `--root-dir=${dir}`,
      '--enable-server=false', '--healthz-port=0', '--read-only-port=0', '--node-status-update-frequency=200ms'], { stdio: 'ignore' });
    try {
      const ready = (n: any) => n.status?.conditions?.find((c: any) => c.type === 'Ready')?.status;
      await waitFor('node Ready', async () => ready(await client.resource(nodesRef).get('signalled')) === 'True');
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.equal(ready(await client.resource(nodesRef).get('signalled')), 'Unknown');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      client.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
