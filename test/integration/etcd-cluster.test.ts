// Two API servers on a three-member etcd cluster (all on loopback); one member is killed and started again while both
// servers take writes. No acknowledged write may be lost, clients may see only retriable errors, the watches on both
// servers go on (or end with 410 and list again, as a reflector does), and readyz tells the truth throughout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { startEtcdCluster, type EtcdCluster } from '../support/etcd.js';
import { until } from '../support/wait.js';
import { createClient, type Client, type WatchStream } from './client.js';
import { configMap } from './servers.js';

let cluster: EtcdCluster;
let servers: TestServer[] = [];
let clients: Client[] = [];
const ns = 'default';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

before(async () => {
  cluster = await startEtcdCluster(3);
  const shared = { storage: 'etcd' as const, etcdServers: cluster.endpoints, etcdPrefix: `/cluster-${process.pid}` };
  servers = [await startTestServer(shared), await startTestServer(shared)];
  clients = servers.map(s => createClient(s));
});
after(async () => {
  for (const c of clients) c.close();
  await Promise.all(servers.map(s => s.close()));
  await cluster?.stop();
});

/** what a client may see while a member is down: the request can be sent again */
const retriable = (status: number) => status === 429 || status === 503 || status === 504 || status === 0;

/** a reflector on one server: watches configmaps, and on 410 or a broken stream lists again and watches from there */
function reflect(client: Client) {
  const names = new Set<string>();
  let relists = 0, restarts = 0, stopped = false;
  let current: WatchStream | undefined;
  const done = (async () => {
    let rv = '';
    const list = async () => {
      const r = await client.get(cms);
      if (r.status !== 200) return false;
      for (const item of r.json.items) names.add(item.metadata.name);
      rv = r.json.metadata.resourceVersion;
      return true;
    };
    while (!stopped && !(await list())) await new Promise(res => setTimeout(res, 100));
    while (!stopped) {
      let w: WatchStream;
      try { w = current = await client.watch(`${cms}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`); } catch { await new Promise(res => setTimeout(res, 100)); continue; }
      if (w.status !== 200) { w.close(); if (!stopped && await list()) relists++; continue; }
      for (;;) {
        const ev = await w.next(1000);
        if (stopped) break;
        if (!ev) { if (await Promise.race([w.ended.then(() => true), Promise.resolve(false)])) break; continue; }
        if (ev.type === 'ERROR') { if (await list()) relists++; break; }
        rv = ev.object.metadata.resourceVersion;
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED') names.add(ev.object.metadata.name);
      }
      w.close();
      restarts++;
    }
  })();
  return { names, stats: () => ({ relists, restarts }), async stop() { stopped = true; current?.close(); await done; } };
}

test('a member killed and restarted under write load: nothing acknowledged is lost, errors are retriable, watches go on', async t => {
  const reflectors = clients.map(reflect);
  const acked = new Set<string>();
  const errors: Record<string, number> = {};
  const fatal: string[] = [];
  let writing = true;
  let n = 0;
  // each writer creates objects one after another through one server, sending a refused create again
  const writer = async (w: number) => {
    const client = clients[w % clients.length];
    while (writing) {
      const name = `load-${w}-${n++}`;
      for (let attempt = 0; ; attempt++) {
        let status = 0, body = '';
        try { const r = await client.request('POST', cms, { body: configMap(name) }); status = r.status; body = r.body; } catch (e) { body = (e as Error).message; }
        if (status === 201) { acked.add(name); break; }
        // an earlier attempt whose answer was lost did create it
        if (status === 409 && attempt > 0) { acked.add(name); break; }
        errors[status] = (errors[status] ?? 0) + 1;
        if (!retriable(status)) { fatal.push(`${name}: ${status} ${body.slice(0, 200)}`); break; }
        await new Promise(res => setTimeout(res, 50));
      }
    }
  };
  const writers = Array.from({ length: 8 }, (_, w) => writer(w));

  // readyz on both servers, sampled throughout: with two of three members up, storage is available. etcd's own health
  // is sampled beside it: on a busy machine (fsyncs slowed by other work) the members may be without a leader for a
  // while, and a server is then right to be unready
  const readyz: number[][] = [[], []];
  const etcdHealthy: boolean[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const states = await Promise.all(cluster.endpoints.map(async e => {
        try { return (await (await fetch(`${e}/health`, { signal: AbortSignal.timeout(1000) })).json() as { health?: string }).health === 'true'; } catch { return false; }
      }));
      for (let i = 0; i < clients.length; i++) readyz[i].push((await clients[i].get('/readyz').catch(() => ({ status: 0 }))).status);
      etcdHealthy.push(states.some(Boolean));
      await new Promise(res => setTimeout(res, 200));
    }
  })();

  await until(() => acked.size >= 200, 'writes before the kill', 60_000);
  const victim = cluster.members[0];
  victim.kill();
  const killedAt = acked.size;
  await until(() => acked.size >= killedAt + 300, 'writes while a member is down', 120_000);
  await victim.restart();
  const restartedAt = acked.size;
  await until(() => acked.size >= restartedAt + 200, 'writes after the member is back', 120_000);
  // enough samples that one probe's blip (a second or so while the client turns from the killed member) is not a
  // quarter of them: on a quiet machine the writes above take only a few seconds
  await until(() => readyz.every(r => r.length >= 30), 'thirty readyz samples of each server', 60_000);
  writing = false;
  await Promise.all(writers);
  sampling = false;
  await sampler;
  t.diagnostic(`${acked.size} writes acknowledged; errors seen by clients: ${JSON.stringify(errors)}; readyz samples: ${readyz.map(r => `${r.filter(s => s === 200).length}/${r.length} ready`).join(', ')}; etcd healthy in ${etcdHealthy.filter(Boolean).length}/${etcdHealthy.length}`);
  assert.deepEqual(fatal, [], 'only retriable errors');

  // every acknowledged write is stored, as both servers see it
  for (const c of clients) {
    const list = await c.get(cms);
    const stored = new Set<string>(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    const lost = [...acked].filter(name => !stored.has(name));
    assert.deepEqual(lost, [], 'acknowledged writes missing');
  }
  // both servers' watches saw every write (continuing, or listing again after a 410)
  for (const [i, r] of reflectors.entries()) {
    await until(() => [...acked].every(name => r.names.has(name)), () => `server ${i}'s watch to see every write (missing ${[...acked].filter(name => !r.names.has(name)).length})`, 60_000);
    t.diagnostic(`server ${i} watch: ${JSON.stringify(r.stats())}`);
  }
  await Promise.all(reflectors.map(r => r.stop()));
  // truthful: ready at the end, and never unready for long while the members served
  for (const [i, samples] of readyz.entries()) {
    assert.equal(samples.at(-1), 200, `server ${i} ready at the end`);
    const served = samples.filter((_, n) => etcdHealthy[n]);
    const unready = served.filter(s => s !== 200).length;
    assert.ok(unready <= served.length / 4, `server ${i} was unready in ${unready} of the ${served.length} samples etcd answered healthy (of ${samples.length})`);
  }
});
