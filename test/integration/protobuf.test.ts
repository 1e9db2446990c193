// The protobuf media type beyond plain reads and writes of stored kinds, as the reference serves it to client-go
// clients (controllers send `Accept: <protobuf>, application/json` and protobuf bodies): subresources (scale, binding,
// eviction, token requests), reviews and never-stored lists answer in protobuf, and a Scale is taken in protobuf. The
// metadata forms (as=PartialObjectMetadata[List], what client-go's metadata client asks for first, in protobuf) come in
// protobuf for every resource, a custom one's included, in gets, lists and watches.
// The few wire facts needed are written out by hand here (field numbers of the reference's generated.proto files).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { decodeEnvelope, protobufToJson } from '../../src/api/protobuf/codec.js';
import { readFields } from '../../src/api/protobuf/wire.js';
import { waitFor } from '../support/wait.js';
import { createClient, type Client, type Reply } from './client.js';

/** a length-delimited field (lengths here stay under 128 bytes) */
const field = (n: number, bytes: Buffer | string) => {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  assert.ok(b.length < 128);
  return Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
};
const varint = (n: number, v: number) => Buffer.from([n << 3, v]);
/** the runtime.Unknown envelope: "k8s\0", typeMeta = 1 (apiVersion = 1, kind = 2), raw = 2 */
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from('k8s\0'), field(1, Buffer.concat([field(1, apiVersion), field(2, kind)])), field(2, raw)]);

describe('protobuf: subresources, reviews and never-stored lists', () => {
  let server: TestServer;
  let c: Client;
  let pb: string;
  const preferred = () => `${pb}, application/json`;

  before(async () => {
    server = await startTestServer({ flags: ['--controller-manager=false', '--scheduler=false'] });
    c = createClient(server);
    pb = server.names.protobufMediaType;
  });
  after(async () => { c?.close(); await server?.close(); });

  const fromProtobuf = (r: Reply): any => {
    assert.equal(r.headers['content-type'], pb, `answered in ${r.headers['content-type']}: ${r.body.slice(0, 300)}`);
    const env = decodeEnvelope(r.raw, server.names);
    return protobufToJson(env.raw, env.apiVersion, env.kind);
  };

  test('a Scale is read and written in protobuf', async () => {
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const path = '/apis/apps/v1/namespaces/default/deployments/web/scale';
    assert.equal((await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status, 201);

    const read = fromProtobuf(await c.get(path, { accept: preferred() }));
    assert.equal(read.kind, 'Scale');
    assert.equal(read.apiVersion, 'autoscaling/v1');
    assert.equal(read.spec.replicas, 1);
    assert.equal(read.status.selector, 'app=web');

    // Scale: metadata = 1 (name = 1, namespace = 3), spec = 2 (replicas = 1)
    const body = envelope('autoscaling/v1', 'Scale', Buffer.concat([
      field(1, Buffer.concat([field(1, 'web'), field(3, 'default')])), field(2, varint(1, 3)),
    ]));
    const written = await c.request('PUT', path, { body, contentType: pb, headers: { accept: preferred() } });
    assert.equal(written.status, 200, written.body);
    assert.equal(fromProtobuf(written).spec.replicas, 3);
    assert.equal((await c.get('/apis/apps/v1/namespaces/default/deployments/web')).json.spec.replicas, 3);
    // JSON first stays JSON
    assert.equal((await c.get(path, { accept: `application/json, ${pb}` })).json.kind, 'Scale');
  });

  test('binding and eviction answer with a protobuf Status; a token request and a review with their kind', async () => {
    await c.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } });
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    assert.equal((await c.request('POST', '/api/v1/namespaces/default/pods', { body: pod })).status, 201);
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } };
    const bound = await c.request('POST', '/api/v1/namespaces/default/pods/p/binding', { body: binding, headers: { accept: preferred() } });
    assert.equal(bound.status, 201);
    assert.deepEqual(fromProtobuf(bound), { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', code: 201 });

    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' } };
    const evicted = await c.request('POST', '/api/v1/namespaces/default/pods/p/eviction', { body: eviction, headers: { accept: preferred() } });
    assert.equal(evicted.status, 201);
    assert.equal(fromProtobuf(evicted).status, 'Success');

    // a policy/v1beta1 Eviction in protobuf (metadata = 1, name = 1), as older clients send it, is taken like its JSON form
    assert.equal((await c.request('POST', '/api/v1/namespaces/default/pods', { body: { ...pod, metadata: { name: 'old' } } })).status, 201);
    const old = await c.request('POST', '/api/v1/namespaces/default/pods/old/eviction', {
      body: envelope('policy/v1beta1', 'Eviction', field(1, field(1, 'old'))), contentType: pb, headers: { accept: preferred() },
    });
    assert.equal(old.status, 201, old.body);
    assert.equal(fromProtobuf(old).status, 'Success');

    await c.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } } });
    const request = { apiVersion: server.names.group('authentication') + '/v1', kind: 'TokenRequest', spec: { audiences: ['a'] } };
    const token = await c.request('POST', '/api/v1/namespaces/default/serviceaccounts/sa/token', { body: request, headers: { accept: preferred() } });
    assert.equal(token.status, 201, token.body);
    const issued = fromProtobuf(token);
    assert.equal(issued.kind, 'TokenRequest');
    assert.match(issued.status.token, /^ey/);

    const review = { apiVersion: `${server.names.group('authorization')}/v1`, kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } };
    const reviewed = await c.request('POST', `/apis/${server.names.group('authorization')}/v1/selfsubjectaccessreviews`, { body: review, headers: { accept: preferred() } });
    assert.equal(fromProtobuf(reviewed).status.allowed, true);

  });

  test('a never-stored list (component statuses) answers in protobuf', async () => {
    const list = fromProtobuf(await c.get('/api/v1/componentstatuses', { accept: preferred() }));
    assert.equal(list.kind, 'ComponentStatusList');
    assert.ok(list.items.length > 0);
  });

  test('metadata forms in protobuf: lists (v1 and v1beta1), a single object and a watch, of built-in and custom resources', async () => {
    const meta = server.names.metaGroup;
    const asList = (v: string) => `${pb};as=PartialObjectMetadataList;g=${meta};v=${v}, application/json;as=PartialObjectMetadataList;g=${meta};v=${v}, application/json`;
    const crds = `/apis/${server.names.group('apiextensions')}/v1/customresourcedefinitions`;
    await c.request('POST', crds, {
      body: {
        apiVersion: `${server.names.group('apiextensions')}/v1`, kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
        spec: {
          group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
        },
      },
    });
    const gadgets = '/apis/example.com/v1/namespaces/default/gadgets';
    await waitFor('the custom resource is served', async () => (await c.get(gadgets)).status === 200);
    assert.equal((await c.request('POST', gadgets, { body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g', labels: { a: 'b' } }, x: 1 } })).status, 201);
    assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm', labels: { a: 'b' } } } })).status, 201);

    for (const [path, name] of [[gadgets, 'g'], ['/api/v1/namespaces/default/configmaps', 'm']] as const) {
      const list = fromProtobuf(await c.get(`${path}?labelSelector=a%3Db`, { accept: asList('v1') }));
      assert.equal(list.kind, 'PartialObjectMetadataList');
      assert.equal(list.apiVersion, `${meta}/v1`);
      assert.deepEqual(list.items.map((i: any) => [i.kind, i.metadata.name, i.metadata.labels]), [[undefined, name, { a: 'b' }]]);
      assert.ok(list.metadata.resourceVersion);

      // v1beta1's list holds items = 1 and metadata = 2
      const beta = await c.get(`${path}?labelSelector=a%3Db`, { accept: asList('v1beta1') });
      const env = decodeEnvelope(beta.raw, server.names);
      assert.deepEqual([env.apiVersion, env.kind], [`${meta}/v1beta1`, 'PartialObjectMetadataList']);
      assert.deepEqual(readFields(env.raw).map(f => f.number), [1, 2], 'one item, then the list metadata');

      const one = fromProtobuf(await c.get(`${path}/${name}`, { accept: `${pb};as=PartialObjectMetadata;g=${meta};v=v1, application/json` }));
      assert.deepEqual([one.kind, one.metadata.name], ['PartialObjectMetadata', name]);

      // a watch: length-prefixed WatchEvents (type = 1, object = 2 holding raw = 1) of PartialObjectMetadata
      const watched = await c.get(`${path}?watch=1&timeoutSeconds=1&labelSelector=a%3Db`, { accept: `${pb};as=PartialObjectMetadata;g=${meta};v=v1, application/json` });
      assert.equal(watched.headers['content-type'], `${pb};stream=watch`);
      const length = watched.raw.readUInt32BE(0);
      const [type, object] = readFields(watched.raw.subarray(4, 4 + length));
      assert.equal((type!.value as Buffer).toString(), 'ADDED');
      const inner = decodeEnvelope(readFields(object!.value as Buffer)[0]!.value as Buffer, server.names);
      assert.equal(inner.kind, 'PartialObjectMetadata');
      assert.equal((protobufToJson(inner.raw, inner.apiVersion, inner.kind) as any).metadata.name, name);
    }

    // a custom object itself has no protobuf form: JSON when the client takes it, else 406
    assert.equal((await c.get(`${gadgets}/g`, { accept: `${pb}, application/json` })).json.kind, 'Gadget');
    assert.equal((await c.get(`${gadgets}/g`, { accept: pb })).status, 406);
  });

  test('DeleteOptions bodies in protobuf, in the group version of the resource or meta\'s, are read and honoured', async () => {
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    const cms = '/api/v1/namespaces/default/configmaps';
    for (const name of ['kept', 'guarded', 'gone']) assert.equal((await c.request('POST', cms, { body: cm(name) })).status, 201);
    const del = (path: string, apiVersion: string, raw: Buffer) =>
      c.request('DELETE', path, { body: envelope(apiVersion, 'DeleteOptions', raw), contentType: pb, headers: { accept: 'application/json' } });

    // DeleteOptions: gracePeriodSeconds = 1, preconditions = 2 (uid = 1), propagationPolicy = 4, dryRun = 5
    const dry = await del(`${cms}/kept`, 'v1', Buffer.concat([varint(1, 0), field(5, 'All')]));
    assert.equal(dry.status, 200, dry.body);
    assert.equal((await c.get(`${cms}/kept`)).status, 200, 'a dry run deletes nothing');

    const guarded = await del(`${cms}/guarded`, `${server.names.metaGroup}/v1`, field(2, field(1, 'not-the-uid')));
    assert.equal(guarded.status, 409, guarded.body);
    assert.equal(guarded.json.reason, 'Conflict');

    assert.equal((await del(`${cms}/gone`, 'v1', Buffer.alloc(0))).status, 200);
    assert.equal((await c.get(`${cms}/gone`)).status, 404);

    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'fg' },
      spec: { selector: { matchLabels: { app: 'fg' } }, template: { metadata: { labels: { app: 'fg' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    assert.equal((await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment })).status, 201);
    const foreground = await del('/apis/apps/v1/namespaces/default/deployments/fg', 'apps/v1', field(4, 'Foreground'));
    assert.equal(foreground.status, 200, foreground.body);
    assert.deepEqual(foreground.json.metadata.finalizers, ['foregroundDeletion']);
  });

  test('Status bodies and deleted collections in protobuf when the client prefers it, as the reference negotiates them', async () => {
    const cms = '/api/v1/namespaces/default/configmaps';
    const missing = await c.get(`${cms}/missing`, { accept: preferred() });
    assert.equal(missing.status, 404);
    assert.deepEqual(fromProtobuf(missing), {
      apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound',
      details: { name: 'missing', kind: 'configmaps' }, code: 404,
    });
    assert.equal((await c.get(`${cms}/missing`, { accept: `application/json, ${pb}` })).json.reason, 'NotFound', 'JSON first stays JSON');

    for (const name of ['s1', 's2']) {
      await c.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { set: 'status' } } } });
    }
    const removed = await c.request('DELETE', `${cms}/s1`, { headers: { accept: preferred() } });
    assert.equal(removed.status, 200);
    const status = fromProtobuf(removed);
    assert.deepEqual([status.kind, status.status, status.details.name], ['Status', 'Success', 's1']);

    const collection = fromProtobuf(await c.request('DELETE', `${cms}?labelSelector=set%3Dstatus`, { headers: { accept: preferred() } }));
    assert.equal(collection.kind, 'ConfigMapList');
    assert.deepEqual(collection.items.map((i: any) => i.metadata.name), ['s2']);
  });

  test('discovery documents in protobuf when the client prefers it (client-go discovery with a protobuf configuration)', async () => {
    const versions = fromProtobuf(await c.get('/api', { accept: preferred() }));
    // the core group's documents name no apiVersion in their TypeMeta, as in their JSON (the reference strips it)
    assert.deepEqual([versions.apiVersion, versions.kind, versions.versions], ['', 'APIVersions', ['v1']]);
    const core = await c.get('/api/v1', { accept: preferred() });
    assert.deepEqual(decodeEnvelope(core.raw, server.names).apiVersion, '');
    assert.deepEqual([fromProtobuf(core).kind, fromProtobuf(core).groupVersion], ['APIResourceList', 'v1']);
    const groups = fromProtobuf(await c.get('/apis', { accept: pb }));
    assert.equal(groups.kind, 'APIGroupList');
    assert.ok(groups.groups.some((g: any) => g.name === 'apps' && g.preferredVersion.groupVersion === 'apps/v1'));
    assert.equal(fromProtobuf(await c.get('/apis/apps', { accept: preferred() })).kind, 'APIGroup');

    const list = await c.get('/apis/apps/v1', { accept: preferred() });
    const resources = fromProtobuf(list);
    assert.equal(resources.apiVersion, 'v1');
    assert.equal(resources.groupVersion, 'apps/v1');
    const deployments = resources.resources.find((r: any) => r.name === 'deployments');
    assert.deepEqual([deployments.kind, deployments.namespaced, deployments.verbs.includes('watch')], ['Deployment', true, true]);

    // on the wire: APIResourceList resources = 2, an APIResource's name = 1 and verbs = 4, a Verbs message of items = 1
    const raw = decodeEnvelope(list.raw, server.names).raw;
    const first = readFields(readFields(raw).find(f => f.number === 2)!.value as Buffer);
    const verbs = readFields(first.find(f => f.number === 4)!.value as Buffer);
    assert.ok(verbs.length > 0 && verbs.every(f => f.number === 1));
    assert.equal((first.find(f => f.number === 1)!.value as Buffer).toString(), resources.resources[0].name);

    assert.equal((await c.get('/apis/apps/v1', { accept: `application/json, ${pb}` })).json.kind, 'APIResourceList', 'JSON first stays JSON');
  });
});
