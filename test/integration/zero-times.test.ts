// Times the reference always writes: a core Event's eventTime, firstTimestamp and lastTimestamp (structs without
// omitempty, null while unset, beside an empty source and empty reporting fields), the events/v1 form's deprecated
// times, and the creationTimestamp of embedded metadata (pod, job and claim templates). Raw JSON readers
// (`kubectl get -o json`, Go decoders of raw JSON) see them, in JSON and through the protobuf form.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { decodeEnvelope, protobufToJson } from '../../src/api/protobuf/codec.js';
import { createClient, type Client } from './client.js';

const run = promisify(execFile);

describe('times the reference writes as null', () => {
  let server: TestServer;
  let c: Client;
  const kubectl = async (...args: string[]) => (await run('/usr/bin/kubectl', ['--kubeconfig', server.kubeconfig, ...args])).stdout;

  before(async () => { server = await startTestServer({ flags: ['--controller-manager=false'] }); c = createClient(server); });
  after(async () => { c?.close(); await server?.close(); });

  const fromProtobuf = (bytes: Buffer): any => {
    const env = decodeEnvelope(bytes, server.names);
    return protobufToJson(env.raw, env.apiVersion, env.kind);
  };

  test('a core Event without times: null times, an empty source and empty reporting fields, in JSON and protobuf', async () => {
    const created = await c.request('POST', '/api/v1/namespaces/default/events', {
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'bare' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Seen', message: 'm' },
    });
    assert.equal(created.status, 201, created.body);
    const got = await c.get('/api/v1/namespaces/default/events/bare');
    for (const body of [created.json, got.json]) {
      assert.equal(body.eventTime, null);
      assert.equal(body.firstTimestamp, null);
      assert.equal(body.lastTimestamp, null);
      assert.deepEqual(body.source, {});
      assert.equal(body.reportingComponent, '');
      assert.equal(body.reportingInstance, '');
    }
    assert.match(got.body, /"eventTime":null/);

    const listed = JSON.parse(await kubectl('get', 'events', '-n', 'default', '-o', 'json')).items.find((e: any) => e.metadata.name === 'bare');
    assert.equal(listed.firstTimestamp, null);
    assert.ok(Object.hasOwn(listed, 'eventTime') && listed.eventTime === null, 'kubectl shows eventTime: null');

    const pb = await c.get('/api/v1/namespaces/default/events/bare', { accept: server.names.protobufMediaType });
    assert.equal(pb.status, 200);
    assert.deepEqual(fromProtobuf(pb.raw), got.json, 'the protobuf form reads back with the same nulls');
  });

  test('times written with an offset or another precision come back as the reference writes them: UTC, a Time to the second, a MicroTime to the microsecond', async () => {
    const created = await c.request('POST', '/api/v1/namespaces/default/events', {
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'offset' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Seen', message: 'm',
        firstTimestamp: '2026-11-29T03:00:58.7+01:00', lastTimestamp: '2026-11-29T03:00:59Z', eventTime: '2026-11-29T03:00:58.1+01:00', reportingComponent: 'x', reportingInstance: 'y', action: 'a' },
    });
    assert.equal(created.status, 201, created.body);
    const got = await c.get('/api/v1/namespaces/default/events/offset');
    for (const body of [created.json, got.json])
      assert.deepEqual([body.firstTimestamp, body.lastTimestamp, body.eventTime], ['2026-11-29T02:00:58Z', '2026-11-29T03:00:59Z', '2026-11-29T02:00:58.100000Z']);
    const leases = `/apis/${server.names.group('coordination')}/v1/namespaces/default/leases`;
    const lease = await c.request('POST', leases, { body: { apiVersion: `${server.names.group('coordination')}/v1`, kind: 'Lease', metadata: { name: 'offset' },
      spec: { holderIdentity: 'a', acquireTime: '2026-11-29T03:00:58.5-00:30', renewTime: '2026-11-29T03:00:58.123456789Z' } } });
    assert.equal(lease.status, 201, lease.body);
    assert.deepEqual([lease.json.spec.acquireTime, lease.json.spec.renewTime], ['2026-11-29T03:30:58.500000Z', '2026-11-29T03:00:58.123456Z']);
  });

  test('the events/v1 form of an old event: null deprecated times and eventTime', async () => {
    const e = (await c.get(`/apis/${server.names.group('events')}/v1/namespaces/default/events/bare`)).json;
    assert.equal(e.eventTime, null);
    assert.equal(e.deprecatedFirstTimestamp, null);
    assert.equal(e.deprecatedLastTimestamp, null);
    assert.deepEqual(e.deprecatedSource, {});
    assert.ok(!Object.hasOwn(e, 'reportingController'), 'omitempty in the events/v1 form');
  });

  test('an event with its times keeps them', async () => {
    const t = '2024-05-06T07:08:09Z';
    const created = await c.request('POST', '/api/v1/namespaces/default/events', {
      body: { metadata: { name: 'timed' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, firstTimestamp: t, lastTimestamp: t, source: { component: 'me' } },
    });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json.firstTimestamp, t);
    assert.equal(created.json.eventTime, null);
    assert.deepEqual(created.json.source, { component: 'me' });
  });

  test('embedded metadata: templates carry creationTimestamp: null, in JSON and protobuf', async () => {
    const template = { metadata: { labels: { app: 'w' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'img' }] } };
    const objects: Array<[string, unknown, (o: any) => any[]]> = [
      ['/apis/apps/v1/namespaces/default/deployments', { metadata: { name: 'd' }, spec: { selector: { matchLabels: { app: 'w' } }, template: { ...template, spec: { ...template.spec, restartPolicy: 'Always' } } } },
        (o) => [o.spec.template.metadata]],
      ['/apis/batch/v1/namespaces/default/cronjobs', { metadata: { name: 'cj' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: template.spec } } } } },
        (o) => [o.spec.jobTemplate.metadata, o.spec.jobTemplate.spec.template.metadata]],
      ['/apis/apps/v1/namespaces/default/statefulsets', {
        metadata: { name: 'ss' },
        spec: { serviceName: 'ss', selector: { matchLabels: { app: 'w' } }, template: { ...template, spec: { ...template.spec, restartPolicy: 'Always' } },
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] },
      }, (o) => [o.spec.template.metadata, o.spec.volumeClaimTemplates[0].metadata]],
    ];
    for (const [path, body, embedded] of objects) {
      const created = await c.request('POST', path, { body });
      assert.equal(created.status, 201, created.body);
      for (const m of embedded(created.json)) assert.ok(Object.hasOwn(m, 'creationTimestamp') && m.creationTimestamp === null, `${path}: ${JSON.stringify(m)}`);
      const name = created.json.metadata.name;
      const json = await c.get(`${path}/${name}`);
      const pb = await c.get(`${path}/${name}`, { accept: server.names.protobufMediaType });
      assert.deepEqual(fromProtobuf(pb.raw), json.json, `${path}: the protobuf form reads back with the same nulls`);
    }
    // a template's own time, when a client sends one, is kept as sent
    const pod = (await c.request('POST', '/api/v1/namespaces/default/podtemplates', { body: { metadata: { name: 'pt' }, template: { metadata: { creationTimestamp: '2024-01-01T00:00:00Z' }, spec: template.spec } } })).json;
    assert.equal(pod.template.metadata.creationTimestamp, '2024-01-01T00:00:00Z');
  });

  test('pod conditions: lastProbeTime (and an unset lastTransitionTime) null, though a merge patch cannot write a null', async () => {
    const created = await c.request('POST', '/api/v1/namespaces/default/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'img' }] } } });
    assert.equal(created.status, 201, created.body);
    const t = '2024-05-06T07:08:09Z';
    const patched = await c.request('PATCH', '/api/v1/namespaces/default/pods/p/status', {
      contentType: 'application/merge-patch+json',
      body: { status: { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: t }, { type: 'Initialized', status: 'True' }] } },
    });
    assert.equal(patched.status, 200, patched.body);
    const got = await c.get('/api/v1/namespaces/default/pods/p');
    assert.deepEqual(got.json.status.conditions, [
      { type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: t },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: null },
    ]);
    const pb = await c.get('/api/v1/namespaces/default/pods/p', { accept: server.names.protobufMediaType });
    assert.deepEqual(fromProtobuf(pb.raw).status.conditions, got.json.status.conditions);
  });
});
