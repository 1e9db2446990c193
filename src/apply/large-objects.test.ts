// The field manager on large objects: recording a create, an update that changes every value, and an apply that
// changes one, each cost time in proportion to the object (a ConfigMap's keys, a Pod's containers), never more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apply, updateManagedFields } from './managed-fields.js';
import type { Obj } from './typed.js';
import * as S from './test-schemas.js';

const time = '2023-01-01T00:00:00Z';
const configMap = (n: number, value: string): Obj =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value])) });
const pod = (n: number, value: string): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {
  containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: `busybox:${value}`, env: [{ name: 'A', value }] })) } });

/** create, update of every value, then an apply of the same object with one value changed; returns ms */
function writes(make: (n: number, value: string) => Obj, n: number, schema: typeof S.pod, apiVersion = 'v1'): number {
  const t = performance.now();
  const created = updateManagedFields(undefined, make(n, 'a'), { manager: 'creator', apiVersion, time }, schema).object;
  const updated = updateManagedFields(created, make(n, 'b'), { manager: 'updater', apiVersion, time }, schema).object;
  const config = make(n, 'b');
  const json = JSON.stringify(apply(updated, config, { manager: 'applier', apiVersion, time, force: true }, schema).object);
  assert.ok(json.length > n);
  return performance.now() - t;
}

function ratio(make: (n: number, value: string) => Obj, small: number, schema: typeof S.pod): { s: number; l: number } {
  writes(make, small * 4, schema);   // warm-up
  // the best of rounds that alternate sizes, so a busy machine slows both alike
  let s = Infinity, l = Infinity;
  for (let round = 0; round < 3; round++) { s = Math.min(s, writes(make, small, schema)); l = Math.min(l, writes(make, small * 8, schema)); }
  return { s, l };
}

// eight times the size: about eight times the time when linear, sixty-four when quadratic; the bound sits between,
// nearer quadratic, since collecting the larger heap adds to it on a loaded machine (as the YAML decoding test bounds it)
test('managed fields of a ConfigMap grow linearly with its keys', () => {
  const { s, l } = ratio(configMap, 5_000, S.configMap);
  assert.ok(l / s < 40, `5,000 keys ${s.toFixed(1)} ms, 40,000 keys ${l.toFixed(1)} ms`);
});

test('managed fields of a Pod grow linearly with its containers', () => {
  const { s, l } = ratio(pod, 500, S.pod);
  assert.ok(l / s < 40, `500 containers ${s.toFixed(1)} ms, 4,000 containers ${l.toFixed(1)} ms`);
});
