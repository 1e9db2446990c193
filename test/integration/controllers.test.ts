// The work the reference's controller manager does that this server does itself: every namespace's default
// service account, the node not-ready taint following the Ready condition, and claim protection lifted when free.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { until } from '../support/wait.js';

// the controllers act as fast as a busy machine lets them: the shared generous deadline, not 4 s
const eventually = (what: string, check: () => Promise<boolean>) => until(check, what);

describe('in-server controllers', () => {
  let server: TestServer;
  let c: Client;
  before(async () => { server = await startTestServer(); c = createClient(server); });
  after(async () => { c.close(); await server.close(); });

  test('a new namespace gets its default service account', async () => {
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'fresh' } } })).status, 201);
    await eventually('the default service account', async () => (await c.get('/api/v1/namespaces/fresh/serviceaccounts/default')).status === 200);
    // a pod created right away is admitted under it
    const pod = await c.request('POST', '/api/v1/namespaces/fresh/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } });
    assert.equal(pod.status, 201, pod.body);
    assert.equal(pod.json.spec.serviceAccountName, 'default');
  });

  test('the not-ready taint follows the node Ready condition', async () => {
    const key = `node.${server.names.labelDomain}/not-ready`;
    const node = await c.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'n1' } } });
    assert.deepEqual(node.json.spec.taints.map((t: any) => t.key), [key], 'registered with the taint');
    // the node lifecycle controller writes the Node too (its taints): a write it got in before is read again
    const setReady = async (status: string) => {
      for (let attempt = 1; ; attempt++) {
        const cur = (await c.get('/api/v1/nodes/n1')).json;
        cur.status = { conditions: [{ type: 'Ready', status, reason: 'Test', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
        const written = await c.request('PUT', '/api/v1/nodes/n1/status', { body: cur });
        if (written.status === 409 && attempt < 20) continue;
        assert.equal(written.status, 200, written.body);
        return;
      }
    };
    const taints = async () => ((await c.get('/api/v1/nodes/n1')).json.spec.taints ?? []).map((t: any) => t.key);
    await setReady('True');
    await eventually('the taint to go', async () => (await taints()).length === 0);
    await setReady('False');
    await eventually('the taint to come back', async () => (await taints()).includes(key));
  });

  test('a pod bound to a node that is already not Ready is marked not ready, with a NodeNotReady event', async () => {
    assert.equal((await c.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'down' } } })).status, 201);
    for (let attempt = 1; ; attempt++) {
      const cur = (await c.get('/api/v1/nodes/down')).json;
      cur.status = { conditions: [{ type: 'Ready', status: 'False', reason: 'Test', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] };
      const written = await c.request('PUT', '/api/v1/nodes/down/status', { body: cur });
      if (written.status === 409 && attempt < 20) continue;
      assert.equal(written.status, 200, written.body);
      break;
    }
    const pods = '/api/v1/namespaces/default/pods';
    assert.equal((await c.request('POST', pods, { body: { metadata: { name: 'late' }, spec: { containers: [{ name: 'c', image: 'x:1' }] } } })).status, 201);
    const pod = (await c.get(`${pods}/late`)).json;
    pod.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    assert.equal((await c.request('PUT', `${pods}/late/status`, { body: pod })).status, 200);
    const bound = await c.request('POST', `${pods}/late/binding`, { body: { metadata: { name: 'late' }, target: { kind: 'Node', name: 'down' } } });
    assert.equal(bound.status, 201, bound.body);
    const ready = async () => (await c.get(`${pods}/late`)).json.status.conditions.find((x: any) => x.type === 'Ready')?.status;
    await eventually('the pod marked not ready', async () => (await ready()) === 'False');
    const events = async () => (await c.get(`/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent('involvedObject.name=late')}`)).json.items as any[];
    await eventually('the NodeNotReady event', async () => (await events()).some((e) => e.reason === 'NodeNotReady' && e.message === 'Node is not ready'));
  });

  test('the node controller tells in events on the node that it registered it and, once deleted, removed it', async () => {
    const node = await c.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'told' } } });
    assert.equal(node.status, 201, node.body);
    // kubectl describe node finds them by the node's kind, name and uid, with no namespace
    const selector = encodeURIComponent(`involvedObject.kind=Node,involvedObject.name=told,involvedObject.uid=${node.json.metadata.uid},involvedObject.namespace=`);
    const events = async () => (await c.get(`/api/v1/events?fieldSelector=${selector}`)).json.items as any[];
    const byReason = async (reason: string) => (await events()).find((e) => e.reason === reason);
    await eventually('RegisteredNode', async () => !!await byReason('RegisteredNode'));
    const registered = await byReason('RegisteredNode');
    assert.equal(registered.message, 'Node told event: Registered Node told in Controller');
    assert.equal(registered.type, 'Normal');
    assert.equal(registered.source.component, 'node-controller');
    assert.equal((await c.request('DELETE', '/api/v1/nodes/told')).status, 200);
    await eventually('RemovingNode', async () => !!await byReason('RemovingNode'));
    assert.equal((await byReason('RemovingNode')).message, 'Node told event: Removing Node told from Controller');
  });

  test('a deleted claim stays while a scheduled pod uses it, and goes when the pod goes; an unscheduled pod holds none', async () => {
    const ns = '/api/v1/namespaces/default';
    const claim = async (name: string) => assert.equal((await c.request('POST', `${ns}/persistentvolumeclaims`, { body: {
      metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } })).status, 201);
    const podUsing = async (name: string, claimName: string, placement: object) => assert.equal((await c.request('POST', `${ns}/pods`, { body: {
      metadata: { name }, spec: { ...placement, containers: [{ name: 'c', image: 'x:1', volumeMounts: [{ name: 'v', mountPath: '/d' }] }],
        volumes: [{ name: 'v', persistentVolumeClaim: { claimName } }] } } })).status, 201);
    await claim('data');
    await podUsing('user', 'data', { nodeName: 'somewhere' });
    // a pod no node will take (as the reference's controller, only pods bound to a node hold a claim)
    await claim('unplaced');
    await podUsing('waiting', 'unplaced', { nodeSelector: { 'no-such-label': 'x' } });
    assert.equal((await c.request('DELETE', `${ns}/persistentvolumeclaims/unplaced`)).status, 200);
    await eventually('the claim of the unscheduled pod to go', async () => (await c.get(`${ns}/persistentvolumeclaims/unplaced`)).status === 404);
    assert.equal((await c.request('DELETE', `${ns}/persistentvolumeclaims/data`)).status, 200);
    const held = await c.get(`${ns}/persistentvolumeclaims/data`);
    assert.equal(held.status, 200, 'the claim is kept while the pod uses it');
    assert.ok(held.json.metadata.deletionTimestamp);
    assert.deepEqual(held.json.metadata.finalizers, [`${server.names.labelDomain}/pvc-protection`]);
    assert.equal((await c.request('DELETE', `${ns}/pods/user`, { body: { gracePeriodSeconds: 0 } })).status, 200);
    await eventually('the claim to go', async () => (await c.get(`${ns}/persistentvolumeclaims/data`)).status === 404);
  });

  test('a bound claim asking for more storage waits for an external resizer, as the expand controller says in an event', async () => {
    const ns = '/api/v1/namespaces/default';
    assert.equal((await c.request('POST', `/apis/${server.names.group('storage')}/v1/storageclasses`, { body: {
      metadata: { name: 'growable' }, provisioner: 'example.com/driver', allowVolumeExpansion: true } })).status, 201);
    assert.equal((await c.request('POST', '/api/v1/persistentvolumes', { body: { metadata: { name: 'growing-pv' }, spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'growable',
      csi: { driver: 'example.com/driver', volumeHandle: 'h1' } } } })).status, 201);
    assert.equal((await c.request('POST', `${ns}/persistentvolumeclaims`, { body: { metadata: { name: 'growing' }, spec: {
      accessModes: ['ReadWriteOnce'], storageClassName: 'growable', volumeName: 'growing-pv', resources: { requests: { storage: '1Gi' } } } } })).status, 201);
    await eventually('the claim bound', async () => (await c.get(`${ns}/persistentvolumeclaims/growing`)).json.status?.phase === 'Bound');
    const grown = await c.request('PATCH', `${ns}/persistentvolumeclaims/growing`, {
      body: { spec: { resources: { requests: { storage: '2Gi' } } } }, contentType: 'application/merge-patch+json' });
    assert.equal(grown.status, 200, grown.body);
    const events = async () => (await c.get(`${ns}/events?fieldSelector=${encodeURIComponent('involvedObject.name=growing')}`)).json.items as any[];
    await eventually('the ExternalExpanding event', async () => (await events()).some((e) => e.reason === 'ExternalExpanding' && e.type === 'Warning'
      && e.source?.component === 'volume_expand' && e.message === 'waiting for an external controller to expand this PVC'));
    assert.equal((await c.get(`${ns}/persistentvolumeclaims/growing`)).json.status.capacity.storage, '1Gi', 'nothing here resizes the volume');
  });

  test('a pod holds the claim of its ephemeral volume only when that claim is its own', async () => {
    const ns = '/api/v1/namespaces/default';
    const template = { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const podWith = async (name: string) => assert.equal((await c.request('POST', `${ns}/pods`, { body: {
      metadata: { name }, spec: { nodeName: 'scratch-host', containers: [{ name: 'c', image: 'x:1', volumeMounts: [{ name: 'scratch', mountPath: '/d' }] }],
        volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }] } } })).status, 201);
    // a node that exists: pods bound to a missing one are collected, which would free any claim
    assert.equal((await c.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'scratch-host' } } })).status, 201);
    // a claim of the same name made by someone else before the pod: the pod does not control it
    const squat = await c.request('POST', `${ns}/persistentvolumeclaims`, { body: { metadata: { name: 'squatted-scratch' }, ...template } });
    assert.equal(squat.status, 201);
    await podWith('squatted');
    await podWith('owner');
    await eventually('the ephemeral claim of the pod', async () => (await c.get(`${ns}/persistentvolumeclaims/owner-scratch`)).status === 200);
    assert.equal((await c.request('DELETE', `${ns}/persistentvolumeclaims/squatted-scratch`)).status, 200);
    assert.equal((await c.request('DELETE', `${ns}/persistentvolumeclaims/owner-scratch`)).status, 200);
    // once it is gone, the pod's own claim of that name is made in its place
    await eventually('the claim the pod does not own to go', async () => (await c.get(`${ns}/persistentvolumeclaims/squatted-scratch`)).json.metadata?.uid !== squat.json.metadata.uid);
    const held = await c.get(`${ns}/persistentvolumeclaims/owner-scratch`);
    assert.equal(held.status, 200, 'the pod\'s own ephemeral claim is kept while the pod runs');
    assert.ok(held.json.metadata.deletionTimestamp);
  });
});
