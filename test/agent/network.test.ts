// Pod networking on containerd in a network namespace of its own (the node's network for this test):
// with no CNI network the node is NotReady with the runtime's reason and pods off the host network wait;
// with a bridge network pods get their addresses and host ports reach them; a sandbox that cannot be
// made is reported with the runtime's message and made once the cause is gone, leaving nothing behind.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nodesRef } from '../../src/agent/node-status.js';
import type { Client } from '../../src/client/rest-client.js';
import type { RunningAgent } from '../../src/agent/agent.js';
import { cniMissing, containerdMissing, type Containerd } from './containerd.js';
import { waitFor } from './helpers.js';
import { slow, startRealNode, type RealNode } from './real-node.js';

const missing = containerdMissing() ?? cniMissing();
const image = 'localhost/busybox:1';
const node = 'net-node';
/** an HTTP GET from the node's network namespace, by this Node.js (busybox's wget crashes outside its image) */
const httpGetIn = (containerd: Containerd, url: string) =>
  containerd.inNetwork([process.execPath, '-e', 'fetch(process.argv[1], { signal: AbortSignal.timeout(3000) }).then((r) => r.text()).then((t) => process.stdout.write(t))', url], slow);
const podOf = (name: string, containers: object[], spec: object = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { nodeName: node, terminationGracePeriodSeconds: 1, automountServiceAccountToken: false, containers, ...spec },
});

describe('pod networking on containerd', { skip: missing ? `containerd cannot run here: ${missing}` : false, timeout: 900_000 }, () => {
  let n: RealNode;
  let client: Client;
  let containerd: Containerd;
  let agent: RunningAgent;

  before(async () => {
    n = await startRealNode(node, ['--enable-server=false', '--node-status-update-frequency=300ms'], { runtimeStatusMs: 200 }, { network: 'private' });
    ({ client, containerd, agent } = n);
  }, { timeout: 300_000 });

  after(async () => {
    await n?.stop();
  });

  const pods = () => n.pods();
  const readyCondition = async () => (await client.resource(nodesRef).get(node)).status?.conditions?.find((c: any) => c.type === 'Ready');

  test('with no CNI network the node is NotReady with the runtime\'s reason, and a pod off the host network waits for it', async () => {
    const ready = await waitFor('NotReady', async () => {
      const c = await readyCondition();
      return c?.status === 'False' && c;
    }, slow, 200);
    assert.equal(ready.reason, 'KubeletNotReady');
    assert.equal(ready.message, 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized');

    await pods().create(podOf('web', [{ name: 'web', image, command: ['sh', '-c', 'echo served > /tmp/index.html; exec httpd -f -p 8080 -h /tmp'], ports: [{ containerPort: 8080, hostPort: 18080 }] }]));
    const event = await waitFor('NetworkNotReady event', async () => {
      const list = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items;
      return list.find((e: any) => e.involvedObject.name === 'web' && e.reason === 'NetworkNotReady');
    }, slow, 200);
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /^network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady/);
    const waiting = await pods().get('web');
    assert.equal(waiting.status.phase, 'Pending');
    assert.equal(waiting.status.containerStatuses[0].state.waiting.reason, 'ContainerCreating');
  });

  test('with a bridge network the node is Ready, the pod gets its address and its host port reaches it', async () => {
    containerd.configureBridge();
    await waitFor('Ready', async () => (await readyCondition())?.status === 'True', slow, 200);
    const p = await waitFor('web Running', async () => {
      const x = await pods().get('web');
      return x.status?.phase === 'Running' && x;
    }, slow, 200);
    assert.match(p.status.podIP, /^10\.88\.0\.\d+$/);
    assert.deepEqual(p.status.podIPs, [{ ip: p.status.podIP }]);
    // the node's side of the bridge is 10.88.0.1: the host port forwards to the pod's 8080
    const body = await waitFor('host port answers', () => {
      try {
        return httpGetIn(containerd, 'http://10.88.0.1:18080/index.html');
      } catch {
        return undefined;
      }
    }, slow, 500);
    assert.equal(body, 'served\n');
    const direct = httpGetIn(containerd, `http://${p.status.podIP}:8080/index.html`);
    assert.equal(direct, 'served\n');
  });

  test('a sandbox the runtime cannot make is reported with its message, retried, and made once the cause is gone', async () => {
    const runtime = agent.nodes[0]!.runtime;
    // without its sandbox image (and no registry to pull it from) the runtime cannot make sandboxes
    containerd.ctr('images', 'rm', 'localhost/pause:1');
    await pods().create(podOf('later', [{ name: 'main', image, command: ['sleep', '3600'] }]));
    const event = await waitFor('FailedCreatePodSandBox', async () => {
      const list = (await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list()).items;
      return list.find((e: any) => e.involvedObject.name === 'later' && e.reason === 'FailedCreatePodSandBox');
    }, slow, 200);
    assert.equal(event.type, 'Warning');
    assert.match(event.message, /^Failed to create pod sandbox: .*pause/);
    const pending = await waitFor('the failure in the status', async () => {
      const x = await pods().get('later');
      return x.status?.containerStatuses?.[0]?.state?.waiting?.message?.startsWith('Failed to create pod sandbox') && x;
    }, slow, 200);
    assert.equal(pending.status.phase, 'Pending');
    const uid = pending.metadata.uid;
    // each failed try leaves no sandbox behind
    assert.deepEqual((await runtime.listSandboxes()).filter((s) => s.uid === uid && !s.ready), []);

    containerd.importImage('pause');
    const p = await waitFor('later Running', async () => {
      const x = await pods().get('later');
      return x.status?.phase === 'Running' && x;
    }, slow, 200);
    assert.ok(p.status.podIP);
    const mine = (await runtime.listSandboxes()).filter((s) => s.uid === uid);
    assert.equal(mine.length, 1, 'one sandbox for the pod');
    assert.ok(mine[0]!.ready);
  });
});
