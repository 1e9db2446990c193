// A Status of many causes (a body of many invalid fields) is written piece by piece, and is the same text as one
// written whole: the reference's field order, every cause, a newline after it, compressed too when asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';

describe('a Status of many causes', () => {
  let server: TestServer;
  let c: Client;
  before(async () => { server = await startTestServer({ flags: ['--controller-manager=false', '--scheduler=false'] }); c = createClient(server); });
  after(async () => { c?.close(); await server?.close(); });

  test('is the text the whole Status would be, compressed or not', async () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 700; i++) data[`bad key ${i}!`] = 'v';
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'many-bad-keys' }, data };
    const compact = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body });
    const zipped = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body, headers: { 'accept-encoding': 'gzip' } });
    // an indented Status is written whole: the compact text is its fields in the same order
    const pretty = await c.request('POST', '/api/v1/namespaces/default/configmaps?pretty=true', { body });
    for (const reply of [compact, zipped, pretty]) assert.equal(reply.status, 422, reply.body.slice(0, 300));
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    const whole = `${JSON.stringify(JSON.parse(pretty.body))}\n`;
    assert.equal(compact.body, whole);
    assert.equal(zipped.body, whole);
    const status = compact.json;
    assert.deepEqual(Object.keys(status), ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
    assert.equal(status.details.causes.length, 700);
    assert.deepEqual(Object.keys(status.details.causes[699]), ['reason', 'message', 'field']);
    assert.deepEqual(new Set(status.details.causes.map((cause: { field: string }) => cause.field)), new Set(Object.keys(data).map(k => `data[${k}]`)));
  });
});
