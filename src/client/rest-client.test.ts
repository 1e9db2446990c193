// The shared client against a real API server: TLS with client certificates, bearer tokens (static
// and from an exec plugin), the verbs, the status sub-client, watch, the informer's resume and relist, QPS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect as netConnect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../testing.js';
import { loadClientConfig } from '../config/client-config.js';
import { ApiError, clientFromFile, createClient, isClientClosed, isNotFound, type Client, type ResourceClient, type WatchEvent } from './rest-client.js';
import { startInformer, type InformerEvent } from './informer.js';
import { tokenBucket } from './rate-limit.js';

const configMaps = { group: '', version: 'v1', resource: 'configmaps' };
const until = async (f: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('REST client', () => {
  let server: TestServer;
  let client: Client;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'client-test-'));
    writeFileSync(join(dir, 'tokens.csv'), 'secret-token,alice,uid-1,"system:masters"\nplugin-token,bob,uid-2,"system:masters"\n');
    server = await startTestServer({ flags: [`--token-auth-file=${join(dir, 'tokens.csv')}`] });
    client = await clientFromFile(server.kubeconfig);
  });
  after(async () => {
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('create, get, list, update, patch (merge, json, strategic), delete with the client certificate', async () => {
    const cms = client.resource(configMaps, 'default');
    const created = await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', labels: { app: 'x' } }, data: { a: '1' } });
    assert.ok(created.metadata.uid);
    assert.equal((await cms.get('one')).data.a, '1');
    const updated = await cms.update({ ...created, data: { a: '2' } });
    assert.equal(updated.data.a, '2');
    assert.equal((await cms.patch('one', { data: { b: '3' } })).data.b, '3');
    assert.equal((await cms.patch('one', [{ op: 'replace', path: '/data/a', value: '4' }], 'json')).data.a, '4');
    assert.equal((await cms.patch('one', { data: { c: '5' } }, 'strategic')).data.c, '5');
    const list = await cms.list({ labelSelector: 'app=x' });
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['one']);
    assert.ok(list.metadata.resourceVersion);
    // the server's list names the kind on the list alone, as the reference's typed lists do; the client's items name it
    const raw = await client.request<any>({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    assert.equal(raw.items[0].kind, undefined);
    assert.deepEqual([list.items[0].apiVersion, list.items[0].kind], ['v1', 'ConfigMap']);
    await cms.delete('one');
    await assert.rejects(cms.get('one'), (e: unknown) => isNotFound(e) && e instanceof ApiError && /not found/.test(e.message));
  });

  test('a stale update is a conflict; the status sub-client writes status', async () => {
    const cms = client.resource(configMaps, 'default');
    const a = await cms.create({ metadata: { name: 'two' } });
    await cms.update({ ...a, data: { x: '1' } });
    await assert.rejects(cms.update({ ...a, data: { x: '2' } }), (e: unknown) => e instanceof ApiError && e.code === 409);
    const pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, 'default');
    // the ServiceAccount admission plugin wants the namespace's default account
    await client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'default').create({ metadata: { name: 'default' } }).catch(() => {});
    await pods.create({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    const patched = await pods.status.patch('p', { status: { phase: 'Running' } });
    assert.equal(patched.status.phase, 'Running');
  });

  test('a client closed while it connects ends its requests and throws nothing later', async () => {
    // closed at different moments of its first connection: before it, during the TLS handshake, after it
    for (const delayMs of [0, 1, 2, 5, 10, 20]) for (let i = 0; i < 3; i++) {
      const brief = await clientFromFile(server.kubeconfig);
      const pending = brief.resource(configMaps, 'default').list().then(() => 'answered', () => 'failed');
      await new Promise((r) => (delayMs ? setTimeout(r, delayMs) : setImmediate(r)));
      brief.close();
      const outcome = await Promise.race([pending, new Promise((r) => setTimeout(() => r('never settled'), 30_000))]);
      assert.ok(outcome === 'answered' || outcome === 'failed', `closed after ${delayMs} ms: the request ${outcome}`);
    }
    // the session's own events come after the requests settled: an exception there would fail this test
    await new Promise((r) => setTimeout(r, 100));
  });

  test('a client closed from inside a response\'s data callback closes its connections and leaves nothing behind', async () => {
    // in a process of its own, whose handles are the client's alone: a watch open, then close() from the callback of
    // a response's first DATA frame, awaited; then the process must hold no socket or timer, and exit by itself
    const restClient = new URL('./rest-client.js', import.meta.url).href;
    const script = `const { clientFromFile } = await import(${JSON.stringify(restClient)});
const client = await clientFromFile(process.env.KUBECONFIG);
const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default');
const watching = (async () => { for await (const e of cms.watch({})) {} })().then(() => 'ended', (e) => e.message);
await cms.list();
const res = await client.stream({ method: 'GET', path: '/api/v1/namespaces' });
await new Promise((resolve, reject) => res.once('data', () => Promise.resolve(client.close()).then(resolve, reject)));
const watch = await watching;
await new Promise((r) => setImmediate(r));
console.log(JSON.stringify({ watch, left: process.getActiveResourcesInfo() }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, KUBECONFIG: server.kubeconfig }, timeout: 60_000 });
    const { watch, left } = JSON.parse(stdout);
    // the watch was cut under its caller: it fails saying so, unlike one the server ended
    assert.match(watch, /the client of https:\/\/\S+ was closed/);
    // (its output goes to this process through a pipe, which is no handle of the client's)
    assert.deepEqual(left.filter((r: string) => r !== 'PipeWrap'), []);
  });

  test('a client left open does not keep the process alive while idle; a watch does', async () => {
    // in a process of its own: after a request, the idle connection holds no handle that keeps the process
    // running; a watch open does; once it is stopped the process exits by itself, the client never closed
    const restClient = new URL('./rest-client.js', import.meta.url).href;
    const script = `const { clientFromFile } = await import(${JSON.stringify(restClient)});
const client = await clientFromFile(process.env.KUBECONFIG);
const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default');
const settle = () => new Promise((r) => setImmediate(r));
await cms.list();
await settle();
const idle = process.getActiveResourcesInfo();
const stop = new AbortController();
const events = cms.watch({ signal: stop.signal })[Symbol.asyncIterator]();
const first = events.next();
await cms.create({ metadata: { generateName: 'alive-' } });
await first;
const watching = process.getActiveResourcesInfo();
stop.abort();
await events.return?.();
await cms.list();
await settle();
console.log(JSON.stringify({ idle, watching, after: process.getActiveResourcesInfo() }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, KUBECONFIG: server.kubeconfig }, timeout: 60_000 });
    const { idle, watching, after } = JSON.parse(stdout);
    // (the output pipe is no handle of the client's; an Immediate runs once and holds nothing for good)
    const held = (list: string[]) => list.filter((r) => r !== 'PipeWrap' && r !== 'Immediate');
    assert.deepEqual(held(idle), []);
    assert.ok(held(watching).includes('TCPSocketWrap'), `a watch keeps its connection: ${watching}`);
    assert.deepEqual(held(after), []);
  });

  test('a renewed client certificate: the old connection ends once its last stream does, without waiting for the server', async () => {
    // a proxy that passes bytes but never ends a side: a peer that leaves a half-closed connection open.
    // The old connection is ended when it lets its socket go: the proxy's writes to it then fail
    const target = new URL((await loadClientConfig(server.kubeconfig)).server);
    const accepted: Socket[] = [];
    const ended = new Set<Socket>();
    const proxy = createNetServer({ allowHalfOpen: true }, (sock) => {
      const up = netConnect(Number(target.port), target.hostname);
      sock.pipe(up, { end: false });
      up.pipe(sock, { end: false });
      sock.on('error', () => {});
      up.on('error', () => {});
      sock.on('close', () => { ended.add(sock); up.destroy(); });
      accepted.push(sock);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const admin = await loadClientConfig(server.kubeconfig);
    const renewed = await loadClientConfig(await server.userKubeconfig('renewed', ['system:masters']));
    let credential = { certPem: admin.certPem, keyPem: admin.keyPem };
    const { certPem: _c, keyPem: _k, ...noCert } = admin;
    const viaProxy = createClient({ ...noCert, server: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}` },
      { credentials: { get: async () => credential, invalidate() {} } });
    try {
      const cms = viaProxy.resource(configMaps, 'default');
      const stop = new AbortController();
      const events = cms.watch({ signal: stop.signal })[Symbol.asyncIterator]();
      const first = events.next();
      await cms.create({ metadata: { generateName: 'renewed-' } });
      await first;
      credential = { certPem: renewed.certPem, keyPem: renewed.keyPem };
      await cms.list();
      assert.equal(accepted.length, 2);
      assert.ok(!ended.has(accepted[0]), 'the old connection carries its watch to its end');
      stop.abort();
      await events.return?.();
      await until(() => { if (!accepted[0].destroyed) accepted[0].write('\0'); return ended.has(accepted[0]); }, 10_000);
      assert.ok(!ended.has(accepted[1]), 'the new connection stays');
      assert.equal((await cms.list()).kind, 'ConfigMapList');
    } finally {
      // (the proxy's sockets first: a client that kept a half-closed connection would wait for it to close)
      proxy.close();
      for (const s of accepted) s.destroy();
      await viaProxy.close();
    }
  });

  test('bearer tokens: static, and from an exec credential plugin', async () => {
    const base = await loadClientConfig(server.kubeconfig);
    const { certPem: _c, keyPem: _k, ...noCert } = base;
    const withToken = createClient({ ...noCert, token: 'secret-token' });
    const review = await withToken.request({ method: 'POST', path: `/apis/${server.names.group('authentication')}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${server.names.group('authentication')}/v1beta1`, kind: 'SelfSubjectReview' } });
    assert.equal(review.status.userInfo.username, 'alice');
    withToken.close();
    const bad = createClient({ ...noCert, token: 'wrong' });
    await assert.rejects(bad.resource(configMaps, 'default').list(), (e: unknown) => e instanceof ApiError && e.code === 401);
    bad.close();

    const plugin = join(dir, 'plugin.sh');
    const execVersion = `${server.names.group('client.authentication')}/v1`;
    writeFileSync(plugin, `#!/bin/sh\necho '{"apiVersion":"${execVersion}","kind":"ExecCredential","status":{"token":"plugin-token"}}'\n`);
    chmodSync(plugin, 0o755);
    const viaPlugin = createClient({ ...noCert, exec: { apiVersion: execVersion, command: plugin, args: [], env: [], provideClusterInfo: false, interactiveMode: 'Never' } });
    const who = await viaPlugin.request({ method: 'POST', path: `/apis/${server.names.group('authentication')}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${server.names.group('authentication')}/v1beta1`, kind: 'SelfSubjectReview' } });
    assert.equal(who.status.userInfo.username, 'bob');
    viaPlugin.close();
  });

  test('watch streams events from a resourceVersion', async () => {
    const cms = client.resource(configMaps, 'default');
    const { metadata } = await cms.list();
    const stop = new AbortController();
    const seen: WatchEvent[] = [];
    const done = (async () => {
      for await (const e of cms.watch({ resourceVersion: metadata.resourceVersion, signal: stop.signal })) {
        seen.push(e);
        if (seen.length === 3) stop.abort();
      }
    })();
    await cms.create({ metadata: { name: 'w' } });
    await cms.patch('w', { data: { a: 'b' } });
    await cms.delete('w');
    await done;
    assert.deepEqual(seen.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED w', 'MODIFIED w', 'DELETED w']);
  });

  test('the informer lists, then follows; a watch that ends resumes without a relist', async () => {
    const cms = client.resource(configMaps, 'informed');
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'informed' } });
    const labels = { app: 'informed' };
    await cms.create({ metadata: { name: 'before', labels } });
    const events: InformerEvent<any>[] = [];
    // a selector: controllers of the server may put their own objects in the namespace
    const informer = startInformer(cms, (e) => events.push(e), { watchTimeoutSeconds: 1, labelSelector: 'app=informed' });
    await informer.synced;
    assert.deepEqual([...informer.store.keys()], ['informed/before']);
    // the server ends each watch after a second; changes made across the reconnects all arrive
    for (let i = 0; i < 3; i++) {
      await cms.create({ metadata: { name: `n${i}`, labels } });
      await new Promise((r) => setTimeout(r, 700));
    }
    await cms.delete('before');
    await until(() => informer.store.size === 3 && !informer.store.has('informed/before'));
    informer.stop();
    assert.equal(events.filter((e) => e.type === 'sync').length, 1);
    assert.deepEqual(events.filter((e) => e.type !== 'sync').map((e) => `${e.type} ${(e as any).object.metadata.name}`), ['added n0', 'added n1', 'added n2', 'deleted before']);
  });

  test('an informer whose client is closed under it says so once and stops, instead of retrying for ever', async () => {
    const own = await clientFromFile(server.kubeconfig);
    const errors: unknown[] = [];
    const informer = startInformer(own.resource(configMaps, 'default'), () => {}, { retryDelayMs: 5, onError: (e) => errors.push(e) });
    try {
      await informer.synced;
      await own.close();
      await until(() => errors.length > 0);
      assert.ok(isClientClosed(errors[0]), String(errors[0]));
      // a retrying informer, 5 ms apart, would have failed again many times over by now
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(errors.length, 1, errors.map(String).join('; '));
    } finally {
      informer.stop();
    }
  });
});

test('more watches than the server lets one HTTP/2 connection carry: the client opens another connection', { timeout: 60_000 }, async () => {
  const server = await startTestServer({ flags: ['--http2-max-streams-per-connection=3'] });
  const client = await clientFromFile(server.kubeconfig);
  const stop = new AbortController();
  try {
    const cms = client.resource(configMaps, 'default');
    const { metadata } = await cms.list();
    // ten watches that never end by themselves: on one connection, seven would wait behind the first three forever
    const firsts = Array.from({ length: 10 }, async () => {
      for await (const e of cms.watch({ resourceVersion: metadata.resourceVersion, signal: stop.signal })) return `${e.type} ${e.object.metadata.name}`;
    });
    await cms.create({ metadata: { name: 'seen-by-all' } });
    assert.deepEqual(await Promise.all(firsts), Array(10).fill('ADDED seen-by-all'));
    assert.equal((await cms.get('seen-by-all')).metadata.name, 'seen-by-all');
  } finally {
    stop.abort();
    client.close();
    await server.close();
  }
});

test('a server that drops every connection: the request fails with the connection\'s error, after one attempt', async () => {
  let accepted = 0;
  const dropping = createNetServer((socket) => { accepted++; socket.destroy(); });
  await new Promise<void>((r) => dropping.listen(0, '127.0.0.1', r));
  // a client reconnecting in a loop ends with this timeout instead of the connection's error (after many connections)
  const client = createClient({ contextName: 'c', clusterName: 'c', userName: 'u', server: `https://127.0.0.1:${(dropping.address() as AddressInfo).port}`, insecureSkipTLSVerify: true }, { timeoutMs: 30_000 });
  try {
    await assert.rejects(client.resource(configMaps, 'default').get('x'), (e: Error) => !/no connection within/.test(e.message) && /socket|disconnected|ECONNRESET/i.test(e.message));
    assert.equal(accepted, 1);
  } finally {
    client.close();
    dropping.close();
  }
});

describe('informer relist on 410 Gone (unit, with a scripted resource)', () => {
  test('a watch that answers 410 makes the informer list again', async () => {
    let lists = 0;
    let watches = 0;
    const fake: Pick<ResourceClient, 'list' | 'watch'> = {
      async list() {
        lists++;
        return { metadata: { resourceVersion: String(lists * 10) }, items: [{ metadata: { name: `item-${lists}`, resourceVersion: '1' } }] };
      },
      watch(o) {
        watches++;
        const n = watches;
        return (async function* () {
          if (n === 1) throw new ApiError(410, 'Expired', 'too old resource version');
          await new Promise<void>((r) => o?.signal?.addEventListener('abort', () => r()));
        })();
      },
    };
    const syncs: string[][] = [];
    const informer = startInformer(fake as ResourceClient, (e) => { if (e.type === 'sync') syncs.push(e.items.map((i: any) => i.metadata.name)); });
    await until(() => syncs.length === 2);
    informer.stop();
    assert.deepEqual(syncs, [['item-1'], ['item-2']]);
    assert.deepEqual([...informer.store.keys()], ['item-2']);
    assert.equal(informer.lastResourceVersion(), '20');
  });
});

describe('token bucket', () => {
  test('burst goes at once, then qps per second', async () => {
    // a clock that moves only when the bucket waits: what is checked is how long it waits, not how fast the machine is
    let now = 0;
    const waits: number[] = [];
    const limiter = tokenBucket(20, 3, { now: () => now, sleep: async (ms) => { waits.push(ms); now += ms; } });
    for (let i = 0; i < 3; i++) await limiter.take();
    assert.deepEqual(waits, [], 'the burst is not delayed');
    for (let i = 0; i < 4; i++) await limiter.take();
    assert.deepEqual(waits, [50, 50, 50, 50], '4 more at 20/s wait 50 ms each');
    now += 1000;   // idle for a second: the bucket refills to its burst, no more
    for (let i = 0; i < 4; i++) await limiter.take();
    assert.deepEqual(waits, [50, 50, 50, 50, 50]);
  });

  test('qps 0 is unlimited', async () => {
    const limiter = tokenBucket(0, 0, { now: () => 0, sleep: () => assert.fail('an unlimited bucket never waits') });
    for (let i = 0; i < 1000; i++) await limiter.take();
  });
});

describe('REST client over plain HTTP', () => {
  test('close() cuts a watch and a request waiting for an answer with the client\'s own error, and refuses later requests', async () => {
    const { createServer } = await import('node:http');
    // a server that starts a watch's answer and never ends it, and never answers a get
    const server = createServer((req, res) => {
      if (req.url?.includes('watch=')) { res.writeHead(200, { 'content-type': 'application/json' }); res.write(''); return; }
      req.resume();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = createClient({ contextName: 'c', clusterName: 'c', userName: 'u', server: origin });
      const cms = client.resource(configMaps, 'default');
      let watchOpen = false;
      const watching = (async () => { const w = cms.watch({}); watchOpen = true; for await (const _ of w) { /* none come */ } })()
        .then(() => 'ended', (e: Error) => e);
      const getting = cms.get('x').then(() => 'answered', (e: Error) => e);
      await until(() => watchOpen && server.listenerCount('request') > 0);
      await until(() => (server as unknown as { _connections: number })._connections >= 2);
      await client.close();
      for (const outcome of [await watching, await getting]) {
        assert.ok(isClientClosed(outcome), String(outcome));
        assert.match(String((outcome as Error).message), new RegExp(`the client of ${origin} was closed`));
      }
      const later = await cms.get('y').then(() => 'answered', (e: Error) => e);
      assert.ok(isClientClosed(later), String(later));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
