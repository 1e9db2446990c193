// Image garbage collection choices by the thresholds (unit).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { containersToRemove, imagesToRemove, type ImageUse } from '../../src/agent/gc.js';
import type { ContainerInfo } from '../../src/agent/runtime/types.js';

const image = (id: string, size: number) => ({ id, names: [`localhost/${id}:1`], size });
const images = [image('a', 30), image('b', 20), image('c', 10), image('pause', 5), image('used', 40)];
const seen = new Map<string, ImageUse>([['a', { firstSeen: 0, lastUsed: 300 }], ['b', { firstSeen: 0, lastUsed: 100 }], ['c', { firstSeen: 900, lastUsed: 0 }], ['pause', { firstSeen: 0, lastUsed: 0 }], ['used', { firstSeen: 0, lastUsed: 1000 }]]);
const pinned = (i: { names: string[] }) => i.names.includes('localhost/pause:1');
const policy = { highPercent: 85, lowPercent: 80, minAgeMs: 200 };
const pick = (used: number, p = policy) => imagesToRemove(images, new Set(['used']), pinned, { used, capacity: 100 }, p, seen, 1000).map((i) => i.id);

describe('image garbage collection', () => {
  test('nothing below the high threshold', () => assert.deepEqual(pick(84), []));
  test('least recently used first, until down to the low threshold', () => {
    assert.deepEqual(pick(90), ['b']);
    assert.deepEqual(pick(120), ['b', 'a']);
  });
  test('images in use, pinned or younger than the minimum age stay', () => assert.deepEqual(pick(200), ['b', 'a']));
  test('100 disables collection', () => assert.deepEqual(pick(200, { ...policy, highPercent: 100 }), []));
});

describe('dead container collection', () => {
  const dead = (sandboxId: string, name: string, attempt: number, finishedAt: number): ContainerInfo => ({
    id: `${sandboxId}-${name}-${attempt}`, sandboxId, name, attempt, state: 'exited', image: 'x', imageRef: 'x', createdAt: finishedAt - 1, finishedAt, labels: {},
  });
  // pod a: container m restarted 4 times; pod b: container n restarted twice; the newest of each is running
  const list = [dead('a', 'm', 0, 100), dead('a', 'm', 1, 200), dead('a', 'm', 2, 300), dead('a', 'm', 3, 400), dead('b', 'n', 0, 150), dead('b', 'n', 1, 250)];
  const newest = new Set(['a-m-4', 'b-n-2']);
  const ids = (p: { minAgeMs: number; maxPerContainer: number; maxContainers: number }, now = 1000) => containersToRemove(list, newest, p, now).map((c) => c.id).sort();

  test('per container: the newest dead instances stay, the older go', () => {
    assert.deepEqual(ids({ minAgeMs: 0, maxPerContainer: 1, maxContainers: -1 }), ['a-m-0', 'a-m-1', 'a-m-2', 'b-n-0']);
  });
  test('the node-wide cap is shared among the containers, then the oldest go', () => {
    assert.deepEqual(ids({ minAgeMs: 0, maxPerContainer: -1, maxContainers: 2 }), ['a-m-0', 'a-m-1', 'a-m-2', 'b-n-0']);
    assert.deepEqual(ids({ minAgeMs: 0, maxPerContainer: -1, maxContainers: 1 }), ['a-m-0', 'a-m-1', 'a-m-2', 'b-n-0', 'b-n-1']);
  });
  test('containers younger than the minimum age stay; the newest instance of a container always stays', () => {
    assert.deepEqual(ids({ minAgeMs: 700, maxPerContainer: 0, maxContainers: -1 }), ['a-m-0', 'a-m-1', 'a-m-2', 'b-n-0', 'b-n-1'], 'a-m-3 ended 600 ms ago');
    assert.deepEqual(containersToRemove([dead('c', 'z', 0, 1)], new Set(['c-z-0']), { minAgeMs: 0, maxPerContainer: 0, maxContainers: 0 }, 1000), []);
  });
});
