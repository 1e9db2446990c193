// /debug/pprof: V8 CPU profiles and heap snapshots for those RBAC lets read it; --profiling=false serves none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { startTestServer, type TestServer } from '../../src/testing.js';

/** status and body of a GET; errors of the client (non-2xx) are read from the response too */
async function get(client: Client, path: string): Promise<{ status: number; body: string; type: string }> {
  const res = await client.stream({ method: 'GET', path });
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c);
  return { status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), type: String(res.headers['content-type']) };
}
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: { code?: number; message?: string }) => e);

describe('/debug/pprof', () => {
  let server: TestServer;
  let off: TestServer;
  before(async () => {
    [server, off] = await Promise.all([startTestServer({ flags: ['--authorization-mode=RBAC'] }), startTestServer({ flags: ['--profiling=false'] })]);
  });
  after(async () => { await Promise.all([server?.close(), off?.close()]); });

  test('the index, a CPU profile of the seconds asked, a heap snapshot', { timeout: 60_000 }, async () => {
    const index = await get(server.client, '/debug/pprof/');
    assert.equal(index.status, 200);
    assert.match(index.body, /profile\?seconds=N/);
    const cpu = await get(server.client, '/debug/pprof/profile?seconds=1');
    assert.equal(cpu.status, 200);
    assert.match(cpu.type, /application\/json/);
    const profile = JSON.parse(cpu.body);
    assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0 && profile.endTime - profile.startTime >= 900_000, 'a V8 profile of about a second');
    const heap = await get(server.client, '/debug/pprof/heap');
    assert.equal(heap.status, 200);
    assert.ok(JSON.parse(heap.body).snapshot.meta.node_fields.includes('self_size'), 'a V8 heap snapshot');
  });

  test('bad seconds are a 400; a profile longer than the request timeout is refused', async () => {
    assert.equal((await failure(server.client.request({ method: 'GET', path: '/debug/pprof/profile', query: { seconds: 'soon' } })))?.code, 400);
    const long = await failure(server.client.request({ method: 'GET', path: '/debug/pprof/profile', query: { seconds: '600' } }));
    assert.equal(long?.code, 400);
    assert.match(long?.message ?? '', /request timeout/);
  });

  test('a user RBAC does not allow is refused; --profiling=false serves nothing there', async () => {
    const user = await clientFromFile(await server.userKubeconfig('someone'));
    try {
      assert.equal((await failure(user.request({ method: 'GET', path: '/debug/pprof/' })))?.code, 403);
    } finally { user.close(); }
    assert.equal((await failure(off.client.request({ method: 'GET', path: '/debug/pprof/' })))?.code, 404);
  });
});
