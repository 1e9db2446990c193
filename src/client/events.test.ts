import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventName } from './events.js';

test('event names of one object are distinct however close together they are made', () => {
  const names = Array.from({ length: 10_000 }, () => eventName('web-0'));
  assert.equal(new Set(names).size, names.length);
  assert.match(names[0]!, /^web-0\.[0-9a-f]+$/);
  // the suffix is the time in nanoseconds: within a minute of now
  const ns = BigInt(`0x${names[0]!.split('.')[1]}`);
  assert.ok(Number(ns / 1_000_000n) - Date.now() < 60_000);
});

test('event names sort in the order the events were made, also within one millisecond', () => {
  const names = Array.from({ length: 20_000 }, () => eventName('web-0'));
  const order = (a: string, b: string) => (BigInt(`0x${a.split('.')[1]}`) < BigInt(`0x${b.split('.')[1]}`) ? -1 : 1);
  assert.deepEqual([...names].sort(order), names);
  // names of equal length sort as text too, as storage lists them
  assert.deepEqual([...names].sort(), names);
});
