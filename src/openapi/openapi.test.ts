import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../testing.js';
import { allVerbs } from '../registry/types.js';

interface Reply { status: number; headers: IncomingHttpHeaders; body: Buffer }

function get(server: TestServer, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      method, ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, headers, agent: false,
    }, res => {
      const chunks: Buffer[] = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const json = (r: Reply) => JSON.parse(r.body.toString('utf8'));
const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex').toUpperCase();
const protobufAccept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('OpenAPI endpoints', () => {
  let server: TestServer;
  before(async () => { server = await startTestServer({ apiDomain: 'k8s.io' }); });
  after(async () => { await server?.close(); });

  test('v3 index: one entry per group version, addressed by the hash of its document', async () => {
    const index = await get(server, '/openapi/v3', { accept: 'application/json, */*' });
    assert.equal(index.status, 200);
    const paths = json(index).paths;
    const expected = server.resources.groups().flatMap(g => g.versions.map(v => (g.name ? `apis/${g.name}/${v}` : `api/${v}`)));
    assert.deepEqual(Object.keys(paths), expected);
    for (const key of ['api/v1', 'apis/apps/v1']) {
      const url: string = paths[key].serverRelativeURL;
      const hash = new URL(url, server.url).searchParams.get('hash')!;
      const doc = await get(server, url, { accept: 'application/json' });
      assert.equal(doc.status, 200);
      assert.equal(sha512(doc.body), hash);
      assert.equal(doc.headers['cache-control'], 'public, immutable');
      assert.equal(doc.headers.etag, `"${hash}"`);
      assert.ok(doc.headers.expires);
      assert.equal(json(doc).openapi, '3.0.0');
    }
  });

  test('v3 documents: ETag revalidation, stale hashes redirect, unknown group versions are not found', async () => {
    const plain = await get(server, '/openapi/v3/apis/apps/v1');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['cache-control'], 'no-cache, private');
    const again = await get(server, '/openapi/v3/apis/apps/v1', { 'if-none-match': String(plain.headers.etag) });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    const stale = await get(server, '/openapi/v3/apis/apps/v1?hash=0123');
    assert.equal(stale.status, 301);
    assert.equal(stale.headers.location, `/openapi/v3/apis/apps/v1?hash=${sha512(plain.body)}`);
    assert.equal((await get(server, '/openapi/v3/apis/nothing.example.com/v1')).status, 404);
  });

  test('v2: JSON by default, protobuf when asked, with a content type Go can parse', async () => {
    const asJson = await get(server, '/openapi/v2', { accept: 'application/json' });
    assert.equal(asJson.status, 200);
    assert.match(String(asJson.headers['content-type']), /^application\/json/);
    const doc = json(asJson);
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.definitions['io.k8s.api.apps.v1.Deployment']);

    for (const [path, headers] of [['/openapi/v2', { accept: protobufAccept }], ['/swagger-2.0.0.pb-v1', {}]] as const) {
      const pb = await get(server, path, { ...headers, 'accept-encoding': 'gzip' });
      assert.equal(pb.status, 200, path);
      assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      assert.equal(pb.headers['content-encoding'], 'gzip');
      const body = gunzipSync(pb.body);
      // field 1 (swagger), length-delimited: "2.0"
      assert.deepEqual([...body.subarray(0, 5)], [0x0a, 3, ...Buffer.from('2.0')]);
      assert.ok(body.length > 100_000);
    }
    assert.equal((await get(server, '/openapi/v2', { accept: 'text/html' })).status, 406);
    assert.equal((await get(server, '/openapi/v2', {}, 'POST')).status, 405);
  });

  test('v3: group version documents in protobuf when asked, tagged and addressed as their JSON form; the index is JSON whatever is asked', async () => {
    const index = await get(server, '/openapi/v3', { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(index.status, 200);
    assert.match(String(index.headers['content-type']), /^application\/json/);
    const url: string = json(index).paths['apis/apps/v1'].serverRelativeURL;
    const asJson = await get(server, url, { accept: 'application/json' });
    for (const accept of ['application/com.github.proto-openapi.spec.v3@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf, application/json']) {
      const pb = await get(server, url, { accept });
      assert.equal(pb.status, 200, accept);
      assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf');
      assert.equal(pb.headers.etag, asJson.headers.etag);
      assert.equal(pb.headers['cache-control'], 'public, immutable');
      // field 1 (openapi), length-delimited: "3.0.0"
      assert.deepEqual([...pb.body.subarray(0, 7)], [0x0a, 5, ...Buffer.from('3.0.0')]);
      assert.ok(pb.body.length > 10_000);
      assert.ok(pb.body.includes(Buffer.from('io.k8s.api.apps.v1.Deployment')));
    }
    assert.equal((await get(server, url, { accept: 'application/vnd.kubernetes.protobuf' })).status, 406);
  });

  test('documents follow the installed resources', async () => {
    const before = json(await get(server, '/openapi/v3')).paths;
    server.resources.add({
      group: 'stable.example.com', resource: 'crontabs', singular: 'crontab', kind: 'CronTab', namespaced: true, verbs: [...allVerbs],
      versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object', properties: { cronSpec: { type: 'string' } } } } } }],
    });
    try {
      const withCrd = json(await get(server, '/openapi/v3')).paths;
      assert.equal(withCrd['api/v1'].serverRelativeURL, before['api/v1'].serverRelativeURL);
      const doc = json(await get(server, withCrd['apis/stable.example.com/v1'].serverRelativeURL));
      const crontab = doc.components.schemas['com.example.stable.v1.CronTab'];
      assert.deepEqual(crontab['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
      assert.equal(crontab.properties.spec.properties.cronSpec.type, 'string');
      assert.ok(doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'].patch);
      const v2 = json(await get(server, '/openapi/v2'));
      assert.ok(v2.definitions['com.example.stable.v1.CronTabList']);
    } finally {
      server.resources.remove('stable.example.com', 'crontabs');
    }
    assert.deepEqual(json(await get(server, '/openapi/v3')).paths, before);
  });
});

describe('OpenAPI documents shared by the servers of one process', () => {
  let a: TestServer, b: TestServer;
  before(async () => { [a, b] = await Promise.all([startTestServer({ apiDomain: 'k8s.io' }), startTestServer({ apiDomain: 'k8s.io' })]); });
  after(async () => { await Promise.all([a?.close(), b?.close()]); });

  test('two servers of the same API answer the same documents; a resource added to one stays its own', async () => {
    const etag = async (s: TestServer) => (await get(s, '/openapi/v2', { accept: 'application/json' })).headers.etag;
    assert.equal(await etag(a), await etag(b));
    a.resources.add({
      group: 'stable.example.com', resource: 'crontabs', singular: 'crontab', kind: 'CronTab', namespaced: true, verbs: [...allVerbs],
      versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object' } }],
    });
    const withCrd = json(await get(a, '/openapi/v2', { accept: 'application/json' }));
    assert.ok(withCrd.definitions['com.example.stable.v1.CronTab']);
    const other = json(await get(b, '/openapi/v2', { accept: 'application/json' }));
    assert.equal(other.definitions['com.example.stable.v1.CronTab'], undefined);
    assert.notEqual(await etag(a), await etag(b));
    a.resources.remove('stable.example.com', 'crontabs');
    assert.equal(await etag(a), await etag(b));
  });
});
