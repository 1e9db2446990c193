// The node streams with real containers: kubectl 1.27 (SPDY) and 1.32 (WebSocket first, then its fallback) through
// the API server to the agent and containerd's CRI streaming server: logs and logs -f, logs --previous, exec with
// and without stdin and its exit code, attach, cp both ways, port-forward to a server in a busybox container,
// pods/proxy of its HTTP port and nodes/proxy. Skipped, saying why, only when containerd cannot run here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { containerdMissing, startContainerd, type Containerd } from './containerd.js';
import { tempDir, waitFor, ensureDefaultServiceAccount, ensureRootCA, quiet } from './helpers.js';
import { kubectlPath, kubectlVersions, startKubectlEnv, type KubectlEnv } from '../e2e/support.js';
import { spawn } from 'node:child_process';

const slow = 180_000;
const missing = containerdMissing();
const image = 'localhost/busybox:1';

const fetchText = (url: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
  httpGet(url, (res) => { let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => resolve({ status: res.statusCode ?? 0, body })); }).on('error', reject);
});

describe('node streams with containerd', { skip: missing ? `containerd cannot run here: ${missing}` : false }, () => {
  let server: TestServer;
  let containerd: Containerd;
  let client: Client;
  let agent: RunningAgent;
  let servers: AgentServers;
  let dir: string;
  let httpPort: number;

  const hostPod = (name: string, containers: object[]) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: { nodeName: 'stream-node', hostNetwork: true, terminationGracePeriodSeconds: 1, containers },
  });

  before(async () => {
    const containerdOnce = () => startContainerd().catch(() => startContainerd());
    [server, containerd] = await Promise.all([startTestServer({ apiDomain: 'k8s.io' }), containerdOnce()]);
    dir = tempDir('cri-streams-');
    writeFileSync(join(dir, 'ca.crt'), server.caCertPem);
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    await ensureRootCA(client, server.names.rootCAConfigMap);
    const root = containerd.agentRoot;
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, `--container-runtime-endpoint=${containerd.endpoint}`, '--hostname-override=stream-node', '--api-domain=k8s.io',
      `--root-dir=${root}`, `--cert-dir=${join(root, 'pki')}`, '--node-status-update-frequency=500ms', '--address=127.0.0.1', `--port=${await freePort()}`,
      '--read-only-port=0', '--healthz-port=0', '--node-ip=127.0.0.1', '--runtime-request-timeout=30s', `--cgroup-root=${containerd.cgroupRoot}`,
      `--client-ca-file=${join(dir, 'ca.crt')}`, '--anonymous-auth=false',
    ]);
    agent = await runAgent(options, quiet, { leaseDurationSeconds: 2, relistMs: 200 });
    servers = await startAgentServers(options, agent.nodes, agent.client);
    httpPort = await freePort();
    const pods = client.resource(podsRef, 'default');
    await pods.create(hostPod('box', [
      { name: 'main', image, command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.3; done'] },
      { name: 'web', image, command: ['sh', '-c', `mkdir -p /www && echo served by busybox > /www/index.html && exec httpd -f -p 127.0.0.1:${httpPort} -h /www`] },
      { name: 'shell', image, command: ['sh'], stdin: true, tty: false },
    ]));
    await pods.create(hostPod('crasher', [{ name: 'main', image, command: ['sh', '-c', 'echo attempt; exit 2'] }]));
    await waitFor('box Running', async () => (await pods.get('box')).status?.phase === 'Running', slow);
  }, { timeout: 300_000 });

  after(async () => {
    await servers?.close();
    await agent?.stop().catch(() => undefined);
    client?.close();
    await containerd?.stop();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const version of kubectlVersions) {
    describe(`kubectl ${version}`, () => {
      let k: KubectlEnv;
      before(async () => { k = await startKubectlEnv(version, 'k8s.io', server); });
      after(async () => { await k?.close(); });

      test('logs and logs -f', async () => {
        assert.match(await k.ok(['logs', 'box', '-c', 'main', '--tail=2']), /^tick \d+\ntick \d+\n$/);
        const w = k.watch(['logs', '-f', 'box', '-c', 'main', '--tail=1']);
        const n = Number(/tick (\d+)/.exec(await w.line(/tick \d+/, { timeoutMs: 60_000 }))![1]);
        await w.line(new RegExp(`^tick ${n + 2}$`), { timeoutMs: 60_000 });
        await w.stop();
      });

      test('logs --previous after a restart', async () => {
        await waitFor('a restart', async () => ((await client.resource(podsRef, 'default').get('crasher')).status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, slow);
        assert.equal(await k.ok(['logs', 'crasher', '--previous']), 'attempt\n');
      });

      test('exec with and without stdin returns the exit code', async () => {
        const r = await k.run(['exec', 'box', '-c', 'main', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
        assert.equal(r.code, 3, r.stderr);
        assert.equal(r.stdout, 'out\n');
        assert.match(r.stderr, /err/);
        assert.equal(await k.ok(['exec', '-i', 'box', '-c', 'main', '--', 'cat'], { input: 'via stdin\n' }), 'via stdin\n');
      });

      test('attach', async () => {
        // stdin stays open until the shell's answer comes back: its end would end the attach
        const child = spawn(kubectlPath(version), ['--kubeconfig', server.kubeconfig, 'attach', '-i', 'box', '-c', 'shell'], { stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        const answered = new Promise<void>((resolve) => child.stdout.on('data', (d) => { out += d; if (out.includes('attached-42')) resolve(); }));
        // the shell reads what comes once the attach is up; say it again until it answers
        const ask = setInterval(() => child.stdin.write('echo attached-$((40+2))\n'), 500);
        await Promise.race([answered, new Promise((_, reject) => child.once('close', () => reject(new Error(`attach ended: ${out}${err}`))))]).finally(() => clearInterval(ask));
        child.kill();
        assert.match(out, /attached-42/);
      });

      test('cp both ways', async () => {
        const local = join(dir, `up-${version}.bin`);
        const back = join(dir, `down-${version}.bin`);
        const data = randomBytes(256 * 1024);
        writeFileSync(local, data);
        await k.ok(['cp', '-c', 'main', local, `box:/tmp/f-${version}.bin`]);
        await k.ok(['cp', '-c', 'main', `box:/tmp/f-${version}.bin`, back]);
        assert.ok(readFileSync(back).equals(data));
      });

      test('port-forward to the server in the container; proxy of its port; nodes/proxy', async () => {
        const w = k.watch(['port-forward', 'pod/box', `0:${httpPort}`]);
        const line = await w.line(/Forwarding from 127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
        const r = await fetchText(`http://127.0.0.1:${/:(\d+)/.exec(line)![1]}/index.html`);
        assert.equal(r.body, 'served by busybox\n');
        await w.stop();
        assert.equal(await k.ok(['get', '--raw', `/api/v1/namespaces/default/pods/box:${httpPort}/proxy/index.html`]), 'served by busybox\n');
        const summary = JSON.parse(await k.ok(['get', '--raw', '/api/v1/nodes/stream-node/proxy/stats/summary']));
        assert.ok(summary.pods.some((p: any) => p.podRef.name === 'box'));
      });
    });
  }
});
