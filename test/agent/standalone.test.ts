// Standalone mode (no API server): pods from the manifest directory and from a manifest URL with
// headers, merged; edits and removals followed; and the program's --runonce.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { parseAgentOptions } from '../../src/agent/options.js';
import { naming } from '../../src/api/naming.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { tempDir, waitFor, quiet } from './helpers.js';

const agentMain = new URL('../../src/main/agent.js', import.meta.url).pathname;
const manifest = (name: string, image = 'busybox') => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image }] } });

describe('standalone agent: file and URL sources', () => {
  let dir: string;
  let http: Server;
  let url: string;
  let served: object = { kind: 'PodList', apiVersion: 'v1', items: [manifest('from-url')] };
  const seenHeaders: Record<string, string | string[] | undefined>[] = [];
  let agent: RunningAgent;

  before(async () => {
    dir = tempDir('agent-standalone-');
    http = createServer((req, res) => {
      seenHeaders.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(http.address() as { port: number }).port}/pods`;
    writeFileSync(join(dir, 'a.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: from-file\nspec:\n  containers:\n  - name: c\n    image: busybox\n');
    writeFileSync(join(dir, '.hidden.yaml'), JSON.stringify(manifest('hidden')));
    writeFileSync(join(dir, 'broken.yaml'), 'kind: Deployment\n');
    const { options } = await parseAgentOptions(['--runtime=fake', '--hostname-override=solo', `--root-dir=${join(dir, 'root')}`, `--pod-manifest-path=${dir}`,
      '--file-check-frequency=100ms', `--manifest-url=${url}`, '--manifest-url-header=X-Token:abc,X-Multi:1', '--manifest-url-header=X-Multi:2', '--http-check-frequency=100ms']);
    agent = await runAgent(options, quiet);
    await agent.nodes[0]!.synced;
  });

  after(async () => {
    await agent?.stop();
    await new Promise<void>((r) => http.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const names = () => agent.nodes[0]!.workers.pods().map((x) => x.pod.metadata.name).sort();
  const phase = (name: string) => agent.nodes[0]!.workers.pods().find((x) => x.pod.metadata.name === name)?.pod.status?.phase;

  test('pods of both sources run with static identities; dot files and bad manifests are skipped', async () => {
    await waitFor('both Running', () => phase('from-file-solo') === 'Running' && phase('from-url-solo') === 'Running');
    assert.deepEqual(names(), ['from-file-solo', 'from-url-solo']);
    const p = agent.nodes[0]!.workers.pods().find((x) => x.pod.metadata.name === 'from-url-solo')!.pod;
    assert.equal(p.metadata.namespace, 'default');
    assert.equal(p.spec.nodeName, 'solo');
    assert.match(p.metadata.uid, /^[0-9a-f]{32}$/);
    assert.equal(p.metadata.annotations?.[naming().label('config.source')], 'http');
  });

  test('the URL is fetched with the configured headers', () => {
    const h = seenHeaders[0]!;
    assert.equal(h['x-token'], 'abc');
    assert.equal(h['x-multi'], '1, 2');
  });

  test('edits and removals are followed', async () => {
    const before = agent.nodes[0]!.workers.pods().find((x) => x.pod.metadata.name === 'from-file-solo')!.pod.metadata.uid;
    writeFileSync(join(dir, 'a.yaml'), JSON.stringify(manifest('from-file', 'busybox:2')));
    await waitFor('edited pod running', () => {
      const p = agent.nodes[0]!.workers.pods().find((x) => x.pod.metadata.name === 'from-file-solo');
      return p && p.pod.metadata.uid !== before && p.pod.spec.containers[0].image === 'busybox:2' && p.pod.status?.phase === 'Running';
    });
    served = { kind: 'PodList', apiVersion: 'v1', items: [] };
    unlinkSync(join(dir, 'a.yaml'));
    await waitFor('both removed', () => names().length === 0);
  });
});

describe('cluster-agent --runonce', () => {
  test('runs the static pods, prints their phases and exits 0', async () => {
    const dir = tempDir('agent-runonce-');
    try {
      writeFileSync(join(dir, 'one.json'), JSON.stringify(manifest('one')));
      writeFileSync(join(dir, 'two.json'), JSON.stringify(manifest('two')));
      const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(process.execPath, [agentMain, '--runonce', '--runtime=fake', '--hostname-override=once', `--pod-manifest-path=${dir}`, `--root-dir=${join(dir, 'root')}`],
          { timeout: 20_000 }, (err, stdout) => resolve({ code: err ? Number((err as any).code ?? 1) : 0, stdout })));
      assert.equal(code, 0);
      assert.deepEqual(stdout.trim().split('\n').sort(), ['default/one-once\tRunning', 'default/two-once\tRunning']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
