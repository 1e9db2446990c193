// One request must never stop the server: each hostile request that once crashed it, answered 5xx or stalled it gets
// a clear 4xx (or is served) and the server goes on answering.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as http2Connect } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueClientCertificate } from '../../src/pki/pki.js';
import { startTestServer } from '../../src/testing.js';
import { serverOn } from './servers.js';
import { createClient, type Client } from './client.js';
import type { TestServer } from '../../src/testing.js';
import { widgetCrd } from '../fuzz/fixtures.js';
import { until } from '../support/wait.js';

/** the Warning header values as text (the server sends their UTF-8 bytes, which Node's client reads as Latin-1) */
const warningsOf = (headers: Record<string, unknown>): string[] => {
  const w = headers.warning;
  return (Array.isArray(w) ? w : w === undefined ? [] : String(w).split(/,(?=\s*299 )/)).map(v => Buffer.from(String(v).trim(), 'latin1').toString('utf8'));
};

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {}, ...extra });

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`hostile requests [${backend}]`, () => {
    let server: TestServer;
    let close: () => Promise<void>;
    let client: Client;
    const ns = 'default';
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    before(async () => {
      ({ server, close } = await serverOn(backend));
      client = createClient(server);
    });
    after(async () => { client.close(); await close(); });

    const alive = async () => assert.equal((await client.get('/livez')).status, 200);

    test('an unknown field named outside Latin-1 is warned about over HTTP/1.1, escaped', async () => {
      const r = await client.request('POST', `${cms}?fieldValidation=Warn`, { body: JSON.stringify({ ...configMap('cyrillic'), 'ж': 1 }) });
      assert.equal(r.status, 201, r.body);
      assert.deepEqual(warningsOf(r.headers), ['299 - "unknown field \\"\\u0436\\""']);
      await alive();
    });

    test('the same warning reaches an HTTP/2 client', async () => {
      const session = http2Connect(server.url, { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem });
      try {
        const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
          const s = session.request({ ':method': 'POST', ':path': `${cms}?fieldValidation=Warn`, 'content-type': 'application/json' });
          s.on('response', h => { resolve(h); s.resume(); });
          s.on('error', reject);
          s.end(JSON.stringify({ ...configMap('cyrillic-h2'), '😀ж': 1 }));
        });
        assert.equal(headers[':status'], 201);
        assert.deepEqual(warningsOf(headers), ['299 - "unknown field \\"😀ж\\""']);
      } finally { session.close(); }
    });

    test('10,000 duplicate and unknown fields give at most 4 KB of warnings, and say how many were dropped', async () => {
      const keys = Array.from({ length: 10_000 }, (_, i) => `"dup":${i},"u${i}":1`).join(',');
      const r = await client.request('POST', `${cms}?fieldValidation=Warn`, { body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dups"},${keys}}` });
      assert.equal(r.status, 201, r.body.slice(0, 300));
      const warnings = warningsOf(r.headers);
      // the texts inside 299 - "..." hold at most 4 KB, and the last item may pass it by one truncated warning
      const text = warnings.slice(0, -1).reduce((n, w) => n + w.slice('299 - "'.length, -1).replace(/\\(.)/g, '$1').length, 0);
      assert.ok(text <= 4096 + 256, `warning text ${text}`);
      assert.match(warnings.at(-1)!, /\d+ more warnings were dropped/);
      assert.equal(new Set(warnings).size, warnings.length, 'no warning twice');
    });

    test('a metadata.namespace field selector on a cluster-scoped resource reads the namespace as empty, in lists and watches', async () => {
      for (const path of ['/api/v1/namespaces', `/apis/rbac.authorization.${server.names.domain}/v1/clusterroles`]) {
        const none = await client.get(`${path}?fieldSelector=${encodeURIComponent('metadata.namespace=x')}`);
        assert.equal(none.status, 200, none.body.slice(0, 300));
        assert.deepEqual(none.json.items, []);
        for (const selector of ['metadata.namespace!=x', 'metadata.namespace=']) {
          const all = await client.get(`${path}?fieldSelector=${encodeURIComponent(selector)}`);
          assert.equal(all.status, 200, all.body.slice(0, 300));
          assert.ok(all.json.items.length > 0, `${path} ${selector}`);
        }
        // the watch ends at its timeout, having sent the objects that exist
        const watch = await client.get(`${path}?watch=1&timeoutSeconds=1&fieldSelector=${encodeURIComponent('metadata.namespace!=x')}`);
        assert.equal(watch.status, 200, watch.body.slice(0, 300));
        assert.match(watch.body, /"type":"ADDED"/);
      }
      await alive();
    });

    test('a JSON body nested 10,000 deep is a 400', async () => {
      const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
      const r = await client.request('POST', cms, { body: deep });
      assert.equal(r.status, 400, r.body.slice(0, 300));
      assert.match(r.json.message, /nested more than 1000 levels/);
      const arrays = await client.request('PATCH', `${cms}/x`, { body: '['.repeat(10_000) + ']'.repeat(10_000), contentType: 'application/merge-patch+json' });
      assert.equal(arrays.status, 400);
      await alive();
    });

    for (const [what, yaml] of [
      ['block mappings', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n')],
      ['flow sequences', `${'['.repeat(5000)}${']'.repeat(5000)}`],
      ['block sequences', `${'- '.repeat(5000)}x`],
    ] as const) {
      test(`a deeply nested YAML body (${what}, ${Math.round(yaml.length / 1024)} KB) is a 400, as body and as apply patch`, async () => {
        const r = await client.request('POST', cms, { body: yaml, contentType: 'application/yaml' });
        assert.equal(r.status, 400, r.body.slice(0, 300));
        const applied = await client.request('PATCH', `${cms}/deep-apply?fieldManager=t`, { body: yaml, contentType: 'application/apply-patch+yaml' });
        assert.equal(applied.status, 400, applied.body.slice(0, 300));
        await alive();
      });
    }

    test('YAML aliases that expand exponentially are a 400', async () => {
      const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 9; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]`);
      const r = await client.request('POST', cms, { body: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\n${lines.join('\n')}\n`, contentType: 'application/yaml' });
      assert.equal(r.status, 400, r.body.slice(0, 300));
      assert.match(r.json.message, /aliases/);
    });

    test('a 40,000-key YAML body is decoded and stored', async () => {
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: many-keys\ndata:\n${Array.from({ length: 40_000 }, (_, i) => `  k${i}: v`).join('\n')}\n`;
      const r = await client.request('POST', cms, { body: yaml, contentType: 'application/yaml' });
      assert.equal(r.status, 201, r.body.slice(0, 300));
      assert.equal(Object.keys(r.json.data).length, 40_000);
    });

    test('out-of-range numeric query parameters are a 400 naming the parameter', async () => {
      await client.request('POST', cms, { body: configMap('graceful') });
      for (const [method, path, param] of [
        ['DELETE', `${cms}/graceful?gracePeriodSeconds=99999999999999999999`, 'gracePeriodSeconds'],
        ['GET', `${cms}?limit=99999999999999999999`, 'limit'],
        ['GET', `${cms}?limit=1e3`, 'limit'],
        ['GET', `${cms}?watch=1&timeoutSeconds=99999999999999999999`, 'timeoutSeconds'],
        ['GET', `${cms}?watch=1&timeoutSeconds=-1`, 'timeoutSeconds'],
      ] as const) {
        const r = await client.request(method, path);
        assert.equal(r.status, 400, `${path}: ${r.body}`);
        assert.match(r.json.message, new RegExp(`^${param}: Invalid value`), path);
      }
      // large but legal values mean what the reference means
      assert.equal((await client.request('GET', `${cms}?limit=9223372036854775807`)).status, 200);
      const graceful = await client.request('DELETE', `${cms}/graceful?gracePeriodSeconds=9223372036854775807`);
      assert.ok(graceful.status === 200, graceful.body);
      await alive();
    });

    test('continue tokens the server never issued are a 400', async () => {
      for (const t of [{ rv: 5, start: 'other-namespace/x' }, { rv: 1e300, start: `${ns}/x` }, { rv: 1.5, start: `${ns}/x` }]) {
        const token = Buffer.from(JSON.stringify({ v: `${server.names.metaGroup}/v1`, ...t })).toString('base64url');
        const r = await client.get(`${cms}?limit=1&continue=${token}`);
        assert.equal(r.status, 400, `${JSON.stringify(t)}: ${r.body.slice(0, 200)}`);
      }
    });

    test('path segments that name properties of every object are not found', async () => {
      for (const path of ['/constructor', '/__proto__', '/livez/constructor', `${cms}/cm-0/constructor`, `${cms}/cm-0/__proto__`, '/apis/constructor/v1', '/openapi/v3/constructor']) {
        for (const method of ['GET', 'DELETE', 'PATCH']) {
          const r = await client.request(method, path, method === 'PATCH' ? { body: '{}', contentType: 'application/merge-patch+json' } : {});
          assert.ok(r.status >= 400 && r.status < 500, `${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
        }
      }
    });

    test('CONNECT gets the reference\'s Status (405 on a resource, 404 on a bare authority) and the connection closes', { timeout: 120_000 }, async () => {
      const exchange = (head: string) => exchangeOn(server, head);
      const host = `Host: ${new URL(server.url).host}`;
      for (const [head, code, reason] of [
        [`CONNECT ${cms} HTTP/1.1\r\n${host}`, 405, 'MethodNotAllowed'],
        [`CONNECT ${cms}/some-name HTTP/1.1\r\n${host}`, 405, 'MethodNotAllowed'],
        [`CONNECT /api/v1/namespaces/${ns}/pods/p/exec?command=ls HTTP/1.1\r\n${host}`, 405, 'MethodNotAllowed'],
        [`CONNECT /api/v1/namespaces/${ns}/pods/p/proxy/x HTTP/1.1\r\n${host}\r\nConnection: Upgrade\r\nUpgrade: websocket`, 405, 'MethodNotAllowed'],
        ['CONNECT /version HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc', 405, 'MethodNotAllowed'],
        [`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443`, 404, 'NotFound'],
        ['CONNECT 127.0.0.1:6443 HTTP/1.1', 404, 'NotFound'],
      ] as const) {
        const r = await exchange(head);
        assert.equal(r.status, code, `${head}: ${r.raw.slice(0, 300)}`);
        assert.equal(r.json.kind, 'Status', head);
        assert.equal(r.json.code, code, head);
        assert.equal(r.json.reason, reason, head);
      }
      // sent on one connection behind a request still being answered, a CONNECT or an upgrade waits for that answer
      for (const second of [`CONNECT /version HTTP/1.1\r\n${host}`, `GET /api/v1/namespaces/${ns}/pods/p/exec?command=ls HTTP/1.1\r\n${host}\r\nConnection: Upgrade\r\nUpgrade: websocket`]) {
        const r = await exchange(`GET /version HTTP/1.1\r\n${host}\r\n\r\n${second}`);
        assert.equal(r.status, 200, r.raw.slice(0, 300));
        assert.match(r.raw, /\r\n\r\n[\s\S]*HTTP\/1\.1 4\d\d /, `the pipelined ${second.split(' ')[0]} is answered after the first: ${r.raw.slice(r.raw.indexOf("\r\n\r\n"), 1200)}`);
      }
      // over HTTP/2 a CONNECT names an authority and no path
      const session = http2Connect(server.url, { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem });
      try {
        const answer = await new Promise<{ status: unknown; body: string }>((resolve, reject) => {
          const s = session.request({ ':method': 'CONNECT', ':authority': 'example.com:443' });
          let status: unknown, body = '';
          s.on('response', h => { status = h[':status']; });
          s.setEncoding('utf8').on('data', d => { body += d; }).on('end', () => resolve({ status, body })).on('error', reject);
        });
        assert.equal(answer.status, 404);
        assert.equal(JSON.parse(answer.body).reason, 'NotFound');
      } finally { session.close(); }
      await alive();
    });

    test('HTTP/1.1 request forms: Expect: 100-continue past the body limit is a 413 with no 100 Continue, absolute-form and OPTIONS * as the reference answers them', async () => {
      const host = `Host: ${new URL(server.url).host}\r\nConnection: close`;
      const refused = await exchangeOn(server, `POST ${cms} HTTP/1.1\r\n${host}\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\nExpect: 100-continue`);
      assert.equal(refused.status, 413, refused.raw.slice(0, 300));
      assert.equal(refused.json.reason, 'RequestEntityTooLarge');
      // a request line in absolute form names the path in its URL
      const absolute = await exchangeOn(server, `GET https://${new URL(server.url).host}${cms}?limit=1 HTTP/1.1\r\n${host}`);
      assert.equal(absolute.status, 200, absolute.raw.slice(0, 300));
      assert.equal(absolute.json.kind, 'ConfigMapList');
      const options = await exchangeOn(server, `OPTIONS * HTTP/1.1\r\n${host}`);
      assert.match(options.raw, /^HTTP\/1\.1 200 [\s\S]*\r\ncontent-length: 0\r\n/i, options.raw);
      // HTTP/2.0 on an HTTP/1.1 connection is no protocol this connection speaks
      assert.equal((await exchangeOn(server, `GET /version HTTP/2.0\r\n${host}`)).status, 505);
      await alive();
    });

    test('numbers a typed field cannot hold are a 400 naming the field, as the reference decodes them', async () => {
      const deployment = (name: string, replicas: string) => `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"${name}"},"spec":{"replicas":${replicas},` +
        '"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}';
      const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
      for (const [replicas, shown] of [['1099511627776', '1099511627776'], ['2147483648', '2147483648'], ['-2147483649', '-2147483649'], ['99999999999999999999999', '1e+23']]) {
        const r = await client.request('POST', deployments, { body: deployment(`replicas-${replicas.length}`, replicas) });
        assert.equal(r.status, 400, `${replicas}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, new RegExp(`spec\\.replicas: expected int32, got number ${shown.replace('+', '\\+')}`));
      }
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'grace' }, spec: { terminationGracePeriodSeconds: 1e300, containers: [{ name: 'c', image: 'i' }] } };
      const grace = await client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod });
      assert.equal(grace.status, 400, grace.body.slice(0, 300));
      assert.match(grace.json.message, /spec\.terminationGracePeriodSeconds: expected int64/);
      // a whole number written with a fraction or an exponent is no integer to the reference's JSON decoder
      for (const replicas of ['1.0', '1e0', '2E+0']) {
        const r = await client.request('POST', deployments, { body: deployment('replicas-fraction', replicas) });
        assert.equal(r.status, 400, `${replicas}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, new RegExp(`spec\\.replicas: expected int32, got number ${replicas.replace('+', '\\+')}`));
      }
      // YAML has no such difference (its 1.0 reaches the reference's decoder as JSON 1)
      const yaml = await client.request('POST', deployments, { contentType: 'application/yaml',
        body: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: replicas-yaml}\nspec:\n  replicas: 1.0\n  selector: {matchLabels: {a: b}}\n' +
          '  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n' });
      assert.equal(yaml.status, 201, yaml.body.slice(0, 300));
      assert.equal(yaml.json.spec.replicas, 1);
      // the edges of the ranges are stored
      const edge = await client.request('POST', deployments, { body: deployment('replicas-edge', '2147483647') });
      assert.equal(edge.status, 201, edge.body.slice(0, 300));
      // a patch that writes such a number is invalid, as the reference reports a patch that does not decode
      const patched = await client.request('PATCH', `${deployments}/replicas-edge`, { body: '{"spec":{"replicas":4294967296}}', contentType: 'application/merge-patch+json' });
      assert.equal(patched.status, 422, patched.body.slice(0, 300));
    });

    test('a resource quantity that does not parse is a 400, as the reference decodes quantities', async () => {
      const pod = (name: string, cpu: unknown) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu } } }] } });
      for (const [cpu, why] of [['garbage', /quantities must match the regular expression/], ['1e99999999999', /unable to parse quantity's suffix/], ['1KiB', /unable to parse quantity's suffix/], [{}, /quantities must match/]] as const) {
        const r = await client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('quantity', cpu) });
        assert.equal(r.status, 400, `${JSON.stringify(cpu)}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, why);
        assert.match(r.json.message, /spec\.containers\[0\]\.resources\.limits\.cpu: /);
      }
      for (const [i, cpu] of ['250m', ' 1 ', '1e3', 2, '.5'].entries())
        assert.equal((await client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(`quantity-${i}`, cpu) })).status, 201, String(cpu));
      const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `quantity-${backend}` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } };
      assert.equal((await client.request('POST', '/api/v1/persistentvolumes', { body: pv })).status, 201);
      const patched = await client.request('PATCH', `/api/v1/persistentvolumes/quantity-${backend}`, { body: { spec: { capacity: { storage: 'lots' } } }, contentType: 'application/merge-patch+json' });
      assert.equal(patched.status, 422, patched.body.slice(0, 300));
      assert.match(patched.json.message, /spec\.capacity\.storage: quantities must match/);
    });

    test('bytes that are not standard base64 are a 400, as the reference decodes them: such a Secret would fail every client that lists it', async () => {
      const secret = (name: string, a: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { a } });
      for (const a of ['!!!', 'YQ', 'YQ=', 'YQ==YQ==']) {
        const r = await client.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('not-base64', a) });
        assert.equal(r.status, 400, `${a}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, /data\.a: illegal base64 data at input byte \d+/, a);
      }
      assert.equal((await client.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('base64', 'YWJj\nZA==') })).status, 201);
      const binary = await client.request('POST', cms, { body: { ...configMap('not-base64'), binaryData: { b: 'a b' } } });
      assert.equal(binary.status, 400, binary.body.slice(0, 300));
    });

    test('an int-or-string that is neither (an object, 1.5, an int beyond int32) is a 400, as the reference decodes it', async () => {
      const deployment = (name: string, maxUnavailable: unknown) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
        spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } }, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } });
      for (const [v, why] of [[{}, /expected int or string, got object/], [1.5, /expected int or string, got number/], [2 ** 40, /expected int32, got number 1099511627776/], [true, /expected int or string, got boolean/]] as const) {
        const r = await client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('int-or-string', v) });
        assert.equal(r.status, 400, `${JSON.stringify(v)}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, new RegExp(`spec\\.strategy\\.rollingUpdate\\.maxUnavailable: ${why.source}`));
      }
      for (const [i, v] of [1, '25%'].entries())
        assert.equal((await client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(`int-or-string-${i}`, v) })).status, 201);
    });

    test('times that are not RFC 3339 are a 400, as the reference decodes Time and MicroTime', async () => {
      const leases = `/apis/coordination.${server.names.domain}/v1/namespaces/${ns}/leases`;
      const lease = (name: string, renewTime: string) => ({ apiVersion: `coordination.${server.names.domain}/v1`, kind: 'Lease', metadata: { name }, spec: { holderIdentity: 'x', renewTime } });
      for (const t of ['garbage', '', '2026-13-01T00:00:00Z', '2026-01-01 00:00:00Z', '2026-01-01T00:00:00']) {
        const r = await client.request('POST', leases, { body: lease('bad-time', t) });
        assert.equal(r.status, 400, `${t}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, /spec\.renewTime: parsing time/);
      }
      for (const [i, t] of ['2026-11-26T23:18:56.123456Z', '2026-11-26T23:18:56Z', '2026-11-26T23:18:56.5+01:00'].entries())
        assert.equal((await client.request('POST', leases, { body: lease(`time-${i}`, t) })).status, 201, t);
    });

    test('a namespace with a finalizer that is no qualified name is invalid: it could never be finalized', async () => {
      const r = await client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bad-finalizer' }, spec: { finalizers: ['ok', 'a b', ''] } } });
      assert.equal(r.status, 422, r.body.slice(0, 300));
      assert.deepEqual([...new Set(r.json.details.causes.map((c: { field: string }) => c.field))], ['spec.finalizers[1]', 'spec.finalizers[2]']);
    });

    test('subresource bodies are read as their kind: another kind or a number out of range is a 400 and changes nothing', async () => {
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'not-evicted' }, spec: { containers: [{ name: 'c', image: 'i' }] } };
      assert.equal((await client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod })).status, 201);
      const evicted = await client.request('POST', `/api/v1/namespaces/${ns}/pods/not-evicted/eviction`, { body: { apiVersion: 'v1', kind: 'Pod' } });
      assert.equal(evicted.status, 400, evicted.body.slice(0, 300));
      assert.equal(evicted.json.message, 'the kind in the body (Pod) is not Eviction');
      const grace = await client.request('POST', `/api/v1/namespaces/${ns}/pods/not-evicted/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'not-evicted' }, deleteOptions: { gracePeriodSeconds: 1e300 } } });
      assert.equal(grace.status, 400, grace.body.slice(0, 300));
      assert.equal((await client.get(`/api/v1/namespaces/${ns}/pods/not-evicted`)).status, 200);

      const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
      const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'scaled' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } };
      assert.equal((await client.request('POST', deployments, { body: d })).status, 201);
      const put = await client.request('PUT', `${deployments}/scaled/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'scaled' }, spec: { replicas: 2 ** 40 } } });
      assert.equal(put.status, 400, put.body.slice(0, 300));
      assert.match(put.json.message, /spec\.replicas: expected int32, got number 1099511627776/);
      const patched = await client.request('PATCH', `${deployments}/scaled/scale`, { body: { spec: { replicas: 2 ** 40 } }, contentType: 'application/merge-patch+json' });
      assert.equal(patched.status, 422, patched.body.slice(0, 300));
      assert.equal((await client.get(`${deployments}/scaled`)).json.spec.replicas, 1);
      assert.equal((await client.request('PATCH', `${deployments}/scaled/scale`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' })).status, 200);
    });

    test('fields named after what every JavaScript object inherits are unknown fields, dropped and reported', async () => {
      const inherited = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];
      const extra = inherited.map(k => `"${k}":${k === '__proto__' ? '{"namespace":"kube-system"}' : '"x"'}`).join(',');
      const body = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}",${extra}},${extra}}`;
      const strict = await client.request('POST', `${cms}?fieldValidation=Strict`, { body: body('inherited-strict') });
      assert.equal(strict.status, 400, strict.body.slice(0, 300));
      for (const k of inherited) assert.ok(strict.json.message.includes(`unknown field "metadata.${k}"`) && strict.json.message.includes(`unknown field "${k}"`), `${k}: ${strict.json.message}`);
      const created = await client.request('POST', cms, { body: body('inherited') });
      assert.equal(created.status, 201, created.body.slice(0, 300));
      const stored = await client.get(`${cms}/inherited`);
      for (const k of inherited) {
        assert.ok(!Object.hasOwn(stored.json, k), `${k} stored: ${stored.body.slice(0, 300)}`);
        assert.ok(!Object.hasOwn(stored.json.metadata, k), `metadata.${k} stored: ${stored.body.slice(0, 300)}`);
      }
      assert.equal(stored.json.metadata.namespace, ns);
    });

    test('a CRD pattern matches as RE2: no backtracking on a long value, and lookarounds are refused', async () => {
      const crds = `/apis/apiextensions.${server.names.domain}/v1/customresourcedefinitions`;
      const crd = (plural: string, pattern: string) => ({
        apiVersion: `apiextensions.${server.names.domain}/v1`, kind: 'CustomResourceDefinition', metadata: { name: `${plural}.hostile.example.com` },
        spec: {
          group: 'hostile.example.com', scope: 'Namespaced', names: { plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string', pattern } } } } } } }],
        },
      });
      const lookaround = await client.request('POST', crds, { body: crd('lookarounds', '^(?!x)a') });
      assert.equal(lookaround.status, 422, lookaround.body.slice(0, 300));
      assert.match(lookaround.json.message, /pattern: Invalid value: "\^\(\?!x\)a": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax/);
      assert.equal((await client.request('POST', crds, { body: crd('nesteds', '^(a+)+$') })).status, 201);
      const nesteds = `/apis/hostile.example.com/v1/namespaces/${ns}/nesteds`;
      while ((await client.get(nesteds)).status !== 200) await new Promise(res => setTimeout(res, 20));
      // a backtracking engine takes 2^n steps to refuse this value
      const r = await client.request('POST', nesteds, { body: { apiVersion: 'hostile.example.com/v1', kind: 'Nested', metadata: { name: 'n' }, spec: { a: `${'a'.repeat(100_000)}!` } } });
      assert.equal(r.status, 422, r.body.slice(0, 300));
      assert.match(r.json.message, /spec\.a in body should match '\^\(a\+\)\+\$'/);
      await alive();
    });

    test('a CEL rule nested past the parser\'s depth or longer than its size limit is a 422 naming the rule, not a 500', async () => {
      const crds = `/apis/apiextensions.${server.names.domain}/v1/customresourcedefinitions`;
      const crd = (plural: string, rule: string) => ({
        apiVersion: `apiextensions.${server.names.domain}/v1`, kind: 'CustomResourceDefinition', metadata: { name: `${plural}.hostile.example.com` },
        spec: {
          group: 'hostile.example.com', scope: 'Namespaced', names: { plural, kind: plural[0].toUpperCase() + plural.slice(1, -1) },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: {
            spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule }] } } } } }],
        },
      });
      for (const [what, rule, message] of [
        ['a chain of 5,000 additions', `${Array(5000).fill('self.n').join(' + ')} > 0`, /max recursion depth exceeded/],
        ['5,000 field selections', `self${'.a'.repeat(5000)} > 0`, /max recursion depth exceeded/],
        ['5,000 indexes', `self.n${'[0]'.repeat(5000)} > 0`, /max recursion depth exceeded/],
        ['3,000 nested conditionals', `${'true ? 1 : '.repeat(3000)}1 > 0`, /max recursion depth exceeded/],
        ['a rule of 100,001 code points', `self.n == size("${'ж'.repeat(100_001 - 'self.n == size("")'.length)}")`, /expression code point size exceeds limit: size: 100001, limit 100000/],
      ] as const) {
        const r = await client.request('POST', `${crds}?dryRun=All`, { body: crd('deeprules', rule) });
        assert.equal(r.status, 422, `${what}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, /x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/, what);
        assert.match(r.json.message, message, what);
      }
      // as deep as real rules go still compiles
      const fine = await client.request('POST', `${crds}?dryRun=All`, { body: crd('deeprules', `${Array(50).fill('self.n').join(' + ')} > 0`) });
      assert.equal(fine.status, 201, fine.body.slice(0, 300));
      await alive();
    });

    test('a JSON patch that builds an object nested deeper than a body may be is a 422, not a 500', async () => {
      const crds = `/apis/apiextensions.${server.names.domain}/v1/customresourcedefinitions`;
      const created = await client.request('POST', crds, { body: {
        apiVersion: `apiextensions.${server.names.domain}/v1`, kind: 'CustomResourceDefinition', metadata: { name: 'freeforms.hostile.example.com' },
        spec: {
          group: 'hostile.example.com', scope: 'Namespaced', names: { plural: 'freeforms', kind: 'Freeform' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: {
            spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }],
        },
      } });
      assert.equal(created.status, 201, created.body.slice(0, 300));
      const freeforms = `/apis/hostile.example.com/v1/namespaces/${ns}/freeforms`;
      while ((await client.get(freeforms)).status !== 200) await new Promise(res => setTimeout(res, 20));
      assert.equal((await client.request('POST', freeforms, { body: { apiVersion: 'hostile.example.com/v1', kind: 'Freeform', metadata: { name: 'f' }, spec: {} } })).status, 201);
      // each part nests 900 deep, within a body's limit; together 1,800
      const deep = (n: number): unknown => { let v: unknown = {}; for (let i = 0; i < n; i++) v = { x: v }; return v; };
      const patch = [{ op: 'add', path: '/spec/a', value: deep(900) }, { op: 'add', path: `/spec/a${'/x'.repeat(899)}/x`, value: deep(900) }];
      const r = await client.request('PATCH', `${freeforms}/f`, { body: patch, contentType: 'application/json-patch+json' });
      assert.equal(r.status, 422, r.body.slice(0, 300));
      assert.match(r.json.message, /the patched object is nested more than 1000 levels deep/);
      await alive();
    });

    test('a SelfSubjectRulesReview that names no namespace is a 400, as the reference answers it', async () => {
      const path = `/apis/authorization.${server.names.domain}/v1/selfsubjectrulesreviews`;
      for (const spec of [undefined, {}, { namespace: '' }]) {
        const r = await client.request('POST', path, { body: { apiVersion: `authorization.${server.names.domain}/v1`, kind: 'SelfSubjectRulesReview', ...(spec ? { spec } : {}) } });
        assert.equal(r.status, 400, `${JSON.stringify(spec)}: ${r.body.slice(0, 300)}`);
        assert.equal(r.json.message, 'no namespace on request');
      }
      const named = await client.request('POST', path, { body: { spec: { namespace: ns } } });
      assert.equal(named.status, 201, named.body.slice(0, 300));
    });

    test('a DeleteOptions body of the wrong types is a 400 that deletes nothing: a dry run given as a string is no real delete', async () => {
      for (const [field, body, message] of [
        ['dryRun', { dryRun: 'All' }, /dryRun: expected array, got string/],
        ['preconditions.uid', { preconditions: { uid: 5 } }, /preconditions\.uid: expected string, got integer/],
        ['propagationPolicy', { propagationPolicy: ['Orphan'] }, /propagationPolicy: expected string, got array/],
        ['orphanDependents', { orphanDependents: 'yes' }, /orphanDependents: expected boolean, got string/],
        ['gracePeriodSeconds', { gracePeriodSeconds: '5' }, /gracePeriodSeconds: expected integer, got string/],
      ] as const) {
        await client.request('POST', cms, { body: configMap('delete-typed') });
        const r = await client.request('DELETE', `${cms}/delete-typed`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', ...body } });
        assert.equal(r.status, 400, `${field}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, /^DeleteOptions in version "v1" cannot be handled as a DeleteOptions: /, field);
        assert.match(r.json.message, message, field);
        assert.equal((await client.get(`${cms}/delete-typed`)).status, 200, `${field}: the object is still there`);
      }
      const dry = await client.request('DELETE', `${cms}/delete-typed`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } });
      assert.equal(dry.status, 200, dry.body.slice(0, 300));
      assert.equal((await client.get(`${cms}/delete-typed`)).status, 200, 'a dry run deletes nothing');
    });

    test('log options that do not decode are a 400, decoded ones out of range a 422 naming each, before any node is asked', async () => {
      const pods = `/api/v1/namespaces/${ns}/pods`;
      await client.request('POST', pods, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'log-options' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'c', image: 'x' }] } } });
      // as the reference validates PodLogOptions once decoded
      for (const [query, message] of [
        ['tailLines=-1', 'PodLogOptions "log-options" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0'],
        ['limitBytes=0', 'PodLogOptions "log-options" is invalid: limitBytes: Invalid value: 0: must be greater than 0'],
        ['sinceSeconds=0', 'PodLogOptions "log-options" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0'],
        ['sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z', 'PodLogOptions "log-options" is invalid: Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified'],
        ['tailLines=-1&limitBytes=0', 'PodLogOptions "log-options" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]'],
      ] as const) {
        const r = await client.get(`${pods}/log-options/log?${query}`);
        assert.equal(r.status, 422, `${query}: ${r.body.slice(0, 300)}`);
        assert.equal(r.json.reason, 'Invalid', query);
        assert.equal(r.json.message, message, query);
        assert.equal(r.json.details.kind, 'PodLogOptions', query);
      }
      for (const [query, message] of [
        ['tailLines=abc', /^tailLines: Invalid value: "abc": must be a 64-bit integer$/],
        ['tailLines=99999999999999999999', /^tailLines: Invalid value: "99999999999999999999": must be a 64-bit integer$/],
        ['limitBytes=9223372036854775808', /^limitBytes: Invalid value: "9223372036854775808": must be a 64-bit integer$/],
        ['sinceSeconds=99999999999999999999', /^sinceSeconds: Invalid value: "99999999999999999999": must be a 64-bit integer$/],
        ['sinceTime=9999-99-99T00:00:00Z', /^sinceTime: Invalid value: "9999-99-99T00:00:00Z": parsing time .* not an RFC 3339 time$/],
        // Date.parse takes these; the reference's time decoding does not (no zone, no time, a number)
        ['sinceTime=2026-01-01T00:00:00', /^sinceTime: Invalid value: "2026-01-01T00:00:00": parsing time .* not an RFC 3339 time$/],
        ['sinceTime=2026-01-01', /^sinceTime: Invalid value: "2026-01-01": parsing time .* not an RFC 3339 time$/],
        ['sinceTime=1', /^sinceTime: Invalid value: "1": parsing time .* not an RFC 3339 time$/],
      ] as const) {
        const r = await client.get(`${pods}/log-options/log?${query}`);
        assert.equal(r.status, 400, `${query}: ${r.body.slice(0, 300)}`);
        assert.match(r.json.message, message, query);
      }
      // within range, the request goes on to the node, which does not exist
      assert.equal((await client.get(`${pods}/log-options/log?tailLines=9223372036854775807`)).status, 404);
    });

    test('garbage and deeply nested protobuf bodies are a 4xx', async () => {
      let inner = Buffer.alloc(0);
      const field = (no: number, b: Buffer) => Buffer.concat([Buffer.from([(no << 3) | 2]), varint(b.length), b]);
      for (let i = 0; i < 3000; i++) inner = field(1, inner);
      const typeMeta = Buffer.concat([field(1, Buffer.from('v1')), field(2, Buffer.from('Pod'))]);
      for (const body of [Buffer.from('k8s\0garbage'), Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, inner)])]) {
        const r = await client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body, contentType: `application/vnd.${server.names.vendor}.protobuf` });
        assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.body.slice(0, 300)}`);
      }
      await alive();
    });
  });
}

/** what an HTTP/1.1 exchange on its own connection reads until the server closes it (`head` is sent with a blank line after it) */
function exchangeOn(server: TestServer, head: string) {
  return new Promise<{ status: number; json: any; raw: string }>((resolve, reject) => {
    const { hostname, port } = new URL(server.url);
    const socket = tlsConnect({ host: hostname, port: Number(port), ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] },
      () => socket.write(`${head}\r\n\r\n`));
    let raw = '';
    socket.setEncoding('utf8').on('data', d => { raw += d; }).on('error', reject);
    socket.on('close', () => {
      const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
      let json: any;
      try { json = JSON.parse(body); } catch { /* not one JSON document */ }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0), json, raw });
    });
  });
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) { out.push((n & 127) | 128); n = Math.floor(n / 128); }
  out.push(n);
  return Buffer.from(out);
}

describe('a client certificate with no common name', () => {
  for (const anonymous of [true, false]) {
    test(`is no credential: the request goes on as ${anonymous ? 'system:anonymous' : 'unauthenticated (401)'}, as the reference's authenticator passes it over`, async () => {
      const server = await startTestServer({ flags: ['--authorization-mode=RBAC', `--anonymous-auth=${anonymous}`] });
      try {
        const ca = { certPem: readFileSync(join(server.dataDir, 'pki', 'ca.crt'), 'utf8'), keyPem: readFileSync(join(server.dataDir, 'pki', 'ca.key'), 'utf8') };
        const { certPem, keyPem } = issueClientCertificate(ca, '', ['system:masters']);
        const r = await new Promise<{ status: number; body: any }>((resolve, reject) => {
          const req = httpsRequest(`${server.url}/api/v1/namespaces`, { ca: server.caCertPem, cert: certPem, key: keyPem }, res => {
            let body = '';
            res.on('data', (d: Buffer) => { body += d; });
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(body) }));
          });
          req.on('error', reject);
          req.end();
        });
        // the certificate's groups count for nothing without a user: system:masters would have listed them
        if (anonymous) {
          assert.equal(r.status, 403, JSON.stringify(r.body));
          assert.match(r.body.message, /User "system:anonymous" cannot list resource "namespaces"/);
        } else {
          assert.equal(r.status, 401, JSON.stringify(r.body));
          assert.equal(r.body.message, 'Unauthorized');
        }
      } finally {
        await server.close();
      }
    });
  }
});

describe('a custom resource with a 200,000-item set', () => {
  let server: TestServer;
  let close: () => Promise<void>;
  let client: Client;
  const widgets = '/apis/fuzz.example.com/v1/namespaces/default/widgets';
  before(async () => {
    ({ server, close } = await serverOn('memory'));
    client = createClient(server);
    const r = await client.request('POST', `/apis/apiextensions.${server.names.domain}/v1/customresourcedefinitions`, { body: { ...widgetCrd, apiVersion: `apiextensions.${server.names.domain}/v1` } });
    assert.equal(r.status, 201, r.body);
    for (let i = 0; i < 500 && (await client.get(widgets)).status !== 200; i++) await new Promise(res => setTimeout(res, 20));
  });
  after(async () => { client.close(); await close(); });

  test('is validated in one pass: all distinct passes validation (and is too large to store), duplicates are a 422 naming them', async () => {
    const tags = Array.from({ length: 200_000 }, (_, i) => `t${i}`);
    const ok = await client.request('POST', widgets, { body: { apiVersion: 'fuzz.example.com/v1', kind: 'Widget', metadata: { name: 'big' }, spec: { tags } } });
    // its managed fields name every item again: over the 1.5 MiB an object may be stored at
    assert.equal(ok.status, 413, ok.body.slice(0, 300));
    assert.match(ok.json.message, /over the 1572864 bytes storage takes/);
    tags[199_999] = 't5';
    const dup = await client.request('POST', widgets, { body: { apiVersion: 'fuzz.example.com/v1', kind: 'Widget', metadata: { name: 'dup' }, spec: { tags } } });
    assert.equal(dup.status, 422, dup.body.slice(0, 300));
    assert.match(dup.json.message, /spec\.tags\[199999\]: Duplicate value: "t5"/);
    assert.equal((await client.get('/livez')).status, 200);
  });
});

describe('a request body that never ends', () => {
  let server: TestServer;
  let close: () => Promise<void>;
  before(async () => { ({ server, close } = await serverOn('memory', { flags: ['--request-timeout=1s'] })); });
  after(async () => { await close(); });
  const path = '/api/v1/namespaces/default/configmaps';

  test('over HTTP/1.1 (chunked, or short of its Content-Length) is a 504 at the request timeout, and the connection closes', async () => {
    for (const head of ['Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n', 'Content-Length: 1000\r\n\r\n{']) {
      const { hostname, port } = new URL(server.url);
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = tlsConnect({ host: hostname, port: Number(port), ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] },
          () => socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${head}`));
        let text = '';
        socket.setEncoding('utf8').on('data', d => { text += d; }).on('error', reject).on('close', () => resolve(text));
      });
      assert.match(raw, /^HTTP\/1\.1 504 /, raw.slice(0, 300));
      const status = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
      assert.equal(status.reason, 'Timeout');
      assert.equal(status.message, 'Timeout: request did not complete within requested timeout - context deadline exceeded');
    }
  });

  test('past the size limit over HTTP/1.1 (declared, or chunked) is a 413 and the connection closes, though the client goes on sending', async () => {
    const { hostname, port } = new URL(server.url);
    const chunk = (n: number) => `${n.toString(16)}\r\n${' '.repeat(n)}\r\n`;
    const heads = [
      'Content-Length: 9007199254740991\r\n\r\n{',
      `Transfer-Encoding: chunked\r\n\r\n${chunk(1)}${chunk(1024 * 1024).repeat(4)}`,
    ];
    for (const head of heads) {
      const socket = tlsConnect({ host: hostname, port: Number(port), ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      let text = '', closed = false;
      socket.setEncoding('utf8').on('data', d => { text += d; }).on('error', () => {}).on('close', () => { closed = true; });
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${head}`);
      // the rest of an endless body, a piece whenever the last has been taken
      const more = head.startsWith('Content-Length') ? ' '.repeat(16 * 1024) : chunk(16 * 1024);
      const send = () => { while (!socket.destroyed && socket.write(more)); };
      socket.on('drain', send);
      send();
      try {
        await until(() => closed, () => `the connection to close after the answer: ${text.slice(0, 300)}`);
        assert.match(text, /^HTTP\/1\.1 413 /, text.slice(0, 300));
        assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).reason, 'RequestEntityTooLarge');
      } finally {
        socket.destroy();
      }
    }
  });

  test('over HTTP/2 is a 504 at the request timeout', async () => {
    const session = http2Connect(server.url, { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem });
    try {
      const answer = await new Promise<{ status: unknown; body: string }>((resolve, reject) => {
        const s = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json' });
        let status: unknown, body = '';
        s.on('response', h => { status = h[':status']; });
        s.setEncoding('utf8').on('data', d => { body += d; }).on('end', () => resolve({ status, body })).on('error', reject);
        s.write('{');
      });
      assert.equal(answer.status, 504, answer.body);
      assert.equal(JSON.parse(answer.body).reason, 'Timeout');
      // the connection serves other requests
      const version = await new Promise<unknown>((resolve, reject) => {
        const s = session.request({ ':path': '/version' });
        s.on('response', h => { resolve(h[':status']); s.resume(); }).on('error', reject);
      });
      assert.equal(version, 200);
    } finally { session.close(); }
  });

  test('cut by its client halfway, over HTTP/1.1 or HTTP/2, leaves the server serving', async () => {
    const { hostname, port } = new URL(server.url);
    const tls = { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, servername: 'localhost' };
    for (let i = 0; i < 10; i++) {
      const socket = tlsConnect({ ...tls, host: hostname, port: Number(port), ALPNProtocols: ['http/1.1'] });
      await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":`);
      const session = http2Connect(server.url, tls);
      session.on('error', () => {});
      const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json', 'content-length': '1000' });
      stream.on('error', () => {});
      stream.write('{"apiVersion":');
      // a round trip on the same connection: the server has taken the first request by then
      await new Promise<void>((resolve, reject) => {
        const s = session.request({ ':path': '/version' });
        s.on('response', () => { s.resume(); resolve(); }).on('error', reject);
      });
      socket.destroy();
      if (i % 2) stream.close(0x8); else session.destroy();
      session.destroy();
    }
    const client = createClient(server);
    assert.equal((await client.get('/livez')).status, 200);
  });
});
