// The cluster-agent program: --help, refused options, an unreachable runtime, a bad configuration file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { startTestServer } from '../../src/testing.js';
import { clientFromFile } from '../../src/client/rest-client.js';
import { leasesRef, nodesRef } from '../../src/agent/node-status.js';
import { namingFromServer } from '../../src/agent/api-domain.js';
import { naming } from '../../src/api/naming.js';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  test('without --api-domain it takes the server\'s: against a server in the reference\'s domain, its Lease is in kube-node-lease', async () => {
    const server = await startTestServer({ apiDomain: 'k8s.io' });
    const client = await clientFromFile(server.kubeconfig);
    const dir = tempDir('agent-cli-');
    let stderr = '';
    const child = spawn(process.execPath, [agentMain, `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--hostname-override=domain-learnt', `--root-dir=${dir}`,
      '--enable-server=false', '--healthz-port=0', '--read-only-port=0'], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
    try {
      const lease = await waitFor('the node\'s Lease', () => client.resource<any>(leasesRef(naming('k8s.io')), 'kube-node-lease').get('domain-learnt').catch(() => undefined));
      assert.equal(lease.spec?.holderIdentity, 'domain-learnt');
      assert.doesNotMatch(stderr, /lease.*failed|cluster\.io/);
    } finally {
      child.kill('SIGKILL');
      client.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a server that does not answer leaves the default domain, saying how to choose', async () => {
    const dir = tempDir('agent-cli-');
    try {
      const file = join(dir, 'nowhere.kubeconfig');
      writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Config', 'current-context': 'c', contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'insecure-skip-tls-verify': true } }], users: [{ name: 'u', user: { token: 'x' } }] }));
      const warnings: string[] = [];
      assert.equal(await namingFromServer({ clusterconfig: file, nodeName: 'n' }, (m) => warnings.push(m), 1), undefined);
      assert.match(warnings.join('\n'), /could not learn the API domain from the server .*; using cluster\.io \(set --api-domain to choose\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--logging-format=json writes one JSON object a line; --log-json-split-stream puts info on stdout', async () => {
    const dir = tempDir('agent-cli-');
    try {
      const args = ['--runtime=fake', '--hostname-override=logged', `--root-dir=${dir}`, '--enable-server=false', '--healthz-port=0', '--read-only-port=0', '--logging-format=json'];
      const started = (child: ReturnType<typeof spawn>, stream: 'stdout' | 'stderr') => new Promise<string>((resolve) => {
        let text = '';
        child[stream]!.on('data', (d) => {
          text += d;
          if (text.includes('running 1 node(s)')) resolve(text);
        });
      });
      const plain = spawn(process.execPath, [agentMain, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      const err = await started(plain, 'stderr');
      plain.kill('SIGTERM');
      const first = JSON.parse(err.split('\n').find((l) => l.includes('running 1 node(s)'))!);
      assert.equal(first.v, 0);
      assert.equal(typeof first.ts, 'number');
      assert.match(first.msg, /^running 1 node\(s\) \(logged\), runtime fake, standalone mode$/);
      const split = spawn(process.execPath, [agentMain, ...args, '--log-json-split-stream', '--log-json-info-buffer-size=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out = await started(split, 'stdout');
      split.kill('SIGTERM');
      assert.ok(out.split('\n').filter(Boolean).every((l) => typeof JSON.parse(l).msg === 'string'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--lock-file: a second agent waits for the lock; with --exit-on-lock-contention the holder leaves for it', async () => {
    const dir = tempDir('agent-cli-');
    const lock = join(dir, 'agent.lock');
    const start = (name: string) => {
      const child = spawn(process.execPath, [agentMain, '--runtime=fake', `--hostname-override=${name}`, `--root-dir=${join(dir, name)}`, '--enable-server=false', '--healthz-port=0', '--read-only-port=0',
        `--lock-file=${lock}`, '--exit-on-lock-contention', '--max-open-files=4096'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let log = '';
      child.stderr!.on('data', (d) => (log += d));
      return { child, log: () => log };
    };
    const first = start('first');
    let second: ReturnType<typeof start> | undefined;
    try {
      await waitFor('first holds the lock and runs', () => first.log().includes('running 1 node(s)'), 20_000);
      assert.match(readFileSync(`/proc/${first.child.pid}/limits`, 'utf8'), /^Max open files\s+4096\s+4096\s+files/m, '--max-open-files');
      const exited = new Promise<number | null>((r) => first.child.once('exit', (code) => r(code)));
      second = start('second');
      assert.equal(await exited, 0, 'the holder stops on contention');
      assert.match(first.log(), /lock contention: stopping/);
      await waitFor('second takes the lock and runs', () => second!.log().includes('holding the lock') && second!.log().includes('running 1 node(s)'), 20_000);
    } finally {
      for (const c of [first.child, second?.child]) if (c && c.exitCode === null) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
