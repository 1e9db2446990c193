// The endpoints of Services: the Endpoints and EndpointSlice controllers follow the selected pods' addresses,
// readiness and termination, resolve named ports per pod and serve headless Services; the server's own Service
// in default leads to the server; every namespace has the root-CA ConfigMap that pods' token volumes read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { until } from '../support/wait.js';

const ns = '/api/v1/namespaces/default';

describe('endpoints', () => {
  let server: TestServer;
  let c: Client;
  let slicesPath: string;
  before(async () => {
    server = await startTestServer({ flags: ['--max-endpoints-per-slice=2'] });
    c = createClient(server);
    slicesPath = `/apis/discovery.${server.names.domain}/v1/namespaces/default/endpointslices`;
    // the node the pods are bound to (pods of a node that does not exist are collected)
    assert.equal((await c.request('POST', '/api/v1/nodes', { body: { metadata: { name: 'n1' } } })).status, 201);
  });
  after(async () => { c.close(); await server.close(); });

  const created = async (path: string, body: unknown) => {
    const r = await c.request('POST', path, { body });
    assert.equal(r.status, 201, r.body);
    return r.json;
  };
  /** a pod as an agent would report it: bound, running, with an address and the given readiness */
  const runPod = async (name: string, labels: Record<string, string>, ip: string, ready: boolean, extra: Record<string, unknown> = {}) => {
    const pod = await created(`${ns}/pods`, { metadata: { name, labels }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x:1', ports: [{ name: 'web', containerPort: 8080 }] }], ...extra } });
    await setStatus(name, ip, ready, pod);
  };
  const setStatus = async (name: string, ip: string, ready: boolean, pod?: any) => {
    pod ??= (await c.get(`${ns}/pods/${name}`)).json;
    const r = await c.request('PUT', `${ns}/pods/${name}/status`, { body: { ...pod, status: {
      phase: 'Running', podIP: ip, podIPs: [{ ip }],
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }, { type: 'ContainersReady', status: ready ? 'True' : 'False' }],
    } } });
    assert.equal(r.status, 200, r.body);
  };
  const endpoints = async (name: string) => (await c.get(`${ns}/endpoints/${name}`)).json;
  const slices = async (service: string) =>
    (await c.get(`${slicesPath}?labelSelector=${encodeURIComponent(`${server.names.label('service-name')}=${service}`)}`)).json.items as any[];
  const sliceEndpoints = async (service: string) => (await slices(service)).flatMap((s) => s.endpoints ?? [])
    .map((e: any) => ({ ip: e.addresses[0], ...e.conditions })).sort((a: any, b: any) => a.ip.localeCompare(b.ip));

  test('Endpoints list ready and not-ready pods, named ports resolved per pod', async () => {
    await created(`${ns}/services`, { metadata: { name: 'web', labels: { tier: 'front' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'web' }] } });
    await runPod('web-1', { app: 'web' }, '10.1.0.1', true);
    await runPod('web-2', { app: 'web' }, '10.1.0.2', false);
    await runPod('other', { app: 'other' }, '10.1.0.9', true);
    await until(async () => (await endpoints('web'))?.subsets?.[0]?.notReadyAddresses?.length === 1, 'the endpoints of web');
    const ep = await endpoints('web');
    assert.equal(ep.metadata.labels.tier, 'front', 'the Service labels are copied');
    assert.deepEqual(ep.subsets, [{
      addresses: [{ ip: '10.1.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: ep.subsets[0].addresses[0].targetRef.uid } }],
      notReadyAddresses: [{ ip: '10.1.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-2', uid: ep.subsets[0].notReadyAddresses[0].targetRef.uid } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    }]);
    // readiness flips: the addresses follow
    await setStatus('web-2', '10.1.0.2', true);
    await until(async () => (await endpoints('web')).subsets?.[0]?.addresses?.length === 2, 'web-2 to become a ready address');
  });

  test('EndpointSlices carry ready, serving and terminating, and split at --max-endpoints-per-slice', async () => {
    await until(async () => JSON.stringify(await sliceEndpoints('web')) === JSON.stringify([
      { ip: '10.1.0.1', ready: true, serving: true, terminating: false },
      { ip: '10.1.0.2', ready: true, serving: true, terminating: false },
    ]), 'both web endpoints ready in the slices');
    const [slice] = await slices('web');
    assert.equal(slice.metadata.labels[`endpointslice.${server.names.labelDomain}/managed-by`], `endpointslice-controller.${server.names.domain}`);
    assert.equal(slice.metadata.ownerReferences[0].kind, 'Service');
    assert.deepEqual(slice.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    await runPod('web-3', { app: 'web' }, '10.1.0.3', true);
    await until(async () => (await sliceEndpoints('web')).length === 3 && (await slices('web')).length === 2, 'a second slice for the third endpoint');
    // a pod with a finalizer stays while terminating: not ready, still serving, terminating
    await c.request('PATCH', `${ns}/pods/web-1`, { body: { metadata: { finalizers: ['test/hold'] } }, contentType: 'application/merge-patch+json' });
    assert.equal((await c.request('DELETE', `${ns}/pods/web-1`, { body: { gracePeriodSeconds: 0 } })).status, 200);
    await until(async () => (await sliceEndpoints('web')).some((e: any) => e.ip === '10.1.0.1' && e.terminating && e.serving && !e.ready),
      'web-1 terminating in the slices');
    // and the Endpoints object leaves it out
    await until(async () => !JSON.stringify((await endpoints('web')).subsets).includes('10.1.0.1'), 'web-1 out of the Endpoints');
    await c.request('PATCH', `${ns}/pods/web-1`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await until(async () => (await sliceEndpoints('web')).length === 2, 'web-1 gone from the slices');
  });

  test('a headless Service without ports lists addresses with hostnames; a deleted Service loses its Endpoints', async () => {
    await created(`${ns}/services`, { metadata: { name: 'db' }, spec: { clusterIP: 'None', selector: { app: 'db' } } });
    await runPod('db-0', { app: 'db' }, '10.1.1.1', true, { hostname: 'db-0', subdomain: 'db' });
    await until(async () => (await endpoints('db'))?.subsets?.[0]?.addresses?.length === 1, 'the endpoints of db');
    const ep = await endpoints('db');
    assert.equal(ep.subsets[0].addresses[0].hostname, 'db-0');
    assert.equal(ep.subsets[0].ports, undefined);
    assert.equal(ep.metadata.labels[`service.${server.names.labelDomain}/headless`], '');
    await until(async () => (await sliceEndpoints('db')).length === 1, 'the slice of db');
    assert.equal((await slices('db'))[0].endpoints[0].hostname, 'db-0');
    assert.equal((await c.request('DELETE', `${ns}/services/db`)).status, 200);
    await until(async () => (await c.get(`${ns}/endpoints/db`)).status === 404, 'the endpoints of db to go');
  });

  test('Endpoints and EndpointSlices carry the time of the change that made them: a pod turning ready', async () => {
    const annotation = `endpoints.${server.names.labelDomain}/last-change-trigger-time`;
    const svc = await created(`${ns}/services`, { metadata: { name: 'timed' }, spec: { selector: { app: 'timed' }, ports: [{ port: 80 }] } });
    // the first Endpoints stem from the Service's creation
    await until(async () => (await endpoints('timed'))?.metadata?.annotations?.[annotation] !== undefined, 'the first endpoints of timed');
    assert.equal(Date.parse((await endpoints('timed')).metadata.annotations[annotation]), Date.parse(svc.metadata.creationTimestamp));
    const pod = await created(`${ns}/pods`, { metadata: { name: 'timed-1', labels: { app: 'timed' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x:1' }] } });
    const readySince = '2030-01-02T03:04:05Z';
    const r = await c.request('PUT', `${ns}/pods/timed-1/status`, { body: { ...pod, status: {
      phase: 'Running', podIP: '10.1.3.1', podIPs: [{ ip: '10.1.3.1' }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }],
    } } });
    assert.equal(r.status, 200, r.body);
    await until(async () => (await endpoints('timed')).subsets?.[0]?.addresses?.length === 1, 'timed-1 in the endpoints');
    assert.equal((await endpoints('timed')).metadata.annotations[annotation], readySince);
    await until(async () => (await sliceEndpoints('timed')).length === 1, 'timed-1 in the slices');
    assert.equal((await slices('timed'))[0].metadata.annotations?.[annotation], readySince);
  });

  test('a Service without pods keeps one empty slice', async () => {
    await created(`${ns}/services`, { metadata: { name: 'empty' }, spec: { selector: { app: 'none' }, ports: [{ port: 80 }] } });
    await until(async () => (await slices('empty')).length === 1, 'the placeholder slice');
    assert.deepEqual((await slices('empty'))[0].endpoints ?? [], []);
    assert.deepEqual((await endpoints('empty')).subsets ?? [], []);
  });

  test('the Endpoints of a Service without a selector are mirrored to EndpointSlices', async () => {
    const mirrorLabel = `endpointslicemirroring-controller.${server.names.domain}`;
    const managedBy = `endpointslice.${server.names.labelDomain}/managed-by`;
    await created(`${ns}/services`, { metadata: { name: 'outside' }, spec: { ports: [{ name: 'pg', port: 5432 }] } });
    const ep = await created(`${ns}/endpoints`, { metadata: { name: 'outside', labels: { team: 'data' }, annotations: { note: 'db' } }, subsets: [{
      addresses: [{ ip: '192.0.2.10', hostname: 'a' }, { ip: '2001:db8::10' }], notReadyAddresses: [{ ip: '192.0.2.11' }],
      ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    }] });
    const mirrored = async () => (await slices('outside')).filter((s) => s.metadata.labels[managedBy] === mirrorLabel)
      .sort((a, b) => a.addressType.localeCompare(b.addressType));
    await until(async () => (await mirrored()).length === 2, 'an IPv4 and an IPv6 mirrored slice');
    const [v4, v6] = await mirrored();
    assert.equal(v4.addressType, 'IPv4');
    assert.deepEqual(v4.endpoints.map((e: any) => [e.addresses[0], e.conditions.ready, e.hostname]).sort(), [['192.0.2.10', true, 'a'], ['192.0.2.11', false, undefined]]);
    assert.deepEqual(v4.ports, [{ name: 'pg', port: 5432, protocol: 'TCP' }]);
    assert.equal(v4.metadata.labels.team, 'data', 'the Endpoints labels are copied');
    assert.equal(v4.metadata.annotations.note, 'db', 'and its annotations');
    assert.deepEqual(v4.metadata.ownerReferences.map((r: any) => [r.kind, r.name, r.uid, r.controller]), [['Endpoints', 'outside', ep.metadata.uid, true]]);
    assert.deepEqual(v6.endpoints.map((e: any) => e.addresses[0]), ['2001:db8::10']);
    // the slices follow the Endpoints
    const cur = (await c.get(`${ns}/endpoints/outside`)).json;
    assert.equal((await c.request('PUT', `${ns}/endpoints/outside`, { body: { ...cur, subsets: [{ addresses: [{ ip: '192.0.2.12' }], ports: [{ name: 'pg', port: 5433, protocol: 'TCP' }] }] } })).status, 200);
    await until(async () => {
      const now = await mirrored();
      return now.length === 1 && now[0].endpoints?.[0]?.addresses[0] === '192.0.2.12' && now[0].ports[0].port === 5433;
    }, 'the mirrored slices to follow the update');
    // skip-mirror: the slices go
    const again = (await c.get(`${ns}/endpoints/outside`)).json;
    again.metadata.labels[`endpointslice.${server.names.labelDomain}/skip-mirror`] = 'true';
    assert.equal((await c.request('PUT', `${ns}/endpoints/outside`, { body: again })).status, 200);
    await until(async () => (await mirrored()).length === 0, 'the mirrored slices to go with skip-mirror');
    // Endpoints of a Service with a selector are the endpoint controllers', not mirrored
    assert.equal((await mirrored()).length, 0);
    assert.equal((await slices('web')).some((s) => s.metadata.labels[managedBy] === mirrorLabel), false);
  });

  test("the server's own Service in default leads to the server", async () => {
    const svc = (await c.get(`${ns}/services/${server.names.vendor}`)).json;
    assert.equal(svc.spec.clusterIP, '10.0.0.1');
    assert.deepEqual(svc.spec.ports.map((p: any) => [p.name, p.port, p.targetPort]), [['https', 443, server.port]]);
    const ep = await endpoints(server.names.vendor);
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
    const [slice] = await slices(server.names.vendor);
    assert.deepEqual(slice.endpoints.map((e: any) => e.addresses[0]), ['127.0.0.1']);
  });

  test('every namespace has the root-CA ConfigMap, and pods read it through their token volume', async () => {
    const name = server.names.rootCAConfigMap;
    for (const namespace of [...server.names.initialNamespaces, 'later']) {
      if (namespace === 'later') await created('/api/v1/namespaces', { metadata: { name: 'later' } });
      await until(async () => (await c.get(`/api/v1/namespaces/${namespace}/configmaps/${name}`)).status === 200, `${name} in ${namespace}`);
      assert.equal((await c.get(`/api/v1/namespaces/${namespace}/configmaps/${name}`)).json.data['ca.crt'], server.caCertPem);
    }
    // deleted or altered, it comes back
    assert.equal((await c.request('DELETE', `/api/v1/namespaces/later/configmaps/${name}`)).status, 200);
    await until(async () => (await c.get(`/api/v1/namespaces/later/configmaps/${name}`)).status === 200, `${name} to come back`);
    const pod = await created(`${ns}/pods`, { metadata: { name: 'reader' }, spec: { containers: [{ name: 'c', image: 'x:1' }] } });
    const volume = pod.spec.volumes.find((v: any) => v.name.startsWith(server.names.serviceAccountVolumePrefix));
    assert.ok(volume.projected.sources.some((s: any) => s.configMap?.name === name), JSON.stringify(volume));
  });
});
