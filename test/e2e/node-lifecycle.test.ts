// Node lifecycle against a real agent process: killed with SIGKILL, its node goes Unknown once the grace
// period passes without a Lease renewal or status, gets the unreachable taints, its pods are marked not ready
// and evicted when their toleration runs out; deleting the node collects its pods. An agent stopped
// gracefully marks its node Unknown itself, without the wait. Durations are shortened by flags.
// As the reference, NoExecute taints (and so evictions) need a zone with a Ready node: a cluster whose every
// node is down evicts nothing; the first describe keeps one steady node Ready for that reason.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent } from '../../src/agent/agent.js';
import { waitFor } from '../support/cluster.js';

const agentMain = new URL('../../src/main/agent.js', import.meta.url).pathname;
const graceSeconds = 6;
const nodes = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const events = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };

describe('node lifecycle', () => {
  let server: TestServer;
  let client: Client;
  let root: string;
  let agent: ChildProcess | undefined;
  let steady: { stop(): Promise<void> } | undefined;
  before(async () => {
    server = await startTestServer({ flags: [`--node-monitor-grace-period=${graceSeconds}s`, '--node-monitor-period=500ms'] });
    client = await clientFromFile(server.kubeconfig);
    root = mkdtempSync(join(tmpdir(), 'node-lifecycle-'));
    steady = await startFakeAgent(server, root, 'steady');
  });
  after(async () => {
    agent?.kill('SIGKILL');
    await steady?.stop();
    client.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const key = (k: string) => `node.${server.names.labelDomain}/${k}`;
  const ready = (n: any) => n.status?.conditions?.find((c: any) => c.type === 'Ready');
  const taintsOf = (n: any) => (n.spec?.taints ?? []).map((t: any) => `${t.key}:${t.effect}`).sort();
  const pod = (name: string, node: string, tolerationSeconds?: number) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      nodeName: node, containers: [{ name: 'c', image: 'x:1' }],
      ...(tolerationSeconds === undefined ? {} : { tolerations: [{ key: key('unreachable'), operator: 'Exists', effect: 'NoExecute', tolerationSeconds }] }),
    },
  });

  test('SIGKILL: Unknown after the grace period, unreachable taints, eviction after the toleration, pods collected with the node', async () => {
    agent = spawn(process.execPath, [agentMain, `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--hostname-override=crashy',
      `--root-dir=${join(root, 'crashy')}`, '--node-status-update-frequency=1s', `--api-domain=${server.names.domain}`], { stdio: 'ignore' });
    await waitFor('the node Ready', async () => ready(await client.resource(nodes).get('crashy'))?.status === 'True');
    const podClient = client.resource(pods, 'default');
    await podClient.create(pod('brief', 'crashy', 2));
    await podClient.create(pod('patient', 'crashy'));
    for (const name of ['brief', 'patient']) {
      await waitFor(`${name} ready`, async () => (await podClient.get(name)).status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
    }
    const readyBefore = (await podClient.get('patient')).status.conditions.find((c: any) => c.type === 'Ready');
    // still Ready a while later: the agent's Lease and status keep it fresh
    await new Promise((r) => setTimeout(r, graceSeconds * 1000 + 500));
    assert.equal(ready(await client.resource(nodes).get('crashy')).status, 'True');

    agent.kill('SIGKILL');
    const killedAt = Date.now();
    const unknown = await waitFor('the node Unknown', async () => {
      const n = await client.resource(nodes).get('crashy');
      return ready(n)?.status === 'Unknown' && n;
    }, 60_000, 50);
    const unknownAfterMs = Date.now() - killedAt;
    assert.ok(unknownAfterMs >= graceSeconds * 1000 - 1500, `Unknown after ${unknownAfterMs} ms, before the grace period`);
    assert.equal(ready(unknown).reason, 'NodeStatusUnknown');
    const tainted = await waitFor('the unreachable taints', async () => {
      const n = await client.resource(nodes).get('crashy');
      return taintsOf(n).join(',') === [`${key('unreachable')}:NoExecute`, `${key('unreachable')}:NoSchedule`].join(',') && n;
    }, 60_000, 50);
    const taintedAt = Date.parse(tainted.spec.taints.find((t: any) => t.effect === 'NoExecute').timeAdded);
    process.stdout.write(`# node Unknown ${unknownAfterMs} ms after SIGKILL (grace ${graceSeconds} s)\n`);

    // the pods stop being ready; the one tolerating 2 s is evicted then, the one with the default 300 s stays
    await waitFor('patient not ready', async () => (await podClient.get('patient')).status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'False'));
    // as the reference: the condition keeps the agent's reason, and the pod is told in an event
    const notReady = (await podClient.get('patient')).status.conditions.find((c: any) => c.type === 'Ready');
    assert.equal(notReady.reason, readyBefore.reason);
    await waitFor('the NodeNotReady event of patient', async () => (await client.resource(events, 'default').list()).items
      .some((e: any) => e.involvedObject.name === 'patient' && e.reason === 'NodeNotReady' && e.type === 'Warning' && e.message === 'Node is not ready'));
    const evicted = await waitFor('brief evicted', async () => { const p = await podClient.get('brief'); return p.metadata.deletionTimestamp && p; }, 60_000, 50);
    const evictedAfterMs = Date.now() - taintedAt;
    process.stdout.write(`# pod evicted ${evictedAfterMs} ms after the NoExecute taint (toleration 2 s)\n`);
    assert.ok(evictedAfterMs >= 1000, `evicted ${evictedAfterMs} ms after the taint`);
    assert.equal(evicted.status.conditions.find((c: any) => c.type === 'DisruptionTarget')?.reason, 'DeletionByTaintManager');
    assert.equal((await podClient.get('patient')).metadata.deletionTimestamp, undefined);

    // nothing finishes the pods of a node that is gone: the pod collector does
    await client.resource(nodes).delete('crashy');
    await waitFor('the pods collected', async () => {
      const left = (await podClient.list()).items.filter((p: any) => ['brief', 'patient'].includes(p.metadata.name));
      return left.length === 0;
    });
  });

  test('a graceful stop marks the node Unknown at once, which gives the unreachable taints', async () => {
    const gentle = await startFakeAgent(server, root, 'gentle');
    await waitFor('the node Ready', async () => ready(await client.resource(nodes).get('gentle'))?.status === 'True');
    await waitFor('no taints', async () => taintsOf(await client.resource(nodes).get('gentle')).length === 0);
    await gentle.stop();
    const n = await waitFor('the unreachable taints', async () => {
      const x = await client.resource(nodes).get('gentle');
      return taintsOf(x).join(',') === [`${key('unreachable')}:NoExecute`, `${key('unreachable')}:NoSchedule`].join(',') && x;
    }, 60_000, 50);
    assert.equal(ready(n).status, 'Unknown');
  });
});

/** a node agent in fake mode, in this process */
async function startFakeAgent(server: TestServer, root: string, name: string) {
  const { options } = await parseAgentOptions([`--clusterconfig=${server.kubeconfig}`, '--runtime=fake', `--hostname-override=${name}`,
    `--root-dir=${join(root, name)}`, '--node-status-update-frequency=1s', `--api-domain=${server.names.domain}`]);
  return runAgent(options, { info() {}, warn() {} });
}

describe('node lifecycle: how fast NoExecute taints come, by the health of the zones', () => {
  const evictionRate = 0.25;
  let server: TestServer;
  let client: Client;
  let root: string;
  let helper: { stop(): Promise<void> } | undefined;
  before(async () => {
    server = await startTestServer({ flags: [`--node-monitor-grace-period=${graceSeconds}s`, '--node-monitor-period=500ms', `--node-eviction-rate=${evictionRate}`] });
    client = await clientFromFile(server.kubeconfig);
    root = mkdtempSync(join(tmpdir(), 'node-lifecycle-'));
  });
  after(async () => {
    await helper?.stop();
    client.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const key = (k: string) => `node.${server.names.labelDomain}/${k}`;
  const taintsOf = (n: any) => (n.spec?.taints ?? []).map((t: any) => `${t.key}:${t.effect}`).sort().join(',');
  /** a node of an agent in fake mode, Ready throughout */
  const readyNode = async () => (helper ??= await startFakeAgent(server, root, 'helper'));
  /** a node made by hand: it reports Ready once and never again */
  async function silentNode(name: string) {
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const created = await client.resource(nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    await client.resource(nodes).status.update({ ...created, status: { conditions: [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: now, lastTransitionTime: now },
    ] } });
  }

  test('the only node going silent gets no NoExecute taint and its pods stay; a Ready node joining brings the eviction', async () => {
    await silentNode('lonely');
    const podClient = client.resource(pods, 'default');
    await podClient.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stays' }, spec: {
      nodeName: 'lonely', containers: [{ name: 'c', image: 'x:1' }],
      tolerations: [{ key: key('unreachable'), operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }],
    } });

    const silent = await waitFor('lonely Unknown with the unreachable NoSchedule taint', async () => {
      const n = await client.resource(nodes).get('lonely');
      return n.status.conditions.find((c: any) => c.type === 'Ready')?.status === 'Unknown' && taintsOf(n).includes(`${key('unreachable')}:NoSchedule`) && n;
    }, 60_000, 50);
    // the conditions it never posted say so; the one it did says it stopped
    const conditions = Object.fromEntries(silent.status.conditions.map((c: any) => [c.type, c.reason]));
    assert.deepEqual(conditions, { Ready: 'NodeStatusUnknown', MemoryPressure: 'NodeStatusNeverUpdated', DiskPressure: 'NodeStatusNeverUpdated', PIDPressure: 'NodeStatusNeverUpdated' });
    assert.equal(taintsOf(silent), `${key('unreachable')}:NoSchedule`, 'every node is down: no NoExecute taint');
    const stays = await podClient.get('stays');
    assert.equal(stays.metadata.deletionTimestamp, undefined);

    // one Ready node elsewhere: the silent one is unreachable, not the control plane; its pod goes after its 1 s
    await readyNode();
    await waitFor('the NoExecute taint', async () => taintsOf(await client.resource(nodes).get('lonely'))
      === [`${key('unreachable')}:NoExecute`, `${key('unreachable')}:NoSchedule`].join(','), 60_000, 50);
    await waitFor('the pod evicted', async () => (await podClient.get('stays')).metadata.deletionTimestamp !== undefined, 60_000, 50);
    await client.resource(nodes).delete('lonely');
  });

  test('two nodes going silent together get their NoExecute taints one after the other, at --node-eviction-rate', async () => {
    await readyNode();
    await silentNode('quiet-a');
    await silentNode('quiet-b');
    const noExecuteSince = (n: any) => Date.parse(n.spec?.taints?.find((t: any) => t.key === key('unreachable') && t.effect === 'NoExecute')?.timeAdded ?? '');
    const [a, b] = await waitFor('both NoExecute taints', async () => {
      const added = await Promise.all(['quiet-a', 'quiet-b'].map(async (n) => noExecuteSince(await client.resource(nodes).get(n))));
      return added.every((t) => !Number.isNaN(t)) && added;
    }, 60_000, 50);
    // timeAdded is in whole seconds: 4 s apart shows as at least 3
    assert.ok(Math.abs(a! - b!) >= (1 / evictionRate - 1) * 1000, `tainted ${Math.abs(a! - b!)} ms apart`);
    for (const n of ['quiet-a', 'quiet-b']) await client.resource(nodes).delete(n);
  });

  test('a node back before the tolerationSeconds end: the waiting eviction is cancelled, and the pod told in an event', async () => {
    await readyNode();
    await silentNode('flappy');
    const podClient = client.resource(pods, 'default');
    const onFlappy = (name: string, tolerationSeconds?: number) => podClient.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: {
      nodeName: 'flappy', containers: [{ name: 'c', image: 'x:1' }],
      ...(tolerationSeconds === undefined ? {} : { tolerations: [{ key: key('unreachable'), operator: 'Exists', effect: 'NoExecute', tolerationSeconds }] }),
    } });
    await onFlappy('early', 2);
    await onFlappy('late');
    await waitFor('the NoExecute taint', async () => taintsOf(await client.resource(nodes).get('flappy')).includes(`${key('unreachable')}:NoExecute`), 60_000, 50);
    // once the early one is evicted, the late one's eviction (after the default 300 s) has long been waiting
    await waitFor('early evicted', async () => (await podClient.get('early')).metadata.deletionTimestamp !== undefined, 60_000, 50);
    const flappy = await client.resource(nodes).get('flappy');
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await client.resource(nodes).status.update({ ...flappy, status: { conditions: [
      { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: now, lastTransitionTime: now },
    ] } });
    const cancelled = await waitFor('the cancelling event', async () => (await client.resource(events, 'default').list()).items
      .find((e: any) => e.reason === 'TaintManagerEviction' && e.involvedObject.name === 'late' && /^Cancelling deletion of Pod default\/late$/.test(e.message)));
    assert.equal(cancelled.type, 'Normal');
    assert.equal((await podClient.get('late')).metadata.deletionTimestamp, undefined);
    await client.resource(nodes).delete('flappy');
  });
});
