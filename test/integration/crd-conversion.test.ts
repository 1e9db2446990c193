// CRD version conversion through a real webhook: the test runs a conversion webhook over HTTPS on loopback that
// converts v1 (spec.size, a string) and v2 (spec.replicas, an integer) both ways. Objects are stored at the storage
// version and served at the requested one for get, list (one review per list) and watch; writes at either version
// are validated by that version's schema; objects survive a storage-version change; a webhook named by service
// reference is called at an endpoint of the Service; a webhook that is down, or a Service that is missing, gives a clear 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { ensurePki } from '../../src/pki/pki.js';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { waitFor } from '../support/wait.js';

const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

interface Review { apiVersion: string; desired: string; from: string[] }

/** v1 keeps the size as a decimal string, v2 as an integer number of replicas; everything else is carried over */
function convertObject(obj: any, desired: string): any {
  const out = structuredClone(obj);
  out.apiVersion = desired;
  const { spec } = out;
  if (spec && desired.endsWith('/v2') && 'size' in spec) { spec.replicas = Number(spec.size); delete spec.size; }
  if (spec && desired.endsWith('/v1') && 'replicas' in spec) { spec.size = String(spec.replicas); delete spec.replicas; }
  // objects whose names ask for it come back with another name, a label no object may have, or a new valid label
  if (out.metadata?.name === 'renamed') out.metadata.name = 'other';
  if (out.metadata?.name === 'mislabelled') out.metadata.labels = { 'not a key!': 'x' };
  if (out.metadata?.name === 'relabelled') out.metadata.labels = { converted: 'yes' };
  if (out.metadata?.name === 'deep') out.spec.deep = 'DEEP';
  return out;
}

/** the conversion webhook: answers in the review version it was asked in, and records every review */
async function startWebhook(dir: string) {
  // its certificate also names the Service it is reached through in the service reference test
  const pki = await ensurePki(dir, { hosts: ['127.0.0.1', 'converter.ops.svc'] });
  const reviews: Review[] = [];
  const server: Server = createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const { uid, desiredAPIVersion, objects } = review.request;
      // a review of an object named lost is answered as a server without the path answers
      if (objects.some((o: any) => o.metadata?.name === 'lost')) { res.writeHead(404); res.end('404 page not found'); return; }
      reviews.push({ apiVersion: review.apiVersion, desired: desiredAPIVersion, from: objects.map((o: any) => o.apiVersion) });
      const response = { uid, result: { status: 'Success' }, convertedObjects: objects.map((o: any) => convertObject(o, desiredAPIVersion)) };
      res.setHeader('Content-Type', 'application/json');
      // an object named deep comes back with a field nested 3,000 levels deep (written as text: too deep to stringify)
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }).replace('"DEEP"', `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`));
    });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    reviews, url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    close: () => new Promise<void>(r => { server.close(() => r()); server.closeAllConnections(); }),
  };
}

const v1Schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'string', pattern: '^[0-9]+$' }, color: { type: 'string' } } },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};
const v2Schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { replicas: { type: 'integer', minimum: 0 }, color: { type: 'string', default: 'blue' } },
      'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'at most 10 replicas' }],
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

function crd(group: string, conversion: unknown, storage: 'v1' | 'v2' = 'v1') {
  const version = (name: string, schema: unknown, column: string) => ({
    name, served: true, storage: storage === name, schema: { openAPIV3Schema: schema }, subresources: { status: {} },
    additionalPrinterColumns: [{ name: 'Size', type: 'string', jsonPath: column }],
  });
  return {
    apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: [version('v1', v1Schema, '.spec.size'), version('v2', v2Schema, '.spec.replicas')],
      conversion,
    },
  };
}

const crdPath = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';

describe('CRD conversion webhook', { concurrency: 1 }, () => {
  let server: TestServer;
  let c: Client;
  let hook: Awaited<ReturnType<typeof startWebhook>>;
  let dir: string;
  const group = 'conv.example.com';
  const at = (v: string, name = '') => `/apis/${group}/${v}/namespaces/default/gadgets${name ? `/${name}` : ''}`;
  const gadget = (v: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: `${group}/${v}`, kind: 'Gadget', metadata: { name }, spec });
  /** the raw stored object */
  const stored = async (name: string) => {
    const { kv } = await server.kv.get(`/registry/${group}/gadgets/default/${name}`);
    return kv ? JSON.parse(Buffer.from(kv.value).toString('utf8')) : undefined;
  };
  const webhook = () => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1', 'v1beta1'], clientConfig: { url: hook.url, caBundle: hook.caBundle } } });
  /** waits until the server stores the resource at `version` */
  const storedAt = (version: string, g = group) =>
    waitFor(`storage at ${version}`, () => (server.resources.lookup(g, 'v1', 'gadgets')?.storageVersion === version ? true : undefined));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crd-conversion-'));
    hook = await startWebhook(dir);
    server = await startTestServer();
    c = createClient(server);
    const r = await c.request('POST', crdPath, { body: crd(group, webhook()) });
    assert.equal(r.status, 201, r.body);
    await waitFor('v2 served', async () => ((await c.get(`/apis/${group}/v2`)).status === 200 ? true : undefined));
  });
  after(async () => {
    c.close();
    await server.close();
    await hook.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('created at v1, read at v2 and back; created at v2, stored at v1', async () => {
    const before = hook.reviews.length;
    const r = await c.request('POST', at('v1'), { body: gadget('v1', 'a', { size: '3', color: 'red' }) });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.spec, { size: '3', color: 'red' });
    assert.equal(hook.reviews.length, before, 'written at the storage version: no conversion');

    const v2 = await c.get(at('v2', 'a'));
    assert.equal(v2.status, 200, v2.body);
    assert.equal(v2.json.apiVersion, `${group}/v2`);
    assert.deepEqual(v2.json.spec, { replicas: 3, color: 'red' });
    assert.equal(v2.json.metadata.uid, r.json.metadata.uid);
    assert.equal(v2.json.metadata.resourceVersion, r.json.metadata.resourceVersion);
    assert.deepEqual(hook.reviews.at(-1), { apiVersion: 'apiextensions.cluster.io/v1', desired: `${group}/v2`, from: [`${group}/v1`] });

    const created = await c.request('POST', at('v2'), { body: gadget('v2', 'b', { replicas: 5 }) });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json.apiVersion, `${group}/v2`);
    assert.deepEqual(created.json.spec, { replicas: 5, color: 'blue' }, 'defaulted by the v2 schema, returned at v2');
    const raw = await stored('b');
    assert.equal(raw.apiVersion, `${group}/v1`);
    assert.deepEqual(raw.spec, { size: '5', color: 'blue' });
    const back = await c.get(at('v1', 'b'));
    assert.deepEqual(back.json.spec, { size: '5', color: 'blue' });
  });

  test('writes are validated by the requested version\'s schema and rules', async () => {
    const negative = await c.request('POST', at('v2'), { body: gadget('v2', 'bad', { replicas: -1 }) });
    assert.equal(negative.status, 422, negative.body);
    assert.equal(negative.json.details.causes[0].field, 'spec.replicas');
    const rule = await c.request('POST', at('v2'), { body: gadget('v2', 'bad', { replicas: 11 }) });
    assert.equal(rule.status, 422, rule.body);
    assert.match(rule.json.message, /at most 10 replicas/);
    const pattern = await c.request('POST', at('v1'), { body: gadget('v1', 'bad', { size: 'three' }) });
    assert.equal(pattern.status, 422, pattern.body);
    assert.equal(pattern.json.details.causes[0].field, 'spec.size');
    // v1 has no such rule: the same size is fine written at v1
    const big = await c.request('POST', at('v1'), { body: gadget('v1', 'big', { size: '11' }) });
    assert.equal(big.status, 201, big.body);
    assert.equal((await c.request('DELETE', at('v1', 'big'))).status, 200);
  });

  test('update, merge patch and status at v2 land in the v1 object', async () => {
    const cur = (await c.get(at('v2', 'a'))).json;
    cur.spec.replicas = 4;
    const put = await c.request('PUT', at('v2', 'a'), { body: cur });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.json.spec.replicas, 4);
    assert.equal(put.json.metadata.generation, 2);
    assert.equal((await stored('a')).spec.size, '4');

    const patched = await c.request('PATCH', at('v2', 'a'), { body: { spec: { replicas: 6 } }, contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.body);
    assert.deepEqual(patched.json.spec, { replicas: 6, color: 'red' });
    const status = await c.request('PATCH', `${at('v2', 'a')}/status`, { body: { status: { ready: true } }, contentType: 'application/merge-patch+json' });
    assert.equal(status.status, 200, status.body);
    assert.equal(status.json.apiVersion, `${group}/v2`);
    const v1 = (await c.get(at('v1', 'a'))).json;
    assert.deepEqual([v1.spec.size, v1.status.ready], ['6', true]);
  });

  test('a list at v2 is converted in one review; at v1 in none; tables use the version\'s columns', async () => {
    let before = hook.reviews.length;
    const v2 = await c.get(at('v2'));
    assert.equal(v2.status, 200, v2.body);
    assert.equal(v2.json.apiVersion, `${group}/v2`);
    assert.deepEqual(v2.json.items.map((i: any) => [i.metadata.name, i.apiVersion, i.spec.replicas]), [['a', `${group}/v2`, 6], ['b', `${group}/v2`, 5]]);
    assert.equal(hook.reviews.length, before + 1, 'one review for the whole list');
    assert.equal(hook.reviews.at(-1)!.from.length, 2);

    before = hook.reviews.length;
    const v1 = await c.get(at('v1'));
    assert.deepEqual(v1.json.items.map((i: any) => i.spec.size), ['6', '5']);
    assert.equal(hook.reviews.length, before);

    const table = await c.get(at('v2'), { accept: 'application/json;as=Table;v=v1;g=meta.cluster.io' });
    assert.equal(table.status, 200, table.body);
    assert.deepEqual(table.json.rows.map((r: any) => r.cells.slice(0, 2)), [['a', '6'], ['b', '5']], 'a string column prints a number as text, as the reference');
  });

  test('watches at both versions see converted events in order', async () => {
    const w2 = await c.watch(`${at('v2')}?watch=true&resourceVersion=0`);
    const w1 = await c.watch(`${at('v1')}?watch=true&resourceVersion=0`);
    assert.equal(w2.status, 200);
    try {
      const initial = [await w2.next(), await w2.next()];
      assert.deepEqual(initial.map(e => [e?.type, e?.object.apiVersion, e?.object.spec.replicas]), [['ADDED', `${group}/v2`, 6], ['ADDED', `${group}/v2`, 5]]);
      for (let n = 1; n <= 5; n++) {
        const r = await c.request('POST', at('v1'), { body: gadget('v1', `w${n}`, { size: String(n) }) });
        assert.equal(r.status, 201, r.body);
      }
      await c.request('DELETE', at('v2', 'w1'));
      const events = [];
      for (let n = 0; n < 6; n++) events.push(await w2.next());
      assert.deepEqual(events.map(e => [e?.type, e?.object.metadata.name, e?.object.spec.replicas]),
        [['ADDED', 'w1', 1], ['ADDED', 'w2', 2], ['ADDED', 'w3', 3], ['ADDED', 'w4', 4], ['ADDED', 'w5', 5], ['DELETED', 'w1', 1]]);
      assert.ok(events.every(e => e?.object.apiVersion === `${group}/v2`));
      const seen1 = [];
      for (let n = 0; n < 8; n++) seen1.push(await w1.next());
      assert.deepEqual(seen1.map(e => [e?.type, e?.object.metadata.name, e?.object.spec.size]).slice(2),
        [['ADDED', 'w1', '1'], ['ADDED', 'w2', '2'], ['ADDED', 'w3', '3'], ['ADDED', 'w4', '4'], ['ADDED', 'w5', '5'], ['DELETED', 'w1', '1']]);
    } finally {
      w1.close();
      w2.close();
    }
    for (let n = 2; n <= 5; n++) await c.request('DELETE', at('v1', `w${n}`));
  });

  test('objects survive a storage-version change', async () => {
    const cur = (await c.get(`${crdPath}/gadgets.${group}`)).json;
    cur.spec.versions[0].storage = false;
    cur.spec.versions[1].storage = true;
    const r = await c.request('PUT', `${crdPath}/gadgets.${group}`, { body: cur });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(r.json.status.storedVersions, ['v1', 'v2']);
    await storedAt('v2');

    // written before: still readable at both versions
    assert.deepEqual((await c.get(at('v1', 'a'))).json.spec, { size: '6', color: 'red' });
    assert.deepEqual((await c.get(at('v2', 'a'))).json.spec, { replicas: 6, color: 'red' });
    // written after: stored at v2
    const made = await c.request('POST', at('v1'), { body: gadget('v1', 'c', { size: '7' }) });
    assert.equal(made.status, 201, made.body);
    assert.deepEqual(made.json.spec, { size: '7', color: 'blue' }, 'defaulted at v2 on the way through');
    assert.deepEqual((await stored('c')).spec, { replicas: 7, color: 'blue' });
    assert.equal((await stored('a')).apiVersion, `${group}/v1`, 'old objects stay as they were until written');
    // a list mixes both: only the objects not at the requested version are sent for conversion
    const before = hook.reviews.length;
    const list = await c.get(at('v2'));
    assert.deepEqual(list.json.items.map((i: any) => [i.metadata.name, i.spec.replicas]), [['a', 6], ['b', 5], ['c', 7]]);
    assert.deepEqual(hook.reviews.slice(before).map(r => r.from), [[`${group}/v1`, `${group}/v1`]]);
    // an update rewrites an old object at the new storage version
    const patched = await c.request('PATCH', at('v1', 'a'), { body: { spec: { size: '2' } }, contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.body);
    assert.deepEqual(patched.json.spec, { size: '2', color: 'red' });
    assert.deepEqual(await stored('a').then(s => [s.apiVersion, s.spec.replicas]), [`${group}/v2`, 2]);
  });

  test('a conversion webhook\'s answer is checked: the object sent (name, namespace, uid), valid labels (which may change), a bounded depth; an HTTP failure is worded as the reference\'s client words it', async () => {
    // written at the storage version, read at the other
    const storage = server.resources.lookup(group, 'v1', 'gadgets')!.storageVersion, other = storage === 'v1' ? 'v2' : 'v1';
    const spec = storage === 'v1' ? { size: '1' } : { replicas: 1 };
    for (const name of ['renamed', 'mislabelled', 'relabelled'])
      assert.equal((await c.request('POST', at(storage), { body: gadget(storage, name, spec) })).status, 201);
    const renamed = await c.get(at(other, 'renamed'));
    assert.equal(renamed.status, 500, renamed.body);
    assert.equal(renamed.json.message, `Internal error occurred: conversion webhook for ${group}/${storage}, Kind=Gadget failed: invalid converted object at index 0: must have the same name: renamed != other`);
    const mislabelled = await c.get(at(other, 'mislabelled'));
    assert.equal(mislabelled.status, 500, mislabelled.body);
    assert.match(mislabelled.json.message, /failed: invalid converted object at index 0: metadata\.labels: Invalid value: "not a key!": name part must consist of alphanumeric characters/);
    const relabelled = await c.get(at(other, 'relabelled'));
    assert.equal(relabelled.status, 200, relabelled.body);
    assert.deepEqual(relabelled.json.metadata.labels, { converted: 'yes' });
    for (const name of ['renamed', 'mislabelled', 'relabelled']) await c.request('DELETE', at(storage, name));
    // a converted object nested deeper than a request body may be is refused, written or read, and nothing is stored
    const deep = await c.request('POST', at(other), { body: gadget(other, 'deep', other === 'v1' ? { size: '1' } : { replicas: 1 }) });
    assert.equal(deep.status, 500, deep.body);
    assert.match(deep.json.message, /failed: invalid converted object at index 0: nested more than 1000 levels deep$/);
    assert.equal((await c.get(at(storage))).status, 200, 'the resource is still listed');
    assert.equal((await c.get(at(other))).status, 200, 'and listed at the other version');
    // a webhook that answers with an HTTP failure is told of in the reference's client's words
    assert.equal((await c.request('POST', at(storage), { body: gadget(storage, 'lost', spec) })).status, 201);
    const lost = await c.get(at(other, 'lost'));
    assert.equal(lost.status, 500, lost.body);
    assert.equal(lost.json.message, `Internal error occurred: conversion webhook for ${group}/${storage}, Kind=Gadget failed: the server could not find the requested resource`);
    await c.request('DELETE', at(storage, 'lost'));
  });

  test('ConversionReview v1beta1 when the webhook takes only that version', async () => {
    const g = 'beta.example.com';
    const conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1beta1'], clientConfig: { url: hook.url, caBundle: hook.caBundle } } };
    const r = await c.request('POST', crdPath, { body: crd(g, conversion) });
    assert.equal(r.status, 201, r.body);
    await waitFor('served', async () => ((await c.get(`/apis/${g}/v2`)).status === 200 ? true : undefined));
    const made = await c.request('POST', `/apis/${g}/v2/namespaces/default/gadgets`, { body: { apiVersion: `${g}/v2`, kind: 'Gadget', metadata: { name: 'x' }, spec: { replicas: 1 } } });
    assert.equal(made.status, 201, made.body);
    assert.equal(hook.reviews.at(-1)!.apiVersion, 'apiextensions.cluster.io/v1beta1');
  });

  test('a service reference goes to an endpoint of the Service; a missing Service, and a webhook that is down, give a clear 500', async () => {
    const g = 'svc.example.com';
    const conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'],
      clientConfig: { service: { namespace: 'ops', name: 'converter', path: '/convert', port: 8443 }, caBundle: hook.caBundle } } };
    const r = await c.request('POST', crdPath, { body: crd(g, conversion) });
    assert.equal(r.status, 201, r.body);
    await waitFor('served', async () => ((await c.get(`/apis/${g}/v2`)).status === 200 ? true : undefined));
    const atStorage = await c.request('POST', `/apis/${g}/v1/namespaces/default/gadgets`, { body: { apiVersion: `${g}/v1`, kind: 'Gadget', metadata: { name: 'x' }, spec: { size: '1' } } });
    assert.equal(atStorage.status, 201, 'the storage version needs no conversion');
    const other = await c.get(`/apis/${g}/v2/namespaces/default/gadgets/x`);
    assert.equal(other.status, 500, other.body);
    assert.match(other.json.message, /conversion webhook for svc\.example\.com\/v1, Kind=Gadget failed: Post "https:\/\/converter\.ops\.svc:8443\/convert": service\/converter in "ops" is not present/);

    // the Service, and Endpoints at the webhook's loopback port: the conversion goes there
    const port = Number(new URL(hook.url).port);
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ops' } } })).status, 201);
    assert.equal((await c.request('POST', '/api/v1/namespaces/ops/services', { body: { metadata: { name: 'converter' },
      spec: { ports: [{ port: 8443, targetPort: port }] } } })).status, 201);
    assert.equal((await c.request('POST', '/api/v1/namespaces/ops/endpoints', { body: { metadata: { name: 'converter' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] } })).status, 201);
    const reviews = hook.reviews.length;
    const converted = await waitFor('converted through the Service', async () => {
      const got = await c.get(`/apis/${g}/v2/namespaces/default/gadgets/x`);
      return got.status === 200 ? got.json : undefined;
    });
    assert.deepEqual(converted.spec, { replicas: 1, color: 'blue' });
    assert.ok(hook.reviews.length > reviews, 'the webhook was asked');

    await hook.close();
    const down = await c.get(at('v1', 'c'));
    assert.equal(down.status, 500, down.body);
    assert.match(down.json.message, new RegExp(`conversion webhook for ${group}/v2, Kind=Gadget failed: Post "${hook.url}": .*ECONNREFUSED`));
    const write = await c.request('POST', at('v1'), { body: gadget('v1', 'd', { size: '1' }) });
    assert.equal(write.status, 500, write.body);
    assert.equal((await c.get(at('v2', 'c'))).status, 200, 'the storage version is still served');
    const list = await c.get(at('v1'));
    assert.equal(list.status, 500, list.body);
    // a watch that cannot convert ends with an ERROR event
    const w = await c.watch(`${at('v1')}?watch=true&resourceVersion=0`);
    try {
      const events = await w.collect(3000);
      assert.equal(events.at(-1)?.type, 'ERROR');
      assert.match(events.at(-1)!.object.message, /conversion webhook/);
    } finally { w.close(); }
  });
});
