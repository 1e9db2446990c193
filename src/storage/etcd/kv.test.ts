import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { startEtcd, startEtcdCluster, type EtcdServer } from '../../../test/support/etcd.js';
import { freePort } from '../../../test/support/ports.js';
import { kvContract } from '../testing/kv-contract.js';
import { isStorageError, type KV, type WriteResult } from '../types.js';
import { openEtcdKV } from './kv.js';

const text = (v: Uint8Array) => Buffer.from(v).toString('utf8');

let etcd: EtcdServer;
before(async () => { etcd = await startEtcd(); });
after(async () => { await etcd?.stop(); });

kvContract('etcd', () => openEtcdKV({ endpoints: [etcd.endpoint], prefix: '/contract' }));

describe('etcd specifics', () => {
  let kv: KV;
  before(async () => { kv = await openEtcdKV({ endpoints: [etcd.endpoint], prefix: '/specifics' }); });
  after(async () => { await kv?.close(); });

  test('a value over gRPC\'s default 4 MiB cap is written and read back', async () => {
    const value = new Uint8Array(randomBytes(5 * 1024 * 1024));
    const key = `/big/${randomBytes(4).toString('hex')}`;
    const created = await kv.create(key, value);
    const got = await kv.get(key);
    assert.ok(Buffer.from(got.kv!.value).equals(value));
    const listed = await kv.list('/big/');
    assert.ok(listed.kvs.some(x => x.key === key && Buffer.from(x.value).equals(value)));
    assert.equal(got.kv!.modRevision, created.revision);
  });

  test('a write over etcd\'s request limit fails at once with TooLarge, and the store goes on', async () => {
    const value = new Uint8Array(17 * 1024 * 1024);   // the test etcd takes at most 16 MiB
    const started = Date.now();
    await assert.rejects(kv.create(`/huge/${randomBytes(4).toString('hex')}`, value), (e: unknown) => isStorageError(e, 'TooLarge'));
    assert.ok(Date.now() - started < 10_000, 'it did not hang');
    const key = `/after/${randomBytes(4).toString('hex')}`;
    await kv.create(key, new Uint8Array([1]));
    assert.equal((await kv.get(key)).kv?.value[0], 1);
  });

  test('the prefix keeps stores apart and the compaction record out of lists', async () => {
    const other = await openEtcdKV({ endpoints: [etcd.endpoint], prefix: '/specifics-other' });
    try {
      const key = `/isolated/${randomBytes(4).toString('hex')}`;
      await other.create(key, new TextEncoder().encode('x'));
      assert.equal((await kv.get(key)).kv, undefined);
      await other.compact(await other.currentRevision());
      assert.deepEqual((await other.list('')).kvs.map(x => x.key), [key]);
      assert.equal(await other.count(''), 1);
      assert.ok(await other.oldestRevision() > 1);
      assert.ok(await kv.oldestRevision() === 1, 'the compaction record is per prefix');
      const unprefixed = await openEtcdKV({ endpoints: [etcd.endpoint] });
      try {
        assert.ok(await unprefixed.count('') >= 2);
        assert.equal((await unprefixed.list('', { limit: 1 })).kvs.length, 1);
        assert.equal(text((await unprefixed.get('/specifics-other' + key)).kv!.value), 'x');
      } finally {
        await unprefixed.close();
      }
    } finally {
      await other.close();
    }
  });

  test('check() passes against a live server', async () => {
    await kv.check();
  });

  test('a write to an etcd out of space (its quota reached) fails in etcd\'s words as an internal error, not as too large; reads go on', async () => {
    const small = await startEtcd(undefined, ['--quota-backend-bytes', String(2 * 1024 * 1024)]);
    const full = await openEtcdKV({ endpoints: [small.endpoint], prefix: '/full' });
    try {
      const value = new Uint8Array(randomBytes(256 * 1024));
      let refused: unknown;
      let written = 0;
      while (refused === undefined && written < 100) {
        await full.create(`/k/${written}`, value).then(() => written++, (e: unknown) => { refused = e; });
      }
      assert.ok(isStorageError(refused, 'Internal'), `refused as ${String(refused)}`);
      assert.equal((refused as Error).message, 'etcdserver: mvcc: database space exceeded');
      assert.equal((await full.list('/k/')).kvs.length, written);
    } finally {
      await full.close();
      await small.stop();
    }
  });

  // Last in the file: it restarts the shared server.
  test('a watch resumes across an etcd crash and restart with no gap or duplicate', async () => {
    const p = `/restart/${randomBytes(4).toString('hex')}/`;
    const value = new TextEncoder().encode('x');
    const first = await kv.create(p + 'first', value);
    const events: number[] = [];
    const errors: unknown[] = [];
    const watch = kv.watch(p, { afterRevision: first.revision - 1 }, {
      onEvents: batch => events.push(...batch.map(e => e.kv.modRevision)),
      onError: err => errors.push(err),
    });
    try {
      await waitUntil(() => events.length === 1);
      etcd.kill();
      await etcd.restart();
      const written = [first.revision];
      for (let i = 0; i < 5; i++) written.push((await retryUnavailable(() => kv.create(`${p}k${i}`, value))).revision);
      await waitUntil(() => events.length >= written.length);
      assert.deepEqual(events, written);
      assert.deepEqual(errors, []);
    } finally {
      watch.close();
    }
  });
});

async function waitUntil(ready: () => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}

/** runs op until it stops failing with Unavailable (the client reconnecting after a restart) */
async function retryUnavailable<T>(op: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (!isStorageError(err, 'Unavailable') || Date.now() > deadline) throw err;
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }
}

describe('unreachable etcd', () => {
  const assertUnavailable = async (endpoint: string) => {
    const started = Date.now();
    await assert.rejects(openEtcdKV({ endpoints: [endpoint], dialTimeoutMs: 1000 }), (err: unknown) => {
      assert.ok(isStorageError(err, 'Unavailable'), String(err));
      assert.match(err.message, new RegExp(endpoint.replace(/[.:/]/g, '\\$&')), 'the error names the endpoint');
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 3000, `failed after ${elapsed} ms`);
  };

  test('nothing listening: open fails fast with Unavailable naming the endpoint', async () => {
    await assertUnavailable(`http://127.0.0.1:${await freePort()}`);
  });

  test('a server that accepts but never answers: open fails within the dial timeout', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer(socket => { sockets.add(socket); socket.on('error', () => {}); });
    await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve));
    try {
      await assertUnavailable(`http://127.0.0.1:${(silent.address() as { port: number }).port}`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise(resolve => silent.close(resolve));
    }
  });
});

test('a store opens on the members that answer when the first endpoint is down, whichever member the client tries first', async () => {
  const down = `http://127.0.0.1:${await freePort()}`;
  // the client shuffles the members: ten openings each start on the dead one about half the time
  for (let i = 0; i < 10; i++) {
    const kv = await openEtcdKV({ endpoints: [down, etcd.endpoint], prefix: '/first-down' });
    try {
      const key = `/k/${i}`;
      await kv.create(key, new Uint8Array([i]));
      assert.equal((await kv.get(key)).kv?.value[0], i);
    } finally {
      await kv.close();
    }
  }
});

describe('etcd cluster with its first member down', () => {
  test('a write over 1 MiB goes to another member, as smaller writes do: at most one attempt per member fails', async () => {
    const cluster = await startEtcdCluster(3);
    const kv = await openEtcdKV({ endpoints: cluster.endpoints, prefix: '/member-down' });
    try {
      await cluster.members[0].stop();
      const value = new Uint8Array(randomBytes(1200 * 1024));
      const failures: unknown[] = [];
      let written: WriteResult | undefined;
      while (!written && failures.length < cluster.endpoints.length) {
        written = await kv.create('/large', value).catch((e: unknown) => { failures.push(e); return undefined; });
      }
      assert.ok(written, `every attempt failed: ${failures.join('; ')}`);
      assert.ok(failures.every(e => isStorageError(e, 'Unavailable')), failures.join('; '));
      assert.ok(Buffer.from((await kv.get('/large')).kv!.value).equals(value));
    } finally {
      await kv.close();
      await cluster.stop();
    }
  });
});
