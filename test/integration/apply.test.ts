// Server-side apply through HTTP: permissions (patch to edit, create as well to create), managedFields on every
// write, the reset with one empty entry, dry run and field validation of apply patches, and what an apply that
// creates its object must say.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { call, issueClientCert, serverCa, type Identity } from './auth-support.js';
import { createClient } from './client.js';

const applyType = { 'content-type': 'application/apply-patch+yaml' };
const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

describe('server-side apply over HTTP', () => {
  let server: TestServer;
  let admin: Identity;
  let patcher: Identity;
  let creator: Identity;
  const base = '/api/v1/namespaces/default/configmaps';
  const apply = (who: Identity, name: string, body: unknown, query = 'fieldManager=tester') =>
    call(server, who, 'PATCH', `${base}/${name}?${query}`, { body, headers: applyType });

  before(async () => {
    server = await startTestServer({ flags: ['--authorization-mode=RBAC'] });
    const ca = serverCa(server);
    admin = await issueClientCert(ca, 'admin', ['system:masters']);
    patcher = await issueClientCert(ca, 'patcher');
    creator = await issueClientCert(ca, 'creator');
    const role = (name: string, verbs: string[]) => ({
      apiVersion: 'rbac.authorization.cluster.io/v1', kind: 'Role', metadata: { name, namespace: 'default' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }],
    });
    const binding = (name: string, user: string) => ({
      apiVersion: 'rbac.authorization.cluster.io/v1', kind: 'RoleBinding', metadata: { name, namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.cluster.io', kind: 'Role', name }, subjects: [{ kind: 'User', name: user, apiGroup: 'rbac.authorization.cluster.io' }],
    });
    const rbac = `/apis/${server.names.group('rbac.authorization')}/v1/namespaces/default`;
    const fix = (o: any) => JSON.parse(JSON.stringify(o).replaceAll('rbac.authorization.cluster.io', server.names.group('rbac.authorization')));
    for (const [name, user, verbs] of [['patch-only', 'patcher', ['get', 'patch']], ['patch-create', 'creator', ['get', 'patch', 'create']]] as const) {
      assert.equal((await call(server, admin, 'POST', `${rbac}/roles`, { body: fix(role(name, [...verbs])) })).status, 201);
      assert.equal((await call(server, admin, 'POST', `${rbac}/rolebindings`, { body: fix(binding(name, user)) })).status, 201);
    }
  });
  after(async () => { await server?.close(); });

  test('rule 5: apply edits with patch, and creating through apply needs create too', async () => {
    const refused = await apply(patcher, 'by-patcher', cm('by-patcher', { a: '1' }));
    assert.equal(refused.status, 403, refused.body);
    assert.match(refused.json.message, /cannot create resource "configmaps"/);
    const created = await apply(creator, 'by-creator', cm('by-creator', { a: '1' }));
    assert.equal(created.status, 201, created.body);
    const edited = await apply(patcher, 'by-creator', cm('by-creator', { b: '2' }), 'fieldManager=patcher');
    assert.equal(edited.status, 200, edited.body);
    assert.deepEqual(edited.json.data, { a: '1', b: '2' });
  });

  test('every write records its manager; one empty entry resets managedFields; an empty list does not', async () => {
    const created = await call(server, admin, 'POST', `${base}?fieldManager=maker`, { body: cm('owned', { a: '1' }) });
    assert.deepEqual(created.json.metadata.managedFields.map((f: any) => [f.manager, f.operation]), [['maker', 'Update']]);
    const untouched = await call(server, admin, 'PATCH', `${base}/owned?fieldManager=other`, {
      body: { metadata: { managedFields: [] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(untouched.json.metadata.managedFields.length, 1);
    const reset = await call(server, admin, 'PATCH', `${base}/owned?fieldManager=other`, {
      body: { metadata: { managedFields: [{}] } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(reset.status, 200, reset.body);
    assert.equal(reset.json.metadata.managedFields, undefined);
  });

  test('apply refuses a missing fieldManager, managedFields in the body, and undeclared fields whatever fieldValidation says; dry run stores nothing', async () => {
    const noManager = await apply(admin, 'x', cm('x', {}), '');
    assert.equal(noManager.status, 422);
    const withMf = await apply(admin, 'x', { ...cm('x', {}), metadata: { name: 'x', managedFields: [{ manager: 'm' }] } });
    assert.equal(withMf.status, 400);
    // as the reference's typed reading of an apply configuration fails: a 500 naming the fields by their apply paths
    for (const validation of ['Strict', 'Warn', 'Ignore']) {
      const undeclared = await apply(admin, 'x', { ...cm('x', {}), colour: 'red' }, `fieldManager=t&fieldValidation=${validation}`);
      assert.deepEqual([undeclared.status, undeclared.json.reason, undeclared.json.message],
        [500, 'InternalError', 'failed to create typed patch object (/v1, Kind=ConfigMap): .colour: field not declared in schema']);
    }
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x', shade: 1 }], tint: 2 } };
    const nested = await call(server, admin, 'PATCH', `${base.replace('configmaps', 'pods')}/p?fieldManager=t`, {
      body: pod, headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(nested.status, 500);
    assert.equal(nested.json.message, 'failed to create typed patch object (/v1, Kind=Pod): errors:\n' +
      '  .spec.containers[name="c"].shade: field not declared in schema\n  .spec.tint: field not declared in schema');
    assert.equal((await call(server, admin, 'GET', `${base.replace('configmaps', 'pods')}/p`)).status, 404);
    const dry = await apply(admin, 'dry', cm('dry', { a: '1' }), 'fieldManager=t&dryRun=All');
    assert.equal(dry.status, 201);
    assert.equal((await call(server, admin, 'GET', `${base}/dry`)).status, 404);
  });

  test('an apply that changes nothing writes nothing, the first one after the object was made included', async () => {
    const config = { ...cm('steady', { a: '1' }), metadata: { name: 'steady', labels: { l: '1' } } };
    const created = await apply(admin, 'steady', config);
    assert.equal(created.status, 201, created.body);
    for (let i = 0; i < 2; i++) {
      const again = await apply(admin, 'steady', config);
      assert.equal(again.status, 200, again.body);
      assert.equal(again.json.metadata.resourceVersion, created.json.metadata.resourceVersion, `apply ${i + 2}`);
    }
    // an object another writer made: an apply that owns nothing changes nothing either
    const made = await call(server, admin, 'POST', `${base}?fieldManager=maker`, { body: cm('made', { a: '1' }) });
    const idle = await apply(admin, 'made', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'made' } }, 'fieldManager=idle');
    assert.equal(idle.status, 200, idle.body);
    assert.equal(idle.json.metadata.resourceVersion, made.json.metadata.resourceVersion);
  });

  test('an apply that creates needs a name and no uid, as the reference checks the object it made', async () => {
    const unnamed = await apply(admin, 'unnamed', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'x-' }, data: { a: '1' } });
    assert.deepEqual([unnamed.status, unnamed.json.message], [400, 'the name of the object () does not match the name on the URL (unnamed)']);
    const withUid = await apply(admin, 'with-uid', { ...cm('with-uid', {}), metadata: { name: 'with-uid', uid: 'abc' } });
    assert.deepEqual([withUid.status, withUid.json.reason, withUid.json.message], [409, 'Conflict',
      'Operation cannot be fulfilled on configmaps "with-uid": uid mismatch: the provided object specified uid abc, and no existing object was found']);
    for (const name of ['unnamed', 'with-uid']) assert.equal((await call(server, admin, 'GET', `${base}/${name}`)).status, 404);
    // once the object exists, a configuration without its name applies to it
    assert.equal((await apply(admin, 'named-later', cm('named-later', { a: '1' }))).status, 201);
    const later = await apply(admin, 'named-later', { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '2' } });
    assert.equal(later.status, 200, later.body);
    assert.deepEqual(later.json.data, { a: '2' });
  });

  test('a key repeated in a YAML configuration: the last value wins, unless fieldValidation is Strict', async () => {
    const client = createClient(server);
    try {
      const yaml = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: first\n  "k": last\n`;
      const send = (name: string, validation: string) => client.request('PATCH', `${base}/${name}?fieldManager=t&fieldValidation=${validation}`,
        { body: yaml(name), contentType: 'application/apply-patch+yaml' });
      const strict = await send('yaml-strict', 'Strict');
      assert.deepEqual([strict.status, strict.json.reason, strict.json.message], [400, 'BadRequest',
        'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "k" already set in map']);
      const warned = await send('yaml-warn', 'Warn');
      assert.equal(warned.status, 201, warned.body);
      assert.deepEqual(warned.json.data, { k: 'last' });
      assert.equal(warned.headers.warning, '299 - "line 7: key \\"k\\" already set in map"');
      const ignored = await send('yaml-ignore', 'Ignore');
      assert.equal(ignored.status, 201, ignored.body);
      assert.deepEqual(ignored.json.data, { k: 'last' });
      assert.equal(ignored.headers.warning, undefined);
    } finally {
      client.close();
    }
  });
});
