// The metrics API's own port under hostile input: request targets that are no URL, malformed escapes, tokens that
// cannot be checked. Each is a 4xx Status, never a 5xx.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsApi } from './serve.js';
import { createMetricsStore } from './store.js';
import { naming } from '../api/naming.js';
import { rawGet, statusOf } from '../../test/support/raw-http.js';
import { resourceMetricsGroup, resourceMetricsVersion } from '../api/resource-metrics.js';

const get = (port: number, target: string, headers = '') => rawGet(port, target, headers, { plain: true });

describe('the metrics API under hostile input', () => {
  let server: Server;
  let port: number;
  const names = naming();
  const gv = `${resourceMetricsGroup(names)}/${resourceMetricsVersion}`;

  before(async () => {
    const handler = metricsApi({
      names, store: createMetricsStore(), objects: { nodes: () => [], pod: () => undefined }, ready: () => true,
      auth: {
        synced: Promise.resolve(),
        // a token is checked by an API server that is not there; anyone else is a user allowed everything
        async authenticate(req) {
          if (req.headers.authorization) throw new Error('connect ECONNREFUSED');
          return { username: 'alice', groups: [], extra: {} };
        },
        async authorize() { return { allowed: true, reason: '' }; },
        stop() {},
      },
    });
    server = createServer((req, res) => { void handler(req, res); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));

  test('a request target that is no URL, or a malformed percent-escape, is a 400', async () => {
    for (const target of ['http://[::1/apis', '//[/apis', `/apis/${gv}/namespaces/%zz/pods`, `/apis/${gv}/nodes/%E0%A4%A`]) {
      const answer = await get(port, target);
      assert.equal(statusOf(answer), 400, `${target}: ${answer}`);
      assert.match(answer, /"reason":"BadRequest"/);
    }
    assert.equal(statusOf(await get(port, `/apis/${gv}/nodes`)), 200);
  });

  test('a list asked for as a Table is one, as kubectl get asks', async () => {
    const meta = names.metaGroup;
    const answer = await get(port, `/apis/${gv}/nodes`, `Accept: application/json;as=Table;v=v1;g=${meta},application/json\r\n`);
    assert.equal(statusOf(answer), 200, answer);
    assert.match(answer, new RegExp(`"kind":"Table","apiVersion":"${meta.replace(/\./g, '\\.')}/v1"`));
    assert.match(await get(port, `/apis/${gv}/nodes`), /"kind":"NodeMetricsList"/);
  });

  test('a token that cannot be checked is a 401', async () => {
    const answer = await get(port, `/apis/${gv}/nodes`, 'Authorization: Bearer garbage\r\n');
    assert.equal(statusOf(answer), 401, answer);
  });
});
