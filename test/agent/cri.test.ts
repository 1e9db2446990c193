// The agent with real containers: Debian's containerd in its own namespaces, driven over CRI, against
// a real API server. Skipped, saying why, only when containerd cannot run here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { clientFromFile, isNotFound, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { collectImages } from '../../src/agent/gc.js';
import { containerdMissing, startContainerd, type Containerd } from './containerd.js';
import { healthServer } from '../support/grpc-health.js';
import { tempDir, waitFor, ensureDefaultServiceAccount, ensureRootCA, httpsGet, quiet } from './helpers.js';

/** how long a condition may take: these machines are shared, and containers start slowly under load */
const slow = 180_000;
const missing = containerdMissing();
const image = 'localhost/busybox:1';

const get = httpsGet;

const hostPod = (name: string, containers: object[], spec: object = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { nodeName: 'real-node', hostNetwork: true, terminationGracePeriodSeconds: 1, containers, ...spec },
});

describe('agent with containerd over CRI', { skip: missing ? `containerd cannot run here: ${missing}` : false }, () => {
  let server: TestServer;
  let containerd: Containerd;
  let client: Client;
  let agent: RunningAgent | undefined;
  let servers: AgentServers;
  let root: string;
  let manifests: string;
  let port: number;
  let startAgent: () => Promise<void>;

  before(async () => {
    // containerd starting under load is the one slow part here: a second try before giving up
    const containerdOnce = () => startContainerd().catch(() => startContainerd());
    [server, containerd] = await Promise.all([startTestServer(), containerdOnce()]);
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    await ensureRootCA(client, server.names.rootCAConfigMap);
    root = containerd.agentRoot;
    manifests = tempDir('agent-cri-manifests-');
    port = await freePort();
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, `--container-runtime-endpoint=${containerd.endpoint}`, '--hostname-override=real-node',
      `--root-dir=${root}`, `--cert-dir=${join(root, 'pki')}`, `--pod-manifest-path=${manifests}`, '--file-check-frequency=300ms',
      '--node-status-update-frequency=500ms', '--address=127.0.0.1', `--port=${port}`, '--read-only-port=0', `--healthz-port=${await freePort()}`,
      '--runtime-request-timeout=30s', '--container-log-max-size=16Ki', '--container-log-max-files=3', `--cgroup-root=${containerd.cgroupRoot}`,
    ]);
    startAgent = async () => {
      agent = await runAgent(options, quiet, { leaseDurationSeconds: 2, relistMs: 200, logCheckMs: 100, containerGcIntervalMs: 1000 });
      servers = await startAgentServers(options, agent.nodes, agent.client);
    };
    await startAgent();
  }, { timeout: 300_000 });

  after(async () => {
    await servers?.close();
    await agent?.stop();
    client?.close();
    await containerd?.stop();
    await server?.close();
    if (manifests) rmSync(manifests, { recursive: true, force: true });
  });

  test('the node is Ready and reports the runtime and its images', async () => {
    const node = await waitFor('node Ready', async () => {
      const n = await client.resource(nodesRef).get('real-node');
      return n.status?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True' && n;
    });
    assert.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
    assert.ok(node.status.images.some((i: any) => i.names.includes(image)));
  });

  test('a bound pod runs a busybox container: Running with the real container id; its log is served', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(hostPod('hello', [{ name: 'main', image, command: ['sh', '-c', 'echo hello from busybox; sleep 3600'] }]));
    const p = await waitFor('Running', async () => {
      const x = await pods.get('hello');
      return x.status?.phase === 'Running' && x;
    }, slow);
    const status = p.status.containerStatuses[0];
    assert.match(status.containerID, /^containerd:\/\/[0-9a-f]{64}$/);
    assert.match(status.imageID, /^sha256:[0-9a-f]{64}$/);
    assert.equal(status.ready, true);
    const running = await agent!.nodes[0]!.runtime.listContainers();
    assert.ok(running.some((c) => `containerd://${c.id}` === status.containerID && c.state === 'running'));
    const log = await waitFor('log', async () => {
      const r = await get(`https://127.0.0.1:${port}/containerLogs/default/hello/main`);
      return r.status === 200 && r.body.includes('hello') && r;
    });
    assert.equal(log.body, 'hello from busybox\n');
    const list = await get(`https://127.0.0.1:${port}/pods`);
    assert.ok(JSON.parse(list.body).items.some((x: any) => x.metadata.name === 'hello'));
    // the image is named as the runtime names it (its tag), as the reference reports it, also when the pod names it by id
    assert.equal(status.image, image);
    await pods.create(hostPod('by-id', [{ name: 'main', image: status.imageID, imagePullPolicy: 'Never', command: ['sleep', '3600'] }]));
    const byId = await waitFor('Running by id', async () => {
      const x = await pods.get('by-id');
      return x.status?.phase === 'Running' && x;
    }, slow);
    assert.equal(byId.status.containerStatuses[0].image, image);
    await pods.delete('by-id', { gracePeriodSeconds: 0 });
  });

  test('image garbage collection removes unused images, keeping those in use and the sandbox image', async () => {
    const runtime = agent!.nodes[0]!.runtime;
    const before = (await runtime.listImages()).flatMap((i) => i.names);
    assert.ok(before.includes('localhost/extra:1'));
    // containerd measures its snapshots every stats_collect_period (1 s here)
    const usage = await waitFor('image filesystem usage', async () => {
      const u = await runtime.imageFsUsage!();
      return u && u.used > 0 && u;
    });
    assert.ok(usage.capacity > usage.used, 'the runtime reports its image filesystem');
    // thresholds that always collect: everything unused and unpinned goes
    const removed = await collectImages(runtime, { highPercent: 0, lowPercent: 0, minAgeMs: 0 }, 'localhost/pause:1', new Map(), () => {});
    const after = (await runtime.listImages()).flatMap((i) => i.names);
    assert.equal(removed.length, 1);
    assert.ok(!after.includes('localhost/extra:1'));
    assert.ok(after.includes(image), 'in use by the running pod');
    assert.ok(after.includes('localhost/pause:1'), 'the sandbox image is pinned');
  });

  test('an image that cannot be pulled leaves the container waiting, then backing off', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(hostPod('no-image', [{ name: 'main', image: 'localhost/missing:1' }]));
    const p = await waitFor('ErrImagePull', async () => {
      const x = await pods.get('no-image');
      const w = x.status?.containerStatuses?.[0]?.state?.waiting;
      return ['ErrImagePull', 'ImagePullBackOff'].includes(w?.reason) && x;
    }, slow);
    assert.equal(p.status.phase, 'Pending');
    assert.match(p.status.containerStatuses[0].state.waiting.message, /missing/);
    await pods.delete('no-image', { gracePeriodSeconds: 0 });
  });

  test('a container that exits is restarted per its policy, then backs off; what it wrote to /dev/termination-log is its message', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(hostPod('crasher', [{ name: 'main', image, command: ['sh', '-c', 'echo attempt; echo out of luck > /dev/termination-log; exit 2'] }]));
    const p = await waitFor('restarted and backing off', async () => {
      const x = await pods.get('crasher');
      const s = x.status?.containerStatuses?.[0];
      return s?.restartCount >= 1 && s.state.waiting?.reason === 'CrashLoopBackOff' && x;
    }, slow);
    assert.equal(p.status.containerStatuses[0].lastState.terminated.exitCode, 2);
    assert.equal(p.status.containerStatuses[0].lastState.terminated.message, 'out of luck\n');
    const previous = await get(`https://127.0.0.1:${port}/containerLogs/default/crasher/main?previous=true`);
    assert.equal(previous.body, 'attempt\n');
  });

  test('a failing liveness probe restarts the container, and so does one that times out; HTTP and gRPC readiness probes make them ready', async () => {
    const pods = client.resource(podsRef, 'default');
    const httpPort = await freePort();
    // a gRPC health server beside the host-network pod: the agent probes it as it would the pod's own
    const health = await healthServer();
    try {
      await pods.create(hostPod('probed', [
        { name: 'sick', image, command: ['sleep', '3600'], livenessProbe: { exec: { command: ['false'] }, periodSeconds: 1, failureThreshold: 1 } },
        { name: 'web', image, command: ['sh', '-c', `echo ok > /tmp/index.html; exec httpd -f -p ${httpPort} -h /tmp`], readinessProbe: { httpGet: { path: '/', port: httpPort }, periodSeconds: 1 } },
        { name: 'slow', image, command: ['sleep', '3600'], livenessProbe: { exec: { command: ['sleep', '30'] }, timeoutSeconds: 1, periodSeconds: 1, failureThreshold: 1 } },
        { name: 'rpc', image, command: ['sleep', '3600'], readinessProbe: { grpc: { port: health.port, service: 'web' }, periodSeconds: 1 } },
      ]));
      const byName = (x: any, name: string) => (x.status?.containerStatuses ?? []).find((c: any) => c.name === name);
      const p = await waitFor('liveness restarts, web and rpc ready', async () => {
        const x = await pods.get('probed');
        return byName(x, 'sick')?.restartCount >= 1 && byName(x, 'slow')?.restartCount >= 1 && byName(x, 'web')?.ready === true && byName(x, 'rpc')?.ready === true && x;
      }, slow);
      assert.equal(byName(p, 'web').restartCount, 0);
      assert.equal(byName(p, 'rpc').restartCount, 0);
    } finally {
      health.close();
    }
  });

  test('deleting a pod stops its container gracefully (the stop signal first), then removes it', async () => {
    const pods = client.resource(podsRef, 'default');
    const out = tempDir('agent-cri-signal-');
    await pods.create(hostPod('doomed', [{
      name: 'main', image, command: ['sh', '-c', 'trap "echo stopped-by-term > /out/signal; exit 0" TERM; while :; do sleep 0.1; done'],
      volumeMounts: [{ name: 'out', mountPath: '/out' }],
    }], { terminationGracePeriodSeconds: 30, volumes: [{ name: 'out', hostPath: { path: out } }] }));
    const p = await waitFor('Running', async () => {
      const x = await pods.get('doomed');
      return x.status?.phase === 'Running' && x;
    }, slow);
    const id = p.status.containerStatuses[0].containerID.replace('containerd://', '');
    await pods.delete('doomed');
    await waitFor('pod removed', async () => pods.get('doomed').then(() => false, (e) => isNotFound(e)), slow);
    assert.equal(readFileSync(join(out, 'signal'), 'utf8'), 'stopped-by-term\n', 'the container got the stop signal and ended on it');
    const runtime = agent!.nodes[0]!.runtime;
    await waitFor('container removed', async () => !(await runtime.listContainers()).some((c) => c.id === id), slow);
    rmSync(out, { recursive: true, force: true });
  });

  test('a static pod from the manifest directory appears as a mirror pod and follows edits', async () => {
    const file = join(manifests, 'static.json');
    const manifest = (word: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'static' }, spec: { hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image, command: ['sh', '-c', `echo ${word}; sleep 3600`] }] } });
    writeFileSync(file, manifest('first'));
    const pods = client.resource(podsRef, 'default');
    const first = await waitFor('mirror Running', async () => {
      const x = await pods.get('static-real-node');
      return x.status?.phase === 'Running' && x.status.containerStatuses?.[0]?.containerID && x;
    }, slow);
    writeFileSync(file, manifest('second'));
    const second = await waitFor('mirror follows the edit', async () => {
      const x = await pods.get('static-real-node');
      const id = x.status?.containerStatuses?.[0]?.containerID;
      return x.spec.containers[0].command[2].includes('second') && x.status?.phase === 'Running' && id && id !== first.status.containerStatuses[0].containerID && x;
    }, slow);
    const log = await waitFor('static log', async () => {
      const r = await get(`https://127.0.0.1:${port}/containerLogs/default/static-real-node/main`);
      return r.body.includes('second') && r;
    });
    assert.equal(log.body, 'second\n');
    assert.ok(second);
  });

  test('container logs are rotated at --container-log-max-size, keeping --container-log-max-files', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(hostPod('chatty', [{ name: 'main', image, command: ['sh', '-c', 'i=0; while true; do echo line $i of a chatty container; i=$((i+1)); sleep 0.002; done'] }]));
    const p = await waitFor('Running', async () => {
      const x = await pods.get('chatty');
      return x.status?.phase === 'Running' && x;
    }, slow);
    const logDir = join(root, 'logs', 'pods', `default_chatty_${p.metadata.uid}`, 'main');
    const files = await waitFor('two rotations', () => {
      const names = readdirSync(logDir);
      return names.filter((n) => n.startsWith('0.log.')).length >= 2 && names;
    }, slow);
    await new Promise((r) => setTimeout(r, 500));
    const now = readdirSync(logDir);
    assert.ok(now.includes('0.log'), `the current file exists (${files.join(' ')})`);
    assert.ok(now.filter((n) => n.startsWith('0.log.')).length <= 2, `at most max-files - 1 rotated files: ${now.join(' ')}`);
    for (const n of now) assert.ok(statSync(join(logDir, n)).size < 16 * 1024 * 4, `${n} stays near the limit`);
    const tail = await get(`https://127.0.0.1:${port}/containerLogs/default/chatty/main?tailLines=1`);
    assert.match(tail.body, /^line \d+ of a chatty container\n$/);
    await pods.delete('chatty', { gracePeriodSeconds: 0 });
  });

  test('a restarted agent takes over the containers it started, and removes sandboxes nobody wants', async () => {
    const pods = client.resource(podsRef, 'default');
    const hello = await pods.get('hello');
    const before = hello.status.containerStatuses[0].containerID;
    const helloDir = join(root, 'pods', hello.metadata.uid);
    assert.ok(existsSync(helloDir));
    await servers.close();
    await agent!.stop();
    // a pod deleted while the agent is away leaves a sandbox behind
    await pods.delete('hello', { gracePeriodSeconds: 0 });
    await pods.create(hostPod('survivor', [{ name: 'main', image, command: ['sleep', '3600'] }]));
    await startAgent();
    const p = await waitFor('survivor Running', async () => {
      const x = await pods.get('survivor');
      return x.status?.phase === 'Running' && x;
    }, slow);
    assert.ok(p.status.containerStatuses[0].containerID);
    const runtime = agent!.nodes[0]!.runtime;
    await waitFor('orphan sandbox removed', async () => !(await runtime.listContainers()).some((c) => `containerd://${c.id}` === before), slow);
    // and its folder (with its volumes' mounts) and cgroup
    await waitFor('orphan folder removed', () => !existsSync(helloDir), slow);
    assert.ok(!readFileSync('/proc/mounts', 'utf8').includes(helloDir));
    await waitFor('orphan cgroup removed', () => !existsSync(`/sys/fs/cgroup/memory${containerd.cgroupRoot}/kubepods/besteffort/pod${hello.metadata.uid}`), slow);
    // the restart changes nothing for a pod that is still wanted
    const second = agent!;
    await servers.close();
    await second.stop();
    await startAgent();
    await new Promise((r) => setTimeout(r, 1000));
    const after = await pods.get('survivor');
    assert.equal(after.status.containerStatuses[0].containerID, p.status.containerStatuses[0].containerID);
    assert.equal(after.status.containerStatuses[0].restartCount, 0);
  });

  test('the node goes NotReady in the API when the agent stops', async () => {
    await servers.close();
    await agent!.stop();
    agent = undefined;
    const node = await client.resource(nodesRef).get('real-node');
    assert.equal(node.status.conditions.find((c: any) => c.type === 'Ready').status, 'Unknown');
  });
});
