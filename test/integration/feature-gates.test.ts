// Feature gates that gate: each gate whose behaviour the server has, seen with the gate on and with it off, and
// GA gates refusing false.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { waitFor } from '../support/wait.js';
import { apiServerIdentity } from '../../src/main/identity-lease.js';

const gates = ['WatchList', 'APIListChunking', 'RemainingItemCount', 'APIResponseCompression', 'AggregatedDiscoveryEndpoint',
  'APISelfSubjectReview', 'ValidatingAdmissionPolicy', 'CustomResourceValidationExpressions', 'APIServerIdentity'];

describe('feature gates', { concurrency: 1 }, () => {
  const servers: Record<'on' | 'off', { server: TestServer; c: Client }> = {} as never;
  before(async () => {
    for (const state of ['on', 'off'] as const) {
      const server = await startTestServer({
        apiDomain: 'k8s.io',
        // the root-CA publisher would add a ConfigMap to the namespace the lists below count
        flags: [`--feature-gates=${gates.map(g => `${g}=${state === 'on'}`).join(',')}`, '--runtime-config=admissionregistration.k8s.io/v1alpha1=true', '--controller-manager=false'],
      });
      const c = createClient(server);
      servers[state] = { server, c };
      await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'g' } } });
      for (let i = 0; i < 3; i++) await c.request('POST', '/api/v1/namespaces/g/configmaps', { body: { metadata: { name: `cm${i}` }, data: { big: 'x'.repeat(60_000) } } });
    }
  });
  after(async () => {
    for (const s of Object.values(servers)) { s.c.close(); await s.server.close(); }
  });
  const each = async (f: (c: Client, on: boolean) => Promise<void>) => { for (const [state, s] of Object.entries(servers)) await f(s.c, state === 'on'); };

  test('WatchList: sendInitialEvents is a 422 on ListOptions without it, as the reference answers', async () => {
    await each(async (c, on) => {
      const w = await c.watch('/api/v1/namespaces/g/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan');
      if (on) { assert.equal(w.status, 200); assert.equal((await w.next())?.type, 'ADDED'); } else {
        assert.equal(w.status, 422);
        await w.ended;
        assert.match(w.errorBody.message, /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled/);
      }
      w.close();
    });
  });

  test('APIListChunking and RemainingItemCount: limit pages the list and counts what is left only with them', async () => {
    await each(async (c, on) => {
      const page = (await c.get('/api/v1/namespaces/g/configmaps?limit=1')).json;
      assert.equal(page.items.length, on ? 1 : 3);
      assert.equal(page.metadata.continue !== undefined, on);
      assert.equal(page.metadata.remainingItemCount, on ? 2 : undefined);
    });
  });

  test('APIResponseCompression: large responses are gzipped only with it', async () => {
    await each(async (c, on) => {
      const r = await c.get('/api/v1/namespaces/g/configmaps', { 'accept-encoding': 'gzip' });
      assert.equal(r.headers['content-encoding'], on ? 'gzip' : undefined);
      assert.equal(r.json.items.length, 3);
    });
  });

  test('AggregatedDiscoveryEndpoint: /apis answers the aggregated form only with it', async () => {
    await each(async (c, on) => {
      const r = await c.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json' });
      assert.equal(r.json.kind, on ? 'APIGroupDiscoveryList' : 'APIGroupList');
    });
  });

  test('APISelfSubjectReview and ValidatingAdmissionPolicy: their resources are served only with them', async () => {
    await each(async (c, on) => {
      const review = await c.request('POST', '/apis/authentication.k8s.io/v1beta1/selfsubjectreviews', { body: { apiVersion: 'authentication.k8s.io/v1beta1', kind: 'SelfSubjectReview' } });
      assert.equal(review.status, on ? 201 : 404, review.body);
      assert.equal((await c.get('/apis/admissionregistration.k8s.io/v1alpha1/validatingadmissionpolicies')).status, on ? 200 : 404);
    });
  });

  test('CustomResourceValidationExpressions: x-kubernetes-validations are evaluated only with it', async () => {
    await each(async (c, on) => {
      const crd = await c.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: {
          metadata: { name: 'gadgets.example.com' },
          spec: {
            group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
            versions: [{
              name: 'v1', served: true, storage: true, schema: {
                openAPIV3Schema: {
                  type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.size < 10', message: 'too big' }] } },
                },
              },
            }],
          },
        },
      });
      assert.equal(crd.status, 201, crd.body);
      let r;
      for (let i = 0; i < 100; i++) {
        r = await c.request('POST', '/apis/example.com/v1/namespaces/g/gadgets', { body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: `big${i}` }, spec: { size: 20 } } });
        if (r.status !== 404) break;
        await new Promise(res => setTimeout(res, 50));
      }
      assert.equal(r!.status, on ? 422 : 201, r!.body);
      if (on) assert.match(r!.body, /too big/);
    });
  });

  test('APIServerIdentity: the server keeps its identity Lease in kube-system only with it; expired ones of servers gone are deleted', async () => {
    const leases = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';
    const selector = `?labelSelector=${encodeURIComponent('apiserver.kubernetes.io/identity=kube-apiserver')}`;
    const name = apiServerIdentity(hostname());
    assert.match(name, /^kube-apiserver-[a-z2-7]{26}$/);
    const lease = await waitFor('the identity lease', async () => (await servers.on.c.get(`${leases}/${name}`)).json?.spec && (await servers.on.c.get(`${leases}/${name}`)).json);
    assert.deepEqual(lease.metadata.labels, { 'apiserver.kubernetes.io/identity': 'kube-apiserver', 'kubernetes.io/hostname': hostname() });
    assert.match(lease.spec.holderIdentity, new RegExp(`^${name}_[0-9a-f-]{36}$`));
    assert.equal(lease.spec.leaseDurationSeconds, 3600);
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual((await servers.off.c.get(`${leases}${selector}`)).json.items, []);
    // a server gone an hour and more ago, and one still alive elsewhere: a server started next deletes only the first
    const other = (n: string, renewed: Date) => ({ metadata: { name: n, labels: { 'apiserver.kubernetes.io/identity': 'kube-apiserver' } },
      spec: { holderIdentity: `${n}_x`, leaseDurationSeconds: 3600, renewTime: renewed.toISOString().replace('Z', '000Z') } });
    for (const [n, at] of [['kube-apiserver-gone', new Date(Date.now() - 2 * 3600_000)], ['kube-apiserver-alive', new Date()]] as const) {
      const r = await servers.on.c.request('POST', leases, { body: other(n, at) });
      assert.equal(r.status, 201, r.body);
    }
    const next = await servers.on.server.fork();
    const c = createClient(next);
    try {
      const names = await waitFor('the expired lease deleted', async () => {
        const items: string[] = (await c.get(`${leases}${selector}`)).json.items.map((l: { metadata: { name: string } }) => l.metadata.name);
        return !items.includes('kube-apiserver-gone') && items;
      });
      assert.deepEqual(names.sort(), ['kube-apiserver-alive', name].sort());
    } finally {
      c.close();
      await next.close();
    }
  });

  test('a GA gate refuses false', async () => {
    await assert.rejects(startTestServer({ flags: ['--feature-gates=ServerSideApply=false'] }), /cannot set feature gate ServerSideApply to false/);
  });
});
