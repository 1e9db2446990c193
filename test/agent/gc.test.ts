// Image garbage collection choices by the thresholds (unit).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { imagesToRemove, type ImageUse } from '../../src/agent/gc.js';

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
