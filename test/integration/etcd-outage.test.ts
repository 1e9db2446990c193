// etcd stops answering (SIGSTOP) or dies (SIGKILL) under a running API server: writes answer 503 with a clear message
// and Retry-After (never 404), readyz fails within about 2 s, and when etcd is back everything works again without
// restarting the server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { startEtcd, type EtcdServer } from '../support/etcd.js';
import { until } from '../support/wait.js';
import { createClient, type Client } from './client.js';
import { configMap } from './servers.js';

describe('etcd outages', () => {
  let etcd: EtcdServer;
  let server: TestServer;
  let client: Client;
  const cms = '/api/v1/namespaces/default/configmaps';
  let n = 0;
  const write = () => client.request('POST', cms, { body: configMap(`outage-${++n}`) });
  const readyz = async () => (await client.get('/readyz')).status;

  before(async () => {
    etcd = await startEtcd();
    server = await startTestServer({ storage: 'etcd', etcdServers: [etcd.endpoint], etcdPrefix: `/outage-${process.pid}` });
    client = createClient(server);
  });
  after(async () => {
    client?.close();
    await server?.close();
    await etcd?.stop();
  });

  /** readyz fails, writes are refused as unavailable, and both come back once etcd does */
  async function outage(t: { diagnostic(m: string): void }, stop: () => void | Promise<void>, resume: () => void | Promise<void>) {
    assert.equal((await write()).status, 201);
    await until(async () => await readyz() === 200, 'readyz before the outage');
    const stoppedAt = performance.now();
    await stop();
    await until(async () => await readyz() === 500, 'readyz to report the storage failure', 30_000);
    const readyzMs = performance.now() - stoppedAt;
    t.diagnostic(`readyz answered 500 ${Math.round(readyzMs)} ms after etcd stopped`);
    const verbose = await client.get('/readyz?verbose');
    assert.match(verbose.body, /\[-\]etcd failed/);

    const refused = await write();
    assert.equal(refused.status, 503, refused.body);
    assert.equal(refused.json.reason, 'ServiceUnavailable');
    assert.match(refused.json.message, /^storage is unavailable: etcd at .* is unavailable/);
    assert.equal(refused.headers['retry-after'], '1');
    // a namespaced create must not claim the namespace is missing
    const other = await client.request('POST', '/api/v1/namespaces/kube-public/configmaps', { body: configMap(`outage-ns-${n}`) });
    assert.ok(other.status >= 500, `${other.status} ${other.body}`);

    await resume();
    await until(async () => await readyz() === 200, 'readyz after etcd is back', 60_000);
    await until(async () => (await write()).status === 201, 'writes after etcd is back', 30_000);
    // the watch cache catches up: a list from the cache (any version will do) comes to see the latest write
    await until(async () => (await client.get(`${cms}?resourceVersion=0`)).json.items.some((i: { metadata: { name: string } }) => i.metadata.name === `outage-${n}`),
      'the watch cache to hold the write made after the outage', 30_000);
    // readyz reports at once, well within a probe's period (it answers from the last probe)
    assert.ok(readyzMs < 5000, `readyz took ${Math.round(readyzMs)} ms to notice`);
  }

  test('SIGSTOP: a hung etcd', async t => {
    await outage(t, () => { process.kill(etcd.pid, 'SIGSTOP'); }, () => { process.kill(etcd.pid, 'SIGCONT'); });
  });

  test('SIGKILL: etcd dies and is started again', async t => {
    await outage(t, () => etcd.kill(), () => etcd.restart());
  });
});
