// Watchers that pin a field (a node agent's `spec.nodeName=<node>`) are reached only by events of objects that had
// or have that value; the others still get every event of their prefix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../api/meta.js';
import type { ObjectEvent } from '../api/cache.js';
import { openBackend } from '../storage/testing/backends.js';
import { createObjectStore, type WatchIndex } from '../storage/objects.js';
import { createWatchCache } from './cache.js';
import { until } from '../../test/support/wait.js';

const pod = (name: string, nodeName?: string): ApiObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: { nodeName } } as ApiObject);
const byNode = (value: string, reads: { n: number }): WatchIndex => ({
  field: 'spec.nodeName', value, get: (o) => { reads.n++; return (o as { spec?: { nodeName?: string } }).spec?.nodeName; },
});

test('an event reaches only the watchers of the node its pod had or has; unindexed watchers get all', async () => {
  const { kv, close } = await openBackend('memory');
  const cache = createWatchCache(createObjectStore(kv), { root: '/registry/' });
  await cache.start();
  try {
    const prefix = '/registry/core/pods/';
    const start = await cache.create(`${prefix}ns/seed`, pod('seed'));
    await cache.list(prefix, { revision: start.rev });   // the resource is cached from here on
    const seen: Record<string, string[]> = {};
    const reads = { n: 0 };
    const watch = async (who: string, index?: WatchIndex) => {
      seen[who] = [];
      return cache.watch(prefix, { revision: start.rev, index }, {
        event: (ev: ObjectEvent) => seen[who].push(`${ev.type} ${ev.cur.obj.metadata.name}`),
        end: () => {},
      });
    };
    const stops = [
      await watch('all'),
      ...await Promise.all(Array.from({ length: 100 }, (_, i) => watch(`node-${i}`, byNode(`node-${i}`, reads)))),
      await watch('unscheduled', byNode('', reads)),
    ];
    await cache.create(`${prefix}ns/a`, pod('a'));
    await cache.update(`${prefix}ns/a`, (cur) => ({ put: { ...cur!.obj, spec: { nodeName: 'node-1' } } as ApiObject }));
    await cache.create(`${prefix}ns/b`, pod('b', 'node-2'));
    await cache.update(`${prefix}ns/b`, (cur) => ({ put: { ...cur!.obj, metadata: { ...cur!.obj.metadata, labels: { x: 'y' } } } as ApiObject }));
    await cache.delete(`${prefix}ns/a`);
    await until(() => seen.all.length === 5, () => `all five events; got ${JSON.stringify(seen.all)}`);
    assert.deepEqual(seen.all, ['ADDED a', 'MODIFIED a', 'ADDED b', 'MODIFIED b', 'DELETED a']);
    // a moves from no node to node-1: both sides see the move
    assert.deepEqual(seen.unscheduled, ['ADDED a', 'MODIFIED a']);
    assert.deepEqual(seen['node-1'], ['MODIFIED a', 'DELETED a']);
    assert.deepEqual(seen['node-2'], ['ADDED b', 'MODIFIED b']);
    for (let i = 3; i < 100; i++) assert.deepEqual(seen[`node-${i}`], []);
    // the field is read once per event, not per watcher: a previous state's value is remembered, not read again
    assert.ok(reads.n <= 5, `the node name was read ${reads.n} times`);
    for (const stop of stops) stop();
    const after = await watch('after', byNode('node-1', reads));
    await cache.create(`${prefix}ns/c`, pod('c', 'node-1'));
    await until(() => seen.after.includes('ADDED c'), () => `c; got ${JSON.stringify(seen.after)}`);
    assert.deepEqual(seen['node-1'], ['MODIFIED a', 'DELETED a'], 'a stopped watcher gets nothing more');
    after();
  } finally {
    cache.stop();
    await close();
  }
});

test('a watcher pinned to a name is reached through the key: no event\'s object is decoded to read the name', async () => {
  const { kv, close } = await openBackend('memory');
  const cache = createWatchCache(createObjectStore(kv), { root: '/registry/' });
  await cache.start();
  try {
    const prefix = '/registry/core/configmaps/';
    const start = await cache.create(`${prefix}ns/seed`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seed', namespace: 'ns' } } as ApiObject);
    await cache.list(prefix, { revision: start.rev });
    let reads = 0;
    const byName: WatchIndex = {
      field: 'metadata.name', value: 'wanted',
      get: (o) => { reads++; return o.metadata.name; },
      fromKey: (key) => key.slice(key.lastIndexOf('/') + 1),
    };
    const seen: string[] = [];
    const stop = await cache.watch(prefix, { revision: start.rev, index: byName }, { event: (ev: ObjectEvent) => seen.push(`${ev.type} ${ev.key}`), end: () => {} });
    const cm = (name: string, namespace: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { big: 'x'.repeat(1000) } } as ApiObject);
    for (const name of ['other', 'wanted', 'wanted-not']) await cache.create(`${prefix}ns/${name}`, cm(name, 'ns'));
    await cache.create(`${prefix}ns2/wanted`, cm('wanted', 'ns2'));
    await cache.delete(`${prefix}ns/wanted`);
    await until(() => seen.length === 3, () => `three events; got ${JSON.stringify(seen)}`);
    assert.deepEqual(seen, [`ADDED ${prefix}ns/wanted`, `ADDED ${prefix}ns2/wanted`, `DELETED ${prefix}ns/wanted`]);
    assert.equal(reads, 0, 'the name was read from an object');
    stop();
  } finally {
    cache.stop();
    await close();
  }
});
