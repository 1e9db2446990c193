// A component's own HTTPS port (controller manager, scheduler) under hostile input: request targets that are no
// URL, garbage tokens, tokens that cannot be checked. Each is a 4xx, never a 5xx.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSecureServing, type SecureServing } from '../../src/main/secure-serving.js';
import { createClient, type Client } from '../../src/client/rest-client.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { naming } from '../../src/api/naming.js';
import { freePort } from '../support/ports.js';
import { rawGet, statusOf } from '../support/raw-http.js';

const get = (port: number, target: string, headers = '') => rawGet(port, target, headers);

describe('a component port under hostile input', () => {
  let dir: string;
  let serving: SecureServing;
  let unreachable: Client;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'secure-serving-'));
    // the API server that would check tokens is not there
    unreachable = createClient({ contextName: 'x', clusterName: 'x', userName: 'x', server: `https://127.0.0.1:${await freePort()}`, insecureSkipTLSVerify: true }, { timeoutMs: 2000 });
    serving = (await startSecureServing({
      bindAddress: '127.0.0.1', securePort: await freePort(), certDir: dir, name: 'hostile', authentication: unreachable, authorization: unreachable,
      names: async () => naming(), metrics: createMetrics(),
    }))!;
  });

  after(async () => {
    await serving?.close();
    unreachable?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a request target that is no URL is a 400', async () => {
    for (const target of ['http://[::1/metrics', 'http://a:99999/healthz', '//[/metrics']) {
      const answer = await get(serving.port, target);
      assert.equal(statusOf(answer), 400, `${target}: ${answer}`);
    }
  });

  test('a token that cannot be checked is a 401; a header that carries no bearer token is no credential (anonymous)', async () => {
    assert.equal(statusOf(await get(serving.port, '/metrics', 'Authorization: Bearer garbage\r\n')), 401);
    // as the API server reads the header: another scheme, or none after the scheme, leaves the request anonymous,
    // answered as one without the header (here the authorizer, unreachable, cannot allow it)
    const anonymous = statusOf(await get(serving.port, '/metrics'));
    assert.notEqual(anonymous, 401);
    for (const header of ['Authorization: Basic Zm9vOmJhcg==\r\n', 'Authorization: Bearer \r\n']) {
      const answer = await get(serving.port, '/metrics', header);
      assert.equal(statusOf(answer), anonymous, `${header}: ${answer}`);
    }
    assert.equal(statusOf(await get(serving.port, '/healthz', 'Authorization: Basic Zm9vOmJhcg==\r\n')), 200);
  });
});
