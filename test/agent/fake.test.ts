// The agent in fake mode against a real API server: registration, status, lease, pods to Running,
// exits and restarts by annotation, graceful deletion, static pods as mirror pods, NotReady on stop.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions, fakeAnnotation } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { leasesRef, nodesRef } from '../../src/agent/node-status.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { pod, tempDir, waitFor, ensureDefaultServiceAccount, quiet } from './helpers.js';


describe('agent with the fake runtime', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let root: string;
  let manifests: string;

  before(async () => {
    server = await startTestServer();
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    root = tempDir('agent-fake-');
    manifests = tempDir('agent-manifests-');
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--hostname-override=node-a', `--root-dir=${root}`,
      '--node-status-update-frequency=200ms', '--node-labels=team=blue', '--register-with-taints=dedicated=test:NoSchedule',
      `--pod-manifest-path=${manifests}`, '--file-check-frequency=200ms', '--system-reserved=memory=1Gi',
    ]);
    agent = await runAgent(options, quiet, { leaseDurationSeconds: 1, relistMs: 50 });
  });

  after(async () => {
    await agent?.stop();
    client?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  test('registers the node with labels, taints, capacity and allocatable, and Ready', async () => {
    const node = await waitFor('node Ready', async () => {
      const n = await client.resource(nodesRef).get('node-a');
      return n.status?.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True' && n;
    });
    const label = server.names.label('hostname');
    assert.equal(node.metadata.labels[label], 'node-a');
    assert.equal(node.metadata.labels.team, 'blue');
    // (the TaintNodesByCondition admission plugin may add its not-ready taint beside ours)
    assert.deepEqual(node.spec.taints.filter((t: any) => t.key === 'dedicated'), [{ key: 'dedicated', value: 'test', effect: 'NoSchedule' }]);
    assert.equal(node.status.capacity.pods, '110');
    // the agent reports kibibytes; the server stores quantities in canonical form, as the reference does
    assert.equal(node.status.capacity.memory, '32Gi');
    // 32 GiB less 1 GiB reserved less the 100Mi hard eviction threshold
    assert.equal(node.status.allocatable.memory, '31644Mi');
    assert.deepEqual(node.status.conditions.map((c: any) => c.type).sort(), ['DiskPressure', 'MemoryPressure', 'PIDPressure', 'Ready']);
    assert.equal(node.status.nodeInfo.containerRuntimeVersion, 'fake://1.0.0');
    assert.ok(node.status.addresses.some((a: any) => a.type === 'Hostname' && a.address === 'node-a'));
  });

  test('renews its lease in the node-lease namespace', async () => {
    const leases = client.resource(leasesRef(server.names), server.names.nodeLeaseNamespace);
    const first = await waitFor('lease', () => leases.get('node-a'));
    assert.equal(first.spec.holderIdentity, 'node-a');
    const renewed = await waitFor('renewed lease', async () => {
      const l = await leases.get('node-a');
      return l.spec.renewTime !== first.spec.renewTime && l;
    });
    assert.ok(Date.parse(renewed.spec.renewTime) > Date.parse(first.spec.renewTime));
  });

  test('runs a bound pod: Running with container ids, Ready conditions', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(pod('web', 'node-a'));
    const running = await waitFor('pod Running', async () => {
      const p = await pods.get('web');
      return p.status?.phase === 'Running' && p.status.conditions?.find((c: any) => c.type === 'Ready')?.status === 'True' && p;
    });
    const [status] = running.status.containerStatuses;
    assert.match(status.containerID, /^fake:\/\/node-a\/.+\/main\/0$/);
    assert.equal(status.ready, true);
    assert.equal(status.restartCount, 0);
    assert.ok(status.state.running.startedAt);
    const events = await waitFor('events', async () => {
      const list = await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list();
      const mine = list.items.filter((e: any) => e.involvedObject.uid === running.metadata.uid);
      return mine.length >= 4 && mine;
    });
    // the first pod with its image on the node pulls it; listed in the order they were recorded
    assert.deepEqual(events.map((e: any) => e.reason), ['Pulling', 'Pulled', 'Created', 'Started']);
    assert.equal(events[0].message, 'Pulling image "busybox"');
    assert.match(events[1].message, /^Successfully pulled image "busybox" in (\d+(\.\d+)?m?s) \(\1 including waiting\)$/);
    assert.equal(events[0].involvedObject.fieldPath, 'spec.containers{main}');
    assert.equal(events[0].source.host, 'node-a');
    // with a tag the policy is IfNotPresent (without one, Always: every pod pulls): a second pod finds the image present
    const reasons = async (name: string, count: number) => waitFor(`events of ${name}`, async () => {
      const list = await client.resource({ group: '', version: 'v1', resource: 'events' }, 'default').list({ fieldSelector: `involvedObject.name=${name}` });
      return list.items.length >= count && list.items.map((e: any) => [e.reason, e.message]);
    });
    const tagged = [{ name: 'main', image: 'busybox:1.36' }];
    await pods.create(pod('tagged-1', 'node-a', { containers: tagged }));
    assert.deepEqual((await reasons('tagged-1', 4)).map(([reason]: string[]) => reason), ['Pulling', 'Pulled', 'Created', 'Started']);
    await pods.create(pod('tagged-2', 'node-a', { containers: tagged }));
    assert.deepEqual(await reasons('tagged-2', 3), [
      ['Pulled', 'Container image "busybox:1.36" already present on machine'], ['Created', 'Created container main'], ['Started', 'Started container main'],
    ]);
    await Promise.all(['tagged-1', 'tagged-2'].map((name) => pods.delete(name)));
  });

  test('exec in a simulated container finds what its service-account mount holds: a bound token that authenticates, ca.crt, namespace', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(pod('identity', 'node-a'));
    const running = await waitFor('pod Running', async () => {
      const p = await pods.get('identity');
      return p.status?.phase === 'Running' && p;
    });
    const idOf = (name: string) => running.status.containerStatuses.find((c: any) => c.name === name).containerID.replace(/^fake:\/\//, '');
    const dir = `/var/run/secrets/${server.names.labelDomain}/serviceaccount`;
    const read = async (path: string) => {
      const r = await agent.nodes[0]!.runtime.execSync(idOf('main'), ['cat', path], 10);
      assert.equal(r.exitCode, 0, `cat ${path}: ${r.stderr}`);
      return r.stdout;
    };
    assert.equal(await read(`${dir}/namespace`), 'default');
    assert.equal(await read(`${dir}/ca.crt`), server.caCertPem);
    const token = await read(`${dir}/token`);
    const group = server.names.group('authentication');
    const review = await client.resource({ group, version: 'v1', resource: 'tokenreviews' }).create({ apiVersion: `${group}/v1`, kind: 'TokenReview', spec: { token } });
    assert.equal(review.status.authenticated, true, review.status.error);
    assert.equal(review.status.user.username, 'system:serviceaccount:default:default');
    assert.deepEqual(review.status.user.extra[`authentication.${server.names.labelDomain}/pod-uid`], [running.metadata.uid]);
    await pods.delete('identity');
  });

  test('a container that exits is restarted per its policy; Never leaves the pod Failed', async () => {
    const pods = client.resource(podsRef, 'default');
    const exit = { [fakeAnnotation(server.names, 'run-for')]: '50ms', [fakeAnnotation(server.names, 'exit-code')]: '3' };
    await pods.create(pod('crash', 'node-a', { annotations: exit }));
    await pods.create(pod('once', 'node-a', { annotations: exit, spec: { restartPolicy: 'Never' } }));
    const restarted = await waitFor('restart', async () => {
      const p = await pods.get('crash');
      return p.status?.containerStatuses?.[0]?.restartCount >= 1 && p;
    });
    assert.equal(restarted.status.containerStatuses[0].lastState.terminated.exitCode, 3);
    const failed = await waitFor('Failed', async () => {
      const p = await pods.get('once');
      return p.status?.phase === 'Failed' && p;
    });
    assert.equal(failed.status.containerStatuses[0].state.terminated.exitCode, 3);
    assert.equal(failed.status.containerStatuses[0].restartCount, 0);
  });

  test('a failing liveness probe restarts the container; a failing readiness probe keeps it unready', async () => {
    const pods = client.resource(podsRef, 'default');
    const probe = { exec: { command: ['true'] }, periodSeconds: 1, failureThreshold: 1 };
    await pods.create(pod('sick', 'node-a', { annotations: { [fakeAnnotation(server.names, 'liveness')]: 'fail' }, containers: [{ name: 'main', image: 'busybox', livenessProbe: probe }] }));
    await pods.create(pod('shy', 'node-a', { annotations: { [fakeAnnotation(server.names, 'ready')]: 'false' }, containers: [{ name: 'main', image: 'busybox', readinessProbe: probe }] }));
    await waitFor('liveness restart', async () => (await pods.get('sick')).status?.containerStatuses?.[0]?.restartCount >= 1);
    const shy = await waitFor('shy running', async () => {
      const p = await pods.get('shy');
      return p.status?.phase === 'Running' && p;
    });
    await new Promise((r) => setTimeout(r, 300));
    const again = await pods.get('shy');
    assert.equal(again.status.containerStatuses[0].ready, false);
    assert.equal(again.status.conditions.find((c: any) => c.type === 'Ready').status, 'False');
    assert.ok(shy);
  });

  test('a pod with a readiness gate is Ready once the gate\'s condition is True, and says which gate holds it until then', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(pod('gated', 'node-a', { spec: { readinessGates: [{ conditionType: 'example.com/lb' }] } }));
    const readyOf = (p: any) => p.status?.conditions?.find((c: any) => c.type === 'Ready');
    const held = await waitFor('running, held by its gate', async () => {
      const p = await pods.get('gated');
      return p.status?.phase === 'Running' && readyOf(p)?.reason === 'ReadinessGatesNotReady' && p;
    });
    assert.equal(readyOf(held).message, 'corresponding condition of pod readiness gate "example.com/lb" does not exist.');
    // what a load-balancer controller does: it sets the gate's condition through the status subresource
    const lb = { type: 'example.com/lb', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    await pods.status.patch('gated', { status: { conditions: [...held.status.conditions, lb] } }, 'merge');
    const ready = await waitFor('Ready', async () => {
      const p = await pods.get('gated');
      return readyOf(p)?.status === 'True' && p;
    });
    assert.ok(ready.status.conditions.some((c: any) => c.type === 'example.com/lb' && c.status === 'True'));
    await pods.delete('gated');
  });

  test('pods with unsafe sysctls are refused; safe ones run', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(pod('unsafe', 'node-a', { spec: { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] } } }));
    await pods.create(pod('safe', 'node-a', { spec: { securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } } }));
    const refused = await waitFor('refused', async () => {
      const p = await pods.get('unsafe');
      return p.status?.phase === 'Failed' && p;
    });
    assert.equal(refused.status.reason, 'SysctlForbidden');
    assert.match(refused.status.message, /net\.core\.somaxconn/);
    // as every status the reference's agent writes, the refusal has a start time
    assert.ok(Date.parse(refused.status.startTime) >= Date.parse(refused.metadata.creationTimestamp), JSON.stringify(refused.status));
    await waitFor('safe Running', async () => (await pods.get('safe')).status?.phase === 'Running');
  });

  test('deleting a pod: the agent stops its containers, reports their end, and removes it', async () => {
    const pods = client.resource(podsRef, 'default');
    await pods.create(pod('doomed', 'node-a'));
    await waitFor('Running', async () => (await pods.get('doomed')).status?.phase === 'Running');
    // what a watcher (kubectl get -w) sees: the containers' end is written before the pod goes
    const stop = new AbortController();
    const { resourceVersion } = (await pods.list({ fieldSelector: 'metadata.name=doomed' })).metadata;
    const seen: any[] = [];
    const watching = (async () => {
      for await (const e of pods.watch({ fieldSelector: 'metadata.name=doomed', resourceVersion, signal: stop.signal })) {
        seen.push(e);
        if (e.type === 'DELETED') break;
      }
    })().catch(() => undefined);
    const deleting = await pods.delete('doomed');
    assert.ok(deleting?.metadata?.deletionTimestamp, 'a bound pod is deleted gracefully');
    await waitFor('pod gone', async () => {
      try {
        await pods.get('doomed');
        return false;
      } catch (e) {
        return (e as any).code === 404;
      }
    });
    assert.ok(!agent.nodes[0]!.workers.pods().some((x) => x.pod.metadata.name === 'doomed'));
    await waitFor('the watch saw the pod go', async () => seen.some((e) => e.type === 'DELETED'));
    stop.abort();
    await watching;
    const gone = seen.find((e) => e.type === 'DELETED').object;
    assert.ok(gone.status.containerStatuses[0].state.terminated, JSON.stringify(gone.status.containerStatuses));
  });

  test('a static pod appears as a mirror pod and follows edits of its file', async () => {
    const file = join(manifests, 'static.yaml');
    const manifest = (image: string) => `apiVersion: v1\nkind: Pod\nmetadata:\n  name: static-web\nspec:\n  containers:\n  - name: web\n    image: ${image}\n`;
    writeFileSync(file, manifest('busybox:1'));
    const pods = client.resource(podsRef, 'default');
    const mirrorKey = server.names.label('config.mirror');
    const mirror = await waitFor('mirror pod Running', async () => {
      const p = await pods.get('static-web-node-a');
      return p.status?.phase === 'Running' && p;
    });
    assert.ok(mirror.metadata.annotations[mirrorKey]);
    assert.equal(mirror.metadata.ownerReferences?.[0]?.kind, 'Node');
    writeFileSync(file, manifest('busybox:2'));
    const edited = await waitFor('mirror pod follows the edit', async () => {
      const p = await pods.get('static-web-node-a');
      return p.spec.containers[0].image === 'busybox:2' && p.status?.phase === 'Running' && p;
    });
    assert.notEqual(edited.metadata.annotations[mirrorKey], mirror.metadata.annotations[mirrorKey]);
    unlinkSync(file);
    await waitFor('mirror pod removed', async () => {
      try {
        await pods.get('static-web-node-a');
        return false;
      } catch (e) {
        return (e as any).code === 404;
      }
    });
  });

  test('the node goes NotReady when the agent stops', async () => {
    await agent.stop();
    const node = await client.resource(nodesRef).get('node-a');
    const ready = node.status.conditions.find((c: any) => c.type === 'Ready');
    assert.equal(ready.status, 'Unknown');
    assert.equal(ready.reason, 'NodeStatusUnknown');
    agent = undefined as never;
  });
});
