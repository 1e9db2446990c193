import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './merge-patch.js';
import { PatchError } from './common.js';

describe('applyMergePatch', () => {
  // RFC 7396 appendix A
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    [{ a: 'foo' }, 'bar', 'bar'],
  ];
  for (const [doc, patch, expected] of cases) {
    test(`${JSON.stringify(doc)} + ${JSON.stringify(patch)}`, () => assert.deepEqual(applyMergePatch(doc, patch), expected));
  }

  test('kubectl label / annotate patches on a Pod', () => {
    const pod = { metadata: { name: 'p', labels: { app: 'web', tier: 'old' } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    const out = applyMergePatch(pod, { metadata: { labels: { tier: 'frontend', app: null }, annotations: { note: 'hi' } } });
    assert.deepEqual(out, {
      metadata: { name: 'p', labels: { tier: 'frontend' }, annotations: { note: 'hi' } },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
  });

  test('lists are replaced whole', () => {
    const pod = { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } };
    assert.deepEqual(applyMergePatch(pod, { spec: { containers: [{ name: 'b', image: 'z' }] } }),
      { spec: { containers: [{ name: 'b', image: 'z' }] } });
  });

  test('never mutates its inputs, and the result shares nothing with them', () => {
    const doc = { a: { b: [1, 2] }, keep: { x: 1 } };
    const patch = { a: { c: { d: 1 } }, n: null };
    const docBefore = structuredClone(doc), patchBefore = structuredClone(patch);
    const out = applyMergePatch(doc, patch) as { a: { b: number[]; c: { d: number } }; keep: { x: number } };
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
    out.a.b.push(3);
    out.a.c.d = 2;
    out.keep.x = 2;
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
  });

  test('__proto__ is an ordinary key', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true},"a":1}');
    const merged = applyMergePatch(out, JSON.parse('{"__proto__": {"more": 2}}'));
    assert.equal(JSON.stringify(merged), '{"__proto__":{"polluted":true,"more":2},"a":1}');
  });

  test('a null patch is refused like the reference', () => {
    assert.throws(() => applyMergePatch({ a: 1 }, null), (e: unknown) => e instanceof PatchError && e.code === 400);
  });
});
