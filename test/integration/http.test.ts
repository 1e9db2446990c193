// Representations, discovery, health and errors: what a client sees on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { eachBackend, configMap, serverOn, sleep } from './servers.js';
import { createClient } from './client.js';
import { waitFor } from '../support/cluster.js';

const tableAccept = (g: string) => `application/json;as=Table;v=v1;g=${g},application/json;as=Table;v=v1beta1;g=${g},application/json`;
const discoveryAccept127 = (g: string) => `application/json;g=${g};v=v2beta1;as=APIGroupDiscoveryList,application/json`;
const discoveryAccept132 = (g: string) =>
  `application/json;g=${g};v=v2;as=APIGroupDiscoveryList,application/json;g=${g};v=v2beta1;as=APIGroupDiscoveryList,application/json`;

eachBackend('http', h => {
  const c = () => h.client();

  test('representations: JSON by default, YAML, pretty, */*', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await c().request('POST', base, { body: configMap('r', { k: 'v' }) });
    const json = await c().get(`${base}/r`);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.ok(!json.body.includes('\n'));
    const any = await c().get(`${base}/r`, { accept: '*/*' });
    assert.equal(any.headers['content-type'], 'application/json');
    const yaml = await c().get(`${base}/r`, { accept: 'application/yaml' });
    assert.equal(yaml.status, 200);
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.deepEqual(parseYaml(yaml.body).data, { k: 'v' });
    const yamlList = await c().get(base, { accept: 'application/yaml' });
    assert.equal(parseYaml(yamlList.body).kind, 'ConfigMapList');
    const pretty = await c().get(`${base}/r?pretty=true`);
    assert.match(pretty.body, /^\{\n {2}"kind": "ConfigMap",/);
    assert.deepEqual(pretty.json.data, { k: 'v' });
    // a YAML body is accepted on create
    const fromYaml = await c().request('POST', base, { body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: b\n', contentType: 'application/yaml' });
    assert.equal(fromYaml.status, 201, fromYaml.body);
    assert.deepEqual(fromYaml.json.data, { a: 'b' });
  });

  test('Table with the kubectl Accept for this domain, includeObject, plain JSON for the other domain', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await c().request('POST', base, { body: configMap('t', { a: '1' }) });
    const meta = h.server().names.metaGroup;
    const table = await c().get(base, { accept: tableAccept(meta) });
    assert.equal(table.status, 200);
    // labelled as the reference labels it: plain JSON, the body's kind saying it is a Table
    assert.equal(table.headers['content-type'], 'application/json');
    assert.equal(table.json.kind, 'Table');
    assert.equal(table.json.apiVersion, `${meta}/v1`);
    assert.equal(table.json.columnDefinitions[0].name, 'Name');
    assert.ok(table.json.metadata.resourceVersion);
    assert.equal(table.json.rows.length, 1);
    assert.equal(table.json.rows[0].cells[0], 't');
    assert.equal(table.json.rows[0].object.kind, 'PartialObjectMetadata');
    const none = await c().get(`${base}?includeObject=None`, { accept: tableAccept(meta) });
    assert.equal(none.json.rows[0].object, undefined);
    const full = await c().get(`${base}/t?includeObject=Object`, { accept: tableAccept(meta) });
    assert.equal(full.json.rows[0].object.kind, 'ConfigMap');
    assert.deepEqual(full.json.rows[0].object.data, { a: '1' });
    const some = await c().get(`${base}?includeObject=Some`, { accept: tableAccept(meta) });
    assert.equal(some.status, 400);
    assert.equal(some.json.message, 'Unable to convert to Table as requested: includeObject: Unsupported value: "Some": supported values: "Metadata", "None", "Object"');

    // the other domain's meta group falls through to application/json
    const other = meta === 'meta.k8s.io' ? 'meta.cluster.io' : 'meta.k8s.io';
    const plain = await c().get(base, { accept: tableAccept(other) });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-type'], 'application/json');
    assert.equal(plain.json.kind, 'ConfigMapList');
    // only the other domain's Table: nothing acceptable
    const refused = await c().get(base, { accept: `application/json;as=Table;v=v1;g=${other}` });
    assert.equal(refused.status, 406);
    assert.equal(refused.json.reason, 'NotAcceptable');
    const refused2 = await c().get(base, { accept: 'text/html' });
    assert.equal(refused2.status, 406);
  });

  test('Table rows of finished pods carry the Completed condition, as the reference marks them', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    const meta = h.server().names.metaGroup;
    const finished: Array<[string, string, string]> = [['done', 'Succeeded', 'The pod has completed successfully.'], ['failed', 'Failed', 'The pod failed.'], ['waiting', 'Pending', '']];
    for (const [name, phase] of finished) {
      const made = await c().request('POST', base, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
      assert.equal(made.status, 201, made.body);
      const patched = await c().request('PATCH', `${base}/${name}/status`, { body: { status: { phase } }, contentType: 'application/merge-patch+json' });
      assert.equal(patched.status, 200, patched.body);
    }
    const table = await c().get(`${base}?includeObject=None`, { accept: tableAccept(meta) });
    assert.equal(table.status, 200, table.body);
    for (const [name, phase, message] of finished) {
      const row = table.json.rows.find((r: { cells: unknown[] }) => r.cells[0] === name);
      assert.deepEqual(row.conditions, phase === 'Pending' ? undefined : [{ type: 'Completed', status: 'True', reason: phase, message }], name);
    }
    const one = await c().get(`${base}/done`, { accept: tableAccept(meta) });
    assert.equal(one.json.rows[0].conditions[0].reason, 'Succeeded');
  });

  test('PartialObjectMetadata for objects and watch events, PartialObjectMetadataList for lists; the crossed forms are 406', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await c().request('POST', base, { body: configMap('m', { a: '1' }) });
    const meta = h.server().names.metaGroup;
    const as = (kind: string) => `application/json;as=${kind};v=v1;g=${meta}`;
    const one = await c().get(`${base}/m`, { accept: as('PartialObjectMetadata') });
    assert.equal(one.status, 200);
    assert.deepEqual([one.json.kind, one.json.metadata.name, one.json.data], ['PartialObjectMetadata', 'm', undefined]);
    const many = await c().get(base, { accept: as('PartialObjectMetadataList') });
    assert.deepEqual([many.json.kind, many.json.items.map((i: { kind: string }) => i.kind)], ['PartialObjectMetadataList', ['PartialObjectMetadata']]);
    const events = await c().get(`${base}?watch=1&timeoutSeconds=1`, { accept: as('PartialObjectMetadata') });
    assert.equal(JSON.parse(events.body.split('\n')[0]).object.kind, 'PartialObjectMetadata');
    // each labelled plain application/json, as the reference labels them
    assert.deepEqual([one, many, events].map(r => r.headers['content-type']), ['application/json', 'application/json', 'application/json']);
    const listAsOne = await c().get(base, { accept: as('PartialObjectMetadata') });
    assert.deepEqual([listAsOne.status, listAsOne.json.reason], [406, 'NotAcceptable']);
    const oneAsList = await c().get(`${base}/m`, { accept: as('PartialObjectMetadataList') });
    assert.deepEqual([oneAsList.status, oneAsList.json.reason], [406, 'NotAcceptable']);
  });

  test('Table in the reference domain mode (k8s.io)', async () => {
    const ref = await serverOn(h.backend, { apiDomain: 'k8s.io' });
    const rc = createClient(ref.server);
    try {
      const pods = '/api/v1/namespaces/default/pods';
      const t = await rc.get(pods, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
      assert.equal(t.headers['content-type'], 'application/json');
      assert.equal(t.json.kind, 'Table');
      const j = await rc.get(pods, { accept: 'application/json;as=Table;v=v1;g=meta.cluster.io,application/json' });
      assert.equal(j.headers['content-type'], 'application/json');
      assert.equal(j.json.kind, 'PodList');
      const agg = await rc.get('/apis', { accept: discoveryAccept132('apidiscovery.k8s.io') });
      assert.equal(agg.headers['content-type'], 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
      assert.equal((await rc.get('/apis/authorization.k8s.io/v1')).status, 200);
      assert.equal((await rc.get('/apis/authorization.cluster.io/v1')).status, 404);
    } finally {
      rc.close();
      await ref.close();
    }
  });

  test('an object of megabytes is written as the client reads it, whole, gzipped when asked, and HEAD gives only its length', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const data = { a: 'é'.repeat(200_000), b: 'x'.repeat(500_000) };
    const created = await c().request('POST', base, { body: configMap('huge', data) });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json.data, data);
    const plain = await c().get(`${base}/huge`);
    assert.deepEqual([plain.status, plain.json.data], [200, data]);
    assert.equal(Number(plain.headers['content-length']), plain.raw.length);
    const zipped = await c().get(`${base}/huge`, { 'accept-encoding': 'gzip' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(zipped.json.data, data);
    const head = await c().request('HEAD', `${base}/huge`);
    assert.deepEqual([head.status, head.raw.length, head.headers['content-length']], [200, 0, String(plain.raw.length)]);
  });

  test('gzip on a large list when asked', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const big = 'x'.repeat(40_000);
    await Promise.all(Array.from({ length: 5 }, (_, i) => c().request('POST', base, { body: configMap(`g${i}`, { big }) })));
    const zipped = await c().get(base, { 'accept-encoding': 'gzip' });
    assert.equal(zipped.status, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.ok(zipped.raw.length < zipped.body.length / 10);
    assert.equal(JSON.parse(gunzipSync(zipped.raw).toString()).items.length, 5);
    const plain = await c().get(base);
    assert.equal(plain.headers['content-encoding'], undefined);
    // small responses stay uncompressed
    const small = await c().get(`${base}/g0?fields=1`, { 'accept-encoding': 'gzip' });
    assert.equal(small.status, 200);
  });

  test('discovery: /api, /apis, group, group-version, aggregated v2 and v2beta1, /version', async () => {
    const names = h.server().names;
    const api = await c().get('/api');
    assert.equal(api.json.kind, 'APIVersions');
    assert.deepEqual(api.json.versions, ['v1']);
    const apis = await c().get('/apis');
    assert.equal(apis.json.kind, 'APIGroupList');
    const apps = apis.json.groups.find((g: any) => g.name === 'apps');
    assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
    assert.ok(apis.json.groups.some((g: any) => g.name === names.group('rbac.authorization')));
    const group = await c().get('/apis/apps');
    assert.equal(group.json.kind, 'APIGroup');
    assert.equal(group.json.name, 'apps');
    const gv = await c().get('/apis/apps/v1', { accept: 'application/json, */*' });
    assert.equal(gv.json.kind, 'APIResourceList');
    assert.equal(gv.json.groupVersion, 'apps/v1');
    const dep = gv.json.resources.find((r: any) => r.name === 'deployments');
    assert.equal(dep.kind, 'Deployment');
    assert.equal(dep.namespaced, true);
    assert.ok(dep.verbs.includes('watch'));
    assert.ok(gv.json.resources.some((r: any) => r.name === 'deployments/status'));
    const core = await c().get('/api/v1');
    assert.equal(core.json.groupVersion, 'v1');
    // as the reference writes them: the core group's list with no apiVersion, a named group's with one
    assert.deepEqual(Object.keys(core.json), ['kind', 'groupVersion', 'resources']);
    assert.deepEqual(Object.keys(gv.json), ['kind', 'apiVersion', 'groupVersion', 'resources']);
    const ns = core.json.resources.find((r: any) => r.name === 'namespaces');
    assert.equal(ns.namespaced, false);
    assert.deepEqual(ns.shortNames, ['ns']);
    assert.equal((await c().get('/apis/nope')).status, 404);
    assert.equal((await c().get('/apis/apps/v9')).status, 404);

    const g = names.group('apidiscovery');
    for (const [accept, v] of [[discoveryAccept132(g), 'v2'], [discoveryAccept127(g), 'v2beta1']] as const) {
      for (const path of ['/api', '/apis']) {
        const agg = await c().get(path, { accept });
        assert.equal(agg.status, 200);
        assert.equal(agg.headers['content-type'], `application/json;g=${g};v=${v};as=APIGroupDiscoveryList`);
        assert.equal(agg.json.kind, 'APIGroupDiscoveryList');
        assert.equal(agg.json.apiVersion, `${g}/${v}`);
        for (const item of agg.json.items)
          for (const ver of item.versions)
            for (const r of ver.resources) assert.equal(r.responseKind.group, item.metadata.name);
        // tagged by content: a cached copy is revalidated with If-None-Match
        assert.match(String(agg.headers.etag), /^"[0-9A-F]{128}"$/);
        // the form follows the Accept header: caches keep one per Accept header (Vary), and may share it
        assert.equal(agg.headers.vary, 'Accept');
        assert.equal(agg.headers['cache-control'], 'public');
        const again = await c().get(path, { accept, 'if-none-match': String(agg.headers.etag) });
        assert.equal(again.status, 304);
        assert.equal(again.headers.etag, agg.headers.etag);
      }
    }
    const coreAgg = await c().get('/api', { accept: discoveryAccept132(g) });
    const pods = coreAgg.json.items[0].versions[0].resources.find((r: any) => r.resource === 'pods');
    assert.equal(pods.scope, 'Namespaced');
    assert.ok(pods.subresources.some((s: any) => s.subresource === 'status'));
    // the other domain's aggregated form is not offered
    const other = g.endsWith('k8s.io') ? 'apidiscovery.cluster.io' : 'apidiscovery.k8s.io';
    assert.equal((await c().get('/apis', { accept: discoveryAccept132(other) })).json.kind, 'APIGroupList');

    const version = await c().get('/version');
    assert.equal(version.status, 200);
    assert.match(version.json.gitVersion, /^v\d+\.\d+\.\d+/);
    assert.ok(version.json.major && version.json.minor && version.json.platform);
  });

  test('health: /healthz, /livez, /readyz, verbose, exclude, single checks, HEAD', async () => {
    for (const p of ['/healthz', '/livez', '/readyz']) {
      const r = await c().get(p);
      assert.equal(r.status, 200);
      assert.equal(r.body, 'ok');
      assert.match(String(r.headers['content-type']), /^text\/plain/);
    }
    const verbose = await c().get('/readyz?verbose');
    assert.match(verbose.body, /^\[\+\]ping ok$/m);
    assert.match(verbose.body, /^\[\+\]shutdown ok$/m);
    assert.match(verbose.body, /readyz check passed\n$/);
    const verboseEmpty = await c().get('/livez?verbose=');
    assert.match(verboseEmpty.body, /livez check passed/);
    const excluded = await c().get('/readyz?verbose&exclude=ping');
    assert.match(excluded.body, /^\[\+\]ping excluded: ok$/m);
    const unknownExclude = await c().get('/readyz?verbose&exclude=nope');
    assert.equal(unknownExclude.status, 200);
    assert.match(unknownExclude.body, /no matches for "nope"/);
    assert.equal((await c().get('/livez/ping')).body, 'ok');
    const names = [...verbose.body.matchAll(/^\[\+\](.+) ok$/gm)].map(m => m[1]);
    for (const n of names) assert.equal((await c().get(`/readyz/${n}`)).status, 200, n);
    assert.equal((await c().get('/readyz/nope')).status, 404);
    const head = await c().request('HEAD', '/livez/ping');
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });

  test('graceful shutdown: readyz fails first, in-flight requests finish, watches end cleanly', async () => {
    const own = await serverOn(h.backend, { flags: ['--shutdown-delay-duration=400ms'], freshnessTimeoutMs: 800 });
    const oc = createClient(own.server);
    try {
      const rv = (await oc.get('/api/v1/namespaces/default/configmaps')).json.metadata.resourceVersion;
      const w = await oc.watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
      // an in-flight request: a list waiting for a version that never comes (answers 504 after 800 ms)
      const inflight = oc.get(`/api/v1/namespaces/default/configmaps?resourceVersion=${Number(rv) + 1000}`);
      await sleep(50);
      const stopping = own.server.shutdown();
      await sleep(100);
      const ready = await oc.get('/readyz?verbose');
      assert.equal(ready.status, 500);
      assert.match(ready.body, /\[-\]shutdown failed/);
      assert.equal((await oc.get('/livez')).status, 200);
      const answered = await inflight;
      assert.equal(answered.status, 504);
      await stopping;
      await w.ended;
      assert.equal(w.errorBody, undefined);
    } finally {
      oc.close();
      await own.close();
    }
  });

  test('errors: 404, 405, 406, 409, 413, 415, 422 are Status objects', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const isStatus = (r: { json: any; status: number }, code: number, reason: string) => {
      assert.equal(r.status, code, JSON.stringify(r.json));
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.apiVersion, 'v1');
      assert.equal(r.json.status, 'Failure');
      assert.equal(r.json.code, code);
      assert.equal(r.json.reason, reason);
      assert.ok(r.json.message);
    };
    isStatus(await c().get('/api/v1/nothings'), 404, 'NotFound');
    isStatus(await c().get('/no/such/path'), 404, 'NotFound');
    // a path the reference's HTTP server cannot parse is refused before any handler
    for (const path of [`${base}/a%zz`, `${base}/a%`, '/api/v1/namespaces/%G0/configmaps']) {
      const r = await c().get(path);
      isStatus(r, 400, 'BadRequest');
      assert.match(r.json.message, /^invalid URL escape "%/, path);
    }
    assert.equal((await c().get(`${base}/a%2Fb`)).status, 404, 'an escaped slash is a name that does not exist');
    isStatus(await c().request('POST', `${base}/x`, { body: configMap('x') }), 405, 'MethodNotAllowed');
    isStatus(await c().request('PUT', base, { body: configMap('x') }), 405, 'MethodNotAllowed');
    isStatus(await c().get(base, { accept: 'image/png' }), 406, 'NotAcceptable');
    await c().request('POST', base, { body: configMap('x') });
    isStatus(await c().request('POST', base, { body: configMap('x') }), 409, 'AlreadyExists');
    const huge = await c().request('POST', base, { body: configMap('huge', { a: 'x'.repeat(3 * 1024 * 1024 + 10) }) });
    isStatus(huge, 413, 'RequestEntityTooLarge');
    isStatus(await c().request('POST', base, { body: 'x', contentType: 'text/plain' }), 415, 'UnsupportedMediaType');
    // protobuf bodies of built-in kinds are decoded; a malformed envelope is the client's error
    isStatus(await c().request('POST', base, { body: Buffer.from([0x6b, 0x38, 0x73, 0x00, 1, 2]), contentType: 'application/vnd.cluster.protobuf' }), 400, 'BadRequest');
    isStatus(await c().request('POST', base, { body: configMap('UPPER') }), 422, 'Invalid');
    isStatus(await c().request('POST', base, { body: '{"kind":' }), 400, 'BadRequest');
    isStatus(await c().request('POST', base, { body: '[1,2]' }), 400, 'BadRequest');
    isStatus(await c().request('POST', base, { body: { ...configMap('k'), kind: 'Secret' } }), 400, 'BadRequest');
    isStatus(await c().get(`${base}?timeout=soon`), 400, 'BadRequest');
    assert.equal((await c().get(`${base}?timeout=32s`)).status, 200);
    isStatus(await c().get(`${base}?limit=abc`), 400, 'BadRequest');
  });

  test('errors: 429 past max-requests-inflight, with Retry-After (priority and fairness off)', async () => {
    // the controller manager is a client like any other: with one seat, its lists would take it from the test's
    const own = await serverOn(h.backend, { flags: ['--enable-priority-and-fairness=false', '--max-requests-inflight=1', '--max-mutating-requests-inflight=1', '--controller-manager=false'], freshnessTimeoutMs: 5000 });
    const oc = createClient(own.server);
    // system:masters are never refused, as in the reference: the limited requests come from another user
    const alice = { 'Impersonate-User': 'alice' };
    try {
      const rv = (await oc.get('/api/v1/namespaces/default/configmaps', alice)).json.metadata.resourceVersion;
      let slowDone = false;
      const slow = oc.get(`/api/v1/namespaces/default/configmaps?resourceVersion=${Number(rv) + 1_000_000}`, alice).finally(() => { slowDone = true; });
      // the slow list holds the one read seat until it gives up; ask until the server has seen it take the seat
      let refused = await oc.get('/api/v1/namespaces/default/configmaps', alice);
      while (refused.status === 200 && !slowDone) {
        await sleep(20);
        refused = await oc.get('/api/v1/namespaces/default/configmaps', alice);
      }
      assert.equal(refused.status, 429, slowDone ? `the slow list answered ${(await slow).status}` : undefined);
      assert.equal(refused.json.reason, 'TooManyRequests');
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal((await oc.get('/api/v1/namespaces/default/configmaps')).status, 200, 'system:masters get an answer');
      // writes have their own budget; watches and health are exempt
      assert.equal((await oc.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w'), headers: alice })).status, 201);
      const w = await oc.watch(`/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`, alice);
      assert.equal(w.status, 200);
      w.close();
      assert.equal((await slow).status, 504);
      // the seat is given back once the server has finished the answer, which may be just after the client read it
      await waitFor('the read seat to be free again', async () => (await oc.get('/api/v1/namespaces/default/configmaps', alice)).status === 200);
    } finally {
      oc.close();
      await own.close();
    }
  });

  test('garbage bodies and paths never crash the server', async () => {
    const ns = await h.namespace();
    let seed = 12345;
    const rand = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
    const pieces = ['{', '}', '[', ']', '"', ':', ',', 'null', 'true', '1e999', '-0', '"metadata"', '"name"', '"kind"', '"apiVersion"',
      '"v1"', '"ConfigMap"', '{"name":"a"}', '\\u0000', '"\\ud800"', '{"labels":{"a":1}}', '[[[[', '1', '"data"', '{"a":{"b":[]}}', ' '];
    const body = () => Array.from({ length: 1 + rand(12) }, () => pieces[rand(pieces.length)]).join('');
    const paths = [`/api/v1/namespaces/${ns}/configmaps`, `/api/v1/namespaces/${ns}/configmaps/a`, `/api/v1/namespaces/${ns}/pods`,
      '/api/v1/namespaces', `/apis/apps/v1/namespaces/${ns}/deployments`, `/api/v1/namespaces/${ns}/configmaps/a/status`,
      '/api/v1/namespaces/%ff/configmaps', '/apis/%2e%2e/v1', '/api/v1/namespaces/a/b/c/d/e', `/api/v1/namespaces/${ns}`];
    const methods = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'];
    const types = ['application/json', 'application/yaml', 'application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'];
    const failures: string[] = [];
    const structured = [{ metadata: [] }, { metadata: { name: 5 } }, { metadata: { name: 'a', labels: [] } }, { metadata: { name: 'a', finalizers: 'x' } },
      { apiVersion: 5, metadata: { name: 'a' } }, { metadata: { name: 'a', annotations: { a: { b: 1 } } } }, { metadata: { name: 'a', ownerReferences: [null] } },
      { metadata: { name: 'a', generateName: 7 } }, { metadata: { name: 'a' }, data: [] }, [{ op: 'move', from: '/x', path: '/metadata' }], [{ op: 'remove', path: '/metadata' }]];
    for (let i = 0; i < 300; i++) {
      const method = methods[rand(methods.length)];
      const path = paths[rand(paths.length)] + (rand(4) === 0 ? `?labelSelector=${encodeURIComponent(body())}&fieldSelector=${encodeURIComponent(body())}` : '');
      const text = rand(3) === 0 ? JSON.stringify(structured[rand(structured.length)]) : body();
      const r = await c().request(method, path, method === 'GET' ? {} : { body: text, contentType: types[rand(types.length)] });
      if (r.status >= 500) failures.push(`${method} ${path} ${text} -> ${r.status} ${r.body.slice(0, 200)}`);
      if (r.status >= 400) assert.equal(r.json?.kind, 'Status', `${method} ${path} ${text}: ${r.body.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
    assert.equal((await c().get('/readyz')).status, 200);
  });
});
