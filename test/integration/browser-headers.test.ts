// --strict-transport-security-directives and --cors-allowed-origins as a browser sees them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { startTestServer, type TestServer } from '../../src/testing.js';

/** an anonymous request with these headers: its status and headers */
function call(port: number, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, rejectUnauthorized: false }, res => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('browser headers', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ flags: ['--authorization-mode=RBAC', '--strict-transport-security-directives=max-age=31536000,includeSubDomains', '--cors-allowed-origins=//example\\.com(:|$)'] });
  });
  after(async () => { await server?.close(); });

  test('every answer carries the HSTS header', async () => {
    const r = await call(server.port, 'GET', '/api/v1/namespaces', {});
    assert.equal(r.status, 403);
    assert.equal(r.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  });

  test('an allowed origin gets CORS headers, and its preflight a 204 without credentials; another origin none', async () => {
    const preflight = await call(server.port, 'OPTIONS', '/api/v1/namespaces', { Origin: 'https://example.com', 'Access-Control-Request-Method': 'GET' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://example.com');
    assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
    assert.match(String(preflight.headers['access-control-allow-methods']), /PATCH/);
    const get = await call(server.port, 'GET', '/version', { Origin: 'https://example.com:8443' });
    assert.equal(get.status, 200);
    assert.equal(get.headers['access-control-allow-origin'], 'https://example.com:8443');
    const other = await call(server.port, 'OPTIONS', '/api/v1/namespaces', { Origin: 'https://example.com.evil.org' });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    assert.notEqual(other.status, 204);
  });

  test('a directive the reference does not know, or a pattern that is not RE2, stops the start', async () => {
    await assert.rejects(startTestServer({ flags: ['--strict-transport-security-directives=includeSubDomains'] }), /allowed values: max-age=expireTime/);
    await assert.rejects(startTestServer({ flags: ['--cors-allowed-origins=(?=x)'] }), /cors-allowed-origins/);
  });
});
