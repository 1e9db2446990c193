// The testing kit's simulated nodes: a test server started with `nodes` schedules and runs pods (a Deployment's
// become Ready, spread over the nodes; a Job completes), serves their logs through the API server, runs beside another such server
// in one process, and leaves no folder and no listening port behind once closed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile } from '../../src/client/rest-client.js';
import { fakeAnnotation } from '../../src/agent/options.js';
import { waitFor } from '../support/wait.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const nodesRef = { group: '', version: 'v1', resource: 'nodes' };
const deploymentsRef = { group: 'apps', version: 'v1', resource: 'deployments' };

const testServerProgram = new URL('../../bin/test-server.js', import.meta.url).pathname;

const ready = (node: any) => node.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
const refused = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve(false); });
  socket.once('error', () => resolve(true));
});

describe('testing kit: simulated nodes', () => {
  let server: TestServer;
  let other: TestServer;

  before(async () => {
    // two servers with nodes at once, started together
    [server, other] = await Promise.all([startTestServer({ nodes: 2 }), startTestServer({ nodes: 1 })]);
  });
  after(async () => {
    await server?.close();
    await other?.close();
  });

  test('the nodes are named after a short id of their server, registered and Ready', async () => {
    assert.equal(server.nodeNames.length, 2);
    assert.match(server.nodeNames[0]!, /^node-[0-9a-f]{6}-0$/);
    assert.equal(server.nodeNames[1], server.nodeNames[0]!.replace(/0$/, '1'));
    assert.match(other.nodeNames[0]!, /^node-[0-9a-f]{6}-0$/);
    assert.notEqual(other.nodeNames[0], server.nodeNames[0]);
    for (const s of [server, other]) {
      await waitFor('the nodes Ready', async () => {
        const names = (await s.client.resource(nodesRef).list()).items.filter(ready).map((n: any) => n.metadata.name).sort();
        return JSON.stringify(names) === JSON.stringify(s.nodeNames);
      });
    }
  });

  test('a Deployment of 3 replicas gets 3 Ready pods spread over both nodes; their logs read through the server', async () => {
    const log = fakeAnnotation(server.names, 'log');
    await server.client.resource(deploymentsRef, 'default').create({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: {
        replicas: 3, selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' }, annotations: { [log]: 'hello from web' } }, spec: { containers: [{ name: 'c', image: 'web:1' }] } },
      },
    });
    await waitFor('3 ready replicas', async () => (await server.client.resource(deploymentsRef, 'default').get('web')).status?.readyReplicas === 3);
    const pods = (await server.client.resource(podsRef, 'default').list({ labelSelector: 'app=web' })).items;
    assert.equal(pods.length, 3);
    assert.deepEqual([...new Set(pods.map((p: any) => p.spec.nodeName))].sort(), server.nodeNames);
    const text = await server.client.request<string>({ method: 'GET', path: `/api/v1/namespaces/default/pods/${pods[0]!.metadata.name}/log` });
    assert.match(text, /hello from web/);
  });

  test('a Job\'s pod runs to completion and the Job completes', async () => {
    const jobs = server.client.resource({ group: 'batch', version: 'v1', resource: 'jobs' }, 'default');
    await jobs.create({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo done'] }] } } },
    });
    await waitFor('the Job complete', async () => (await jobs.get('once')).status?.conditions?.some((c: any) => c.type === 'Complete' && c.status === 'True'));
    assert.equal((await jobs.get('once')).status.succeeded, 1);
  });

  test('a pod of the other server runs on its own node', async () => {
    await other.client.resource(podsRef, 'default').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    const pod = await waitFor('the pod Running', async () => {
      const p = await other.client.resource(podsRef, 'default').get('p');
      return p.status?.phase === 'Running' && p;
    });
    assert.equal(pod.spec.nodeName, other.nodeNames[0]);
  });

  test('a fork runs nodes of the same names, so the copied nodes are its own and its pods run', async () => {
    const fork = await server.fork();
    try {
      assert.deepEqual(fork.nodeNames, server.nodeNames);
      const names = (await fork.client.resource(nodesRef).list()).items.map((n: any) => n.metadata.name).sort();
      assert.deepEqual(names, server.nodeNames);
      await fork.client.resource(podsRef, 'default').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'in-fork' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
      await waitFor('the pod Running in the fork', async () => (await fork.client.resource(podsRef, 'default').get('in-fork')).status?.phase === 'Running');
    } finally {
      await fork.close();
    }
  });

  test('close stops the nodes and leaves no folder and no listening port behind', async () => {
    const s = await startTestServer({ nodes: 1 });
    const node = await waitFor('the node registered', async () => s.client.resource(nodesRef).get(s.nodeNames[0]!).catch(() => undefined));
    const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
    assert.ok(port > 0 && port !== 10250, `the agent's server on a port of the system's choice, not ${port}`);
    assert.equal(await refused(port), false);
    await s.close();
    assert.equal(existsSync(s.dataDir), false);
    assert.equal(await refused(port), true);
  });

  test('a bad node count is refused before anything starts', async () => {
    await assert.rejects(startTestServer({ nodes: -1 }), /nodes must be a whole number/);
    await assert.rejects(startTestServer({ nodes: 1.5 }), /nodes must be a whole number/);
  });

  test('cluster-test-server --nodes=2 runs two Ready nodes, and closing its input removes its files', async () => {
    const bad = spawn(process.execPath, [testServerProgram, '--nodes=two'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let complaint = '';
    bad.stderr.setEncoding('utf8').on('data', (c: string) => { complaint += c; });
    assert.equal(await new Promise((r) => bad.once('exit', r)), 1);
    assert.match(complaint, /--nodes must be a whole number/);

    const child = spawn(process.execPath, [testServerProgram, '--nodes=2'], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; });
      const path = await waitFor('the kubeconfig path', () => out.includes('\n') && out.split('\n')[0]!);
      const client = await clientFromFile(path);
      try {
        await waitFor('two Ready nodes', async () => {
          const nodes = (await client.resource(nodesRef).list()).items.filter(ready).map((n: any) => n.metadata.name);
          return nodes.length === 2 && nodes.every((n: string) => /^node-[0-9a-f]{6}-[01]$/.test(n));
        });
      } finally {
        client.close();
      }
      child.stdin.end();
      assert.equal(await exited, 0);
      assert.equal(existsSync(path), false);
    } finally {
      child.kill();
    }
  });

  test('cluster-test-server stopped by Ctrl-C (SIGINT) while it starts, or once it serves, removes its files', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'kit-sigint-'));
    const start = () => {
      const child = spawn(process.execPath, [testServerProgram, '--nodes=2', '--keep-stdin'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: parent } });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; });
      return { child, exited, out: () => out };
    };
    try {
      // while it starts: its temporary folder made, its nodes not yet running, nothing printed
      const starting = start();
      try {
        await waitFor('its temporary folder', () => readdirSync(parent).length > 0, 60_000, 5);
        assert.equal(starting.out(), '', 'the signal was meant to come while it starts');
        starting.child.kill('SIGINT');
        assert.equal(await starting.exited, 130);
        assert.deepEqual(readdirSync(parent), []);
      } finally {
        starting.child.kill();
      }
      // once it serves
      const serving = start();
      try {
        const path = await waitFor('the kubeconfig path', () => serving.out().includes('\n') && serving.out().split('\n')[0]!);
        assert.equal(existsSync(path), true);
        serving.child.kill('SIGINT');
        assert.equal(await serving.exited, 0);
        assert.deepEqual(readdirSync(parent), []);
      } finally {
        serving.child.kill();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
