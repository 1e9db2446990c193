import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, maxJsonPatchOperations } from './json-patch.js';
import { PatchError } from './common.js';

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' }, annotations: { 'example.com/owner': 'team-a' } },
  spec: {
    replicas: 2,
    template: { spec: { containers: [{ name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } },
  },
});

/** asserts the patch fails with the given reason and a message matching `message` */
function fails(doc: unknown, patch: unknown, reason: PatchError['reason'], message: RegExp) {
  assert.throws(() => applyJsonPatch(doc, patch), (e: unknown) => {
    assert.ok(e instanceof PatchError, `expected a PatchError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.match(e.message, message);
    return true;
  });
}

describe('applyJsonPatch: operations', () => {
  test('add sets a member, inserts into an array, and appends with "-"', () => {
    const out = applyJsonPatch(deployment(), [
      { op: 'add', path: '/metadata/labels/tier', value: 'frontend' },
      { op: 'add', path: '/spec/template/spec/containers/0/ports/0', value: { containerPort: 443 } },
      { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } },
    ]) as ReturnType<typeof deployment>;
    assert.deepEqual(out.metadata.labels, { app: 'web', tier: 'frontend' });
    assert.deepEqual(out.spec.template.spec.containers[0].ports, [{ containerPort: 443 }, { containerPort: 80 }]);
    assert.deepEqual(out.spec.template.spec.containers.map(c => c.name), ['app', 'sidecar']);
  });

  test('add at the index just past the end appends; a negative index counts from the end', () => {
    assert.deepEqual(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/2', value: 3 }]), { a: [1, 2, 3] });
    assert.deepEqual(applyJsonPatch({ a: [1, 2] }, [{ op: 'add', path: '/a/-1', value: 3 }]), { a: [1, 2, 3] });
    assert.deepEqual(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }]), { a: [1, 2] });
    assert.deepEqual(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'replace', path: '/a/-3', value: 9 }]), { a: [9, 2, 3] });
  });

  test('add replaces an existing member', () => {
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a', value: { b: 2 } }]), { a: { b: 2 } });
  });

  test('remove deletes members and array elements', () => {
    const out = applyJsonPatch(deployment(), [
      { op: 'remove', path: '/metadata/annotations/example.com~1owner' },
      { op: 'remove', path: '/spec/template/spec/containers/0/ports/0' },
    ]) as ReturnType<typeof deployment>;
    assert.deepEqual(out.metadata.annotations, {});
    assert.deepEqual(out.spec.template.spec.containers[0].ports, []);
  });

  test('replace changes an existing value, including the whole document', () => {
    const out = applyJsonPatch(deployment(), [{ op: 'replace', path: '/spec/replicas', value: 5 }]) as ReturnType<typeof deployment>;
    assert.equal(out.spec.replicas, 5);
    assert.deepEqual(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: { b: 2 } }]), { b: 2 });
  });

  test('move and copy', () => {
    const out = applyJsonPatch({ a: { x: 1 }, list: [1, 2, 3] }, [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'add', path: '/b/y', value: 2 },
      { op: 'move', from: '/list/0', path: '/list/-' },
      { op: 'move', from: '/a/x', path: '/moved' },
    ]);
    // the copy is independent of its source
    assert.deepEqual(out, { a: {}, b: { x: 1, y: 2 }, list: [2, 3, 1], moved: 1 });
  });

  test('copying the same value twice gives independent values', () => {
    const out = applyJsonPatch({ src: { n: 1 } }, [
      { op: 'copy', from: '/src', path: '/one' },
      { op: 'copy', from: '/src', path: '/two' },
      { op: 'replace', path: '/one/n', value: 2 },
    ]);
    assert.deepEqual(out, { src: { n: 1 }, one: { n: 2 }, two: { n: 1 } });
  });

  test('test compares deeply; a missing member tests equal to null', () => {
    const doc = deployment();
    assert.deepEqual(applyJsonPatch(doc, [
      { op: 'test', path: '/spec/template/spec/containers/0', value: { name: 'app', image: 'nginx:1.25', ports: [{ containerPort: 80 }] } },
      { op: 'test', path: '/metadata/missing', value: null },
      { op: 'test', path: '', value: deployment() },
    ]), doc);
  });

  test('~0 and ~1 escapes, applied in the right order', () => {
    const out = applyJsonPatch({ 'a/b': 1, 'm~n': 2, '~1': 3 }, [
      { op: 'replace', path: '/a~1b', value: 10 },
      { op: 'replace', path: '/m~0n', value: 20 },
      { op: 'replace', path: '/~01', value: 30 },
    ]);
    assert.deepEqual(out, { 'a/b': 10, 'm~n': 20, '~1': 30 });
  });

  test('an empty patch returns an equal copy', () => {
    const doc = deployment();
    const out = applyJsonPatch(doc, []);
    assert.deepEqual(out, doc);
    assert.notEqual(out, doc);
  });
});

describe('applyJsonPatch: safety', () => {
  test('never mutates the document or the patch, and the result shares nothing with them', () => {
    const doc = deployment();
    const patch = [
      { op: 'add', path: '/metadata/labels/x', value: { deep: [1] } },
      { op: 'remove', path: '/spec/template/spec/containers/0/ports' },
      { op: 'move', from: '/metadata/annotations', path: '/spec/moved' },
    ];
    const docBefore = structuredClone(doc), patchBefore = structuredClone(patch);
    const out = applyJsonPatch(doc, patch) as { metadata: { labels: { x: { deep: number[] } } } };
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
    out.metadata.labels.x.deep.push(2);
    assert.deepEqual(patch[0].value, { deep: [1] });
  });

  test('a failing patch leaves the document untouched', () => {
    const doc = deployment();
    const before = structuredClone(doc);
    assert.throws(() => applyJsonPatch(doc, [
      { op: 'replace', path: '/spec/replicas', value: 9 },
      { op: 'test', path: '/spec/replicas', value: 2 },
    ]));
    assert.deepEqual(doc, before);
  });

  test('__proto__ is an ordinary key and never reaches a prototype', () => {
    const out = applyJsonPatch({}, [
      { op: 'add', path: '/__proto__', value: { polluted: true } },
      { op: 'add', path: '/__proto__/more', value: 1 },
    ]) as Record<string, unknown>;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(JSON.stringify(out), '{"__proto__":{"polluted":true,"more":1}}');
    // reading an absent __proto__ member is "missing", not Object.prototype
    fails({}, [{ op: 'replace', path: '/__proto__', value: 1 }], 'Invalid', /missing key: \/__proto__/);
    fails({}, [{ op: 'add', path: '/__proto__/x', value: 1 }], 'Invalid', /missing path/);
  });
});

describe('applyJsonPatch: errors', () => {
  test('a patch that is not an array of operation objects is a bad request', () => {
    for (const bad of [{ op: 'add' }, 'x', null, [1], [[]]]) {
      fails({}, bad, 'BadRequest', /array of operation objects/);
    }
  });

  test('more operations than the reference allows is too large', () => {
    const ops = Array.from({ length: maxJsonPatchOperations + 1 }, () => ({ op: 'test', path: '/a', value: 1 }));
    assert.throws(() => applyJsonPatch({ a: 1 }, ops), (e: unknown) =>
      e instanceof PatchError && e.reason === 'RequestEntityTooLarge' && e.code === 413
      && e.message === 'The allowed maximum operations in a JSON patch is 10000, got 10001');
    assert.deepEqual(applyJsonPatch({ a: 1 }, ops.slice(1)), { a: 1 });
  });

  test('operations that cannot apply are Invalid (422) with the reference messages', () => {
    const doc = deployment();
    fails(doc, [{ op: 'add', path: '/spec/missing/x', value: 1 }], 'Invalid',
      /^add operation does not apply: doc is missing path: "\/spec\/missing\/x": missing value$/);
    fails(doc, [{ op: 'remove', path: '/spec/nothing' }], 'Invalid',
      /^error in remove for path: '\/spec\/nothing': Unable to remove nonexistent key: nothing: missing value$/);
    fails(doc, [{ op: 'replace', path: '/spec/selector', value: {} }], 'Invalid',
      /^replace operation does not apply: doc is missing key: \/spec\/selector: missing value$/);
    fails(doc, [{ op: 'replace', path: '/spec/template/spec/containers/3/image', value: 'x' }], 'Invalid',
      /^replace operation does not apply: doc is missing path: \/spec\/template\/spec\/containers\/3\/image: missing value$/);
    fails(doc, [{ op: 'replace', path: '/spec/template/spec/containers/1', value: {} }], 'Invalid', /doc is missing key/);
    fails(doc, [{ op: 'test', path: '/spec/replicas', value: 3 }], 'Invalid', /^testing value \/spec\/replicas failed: test failed$/);
    fails(doc, [{ op: 'test', path: '/spec/replicas', value: '2' }], 'Invalid', /test failed/);
    fails(doc, [{ op: 'test', path: '/nope/deeper', value: 1 }], 'Invalid', /^test operation does not apply: is missing path/);
    fails(doc, [{ op: 'move', from: '/nope/x', path: '/a' }], 'Invalid', /^move operation does not apply: doc is missing from path: \/nope\/x/);
    fails(doc, [{ op: 'copy', from: '/spec/nope', path: '/a' }], 'Invalid', /^error in copy for from: '\/spec\/nope'/);
    fails(doc, [{ op: 'copy', from: '/spec', path: '/x/y' }], 'Invalid', /^copy operation does not apply: doc is missing destination path: \/x\/y/);
    fails(doc, [{ op: 'add', path: '/spec/template/spec/containers/5', value: {} }], 'Invalid',
      /Unable to access invalid index: 5: invalid index referenced/);
    fails(doc, [{ op: 'add', path: '/spec/template/spec/containers/x', value: {} }], 'Invalid', /not a proper array index: 'x'/);
    fails(doc, [{ op: 'remove', path: '/spec/template/spec/containers/1' }], 'Invalid', /invalid index/);
    fails(doc, [{ op: 'add', path: '', value: {} }], 'Invalid', /doc is missing path: ""/);
    fails(doc, [{ op: 'add', path: 'spec' , value: 1 }], 'Invalid', /doc is missing path/);
    fails(doc, [{ op: 'replace', path: '', value: 3 }], 'Invalid', /must be object or array/);
  });

  test('malformed operations are Invalid like the reference', () => {
    fails({}, [{ op: 'frobnicate', path: '/a' }], 'Invalid', /^Unexpected kind: frobnicate$/);
    fails({}, [{ path: '/a' }], 'Invalid', /^Unexpected kind: unknown$/);
    fails({}, [{ op: 5, path: '/a' }], 'Invalid', /^Unexpected kind: unknown$/);
    // a null operation decodes and is an operation of no kind; one of another type does not decode
    fails({}, [null], 'Invalid', /^Unexpected kind: unknown$/);
    fails({}, [{ op: 'add', path: '/a', value: 1 }, null], 'Invalid', /^Unexpected kind: unknown$/);
    fails({}, [null, 1], 'BadRequest', /JSON array of operation objects/);
    fails({}, [{ op: 'add', value: 1 }], 'Invalid', /add operation failed to decode path/);
    fails({ a: 1 }, [{ op: 'move', path: '/b' }], 'Invalid', /move operation failed to decode from/);
    fails({}, [{ op: 'add', path: '/a' }], 'Invalid', /missing value/);
  });

  test('errors carry the status code and are reported as causes', () => {
    try {
      applyJsonPatch({}, [{ op: 'remove', path: '/a' }]);
      assert.fail('expected an error');
    } catch (e) {
      assert.ok(e instanceof PatchError);
      assert.equal(e.code, 422);
      assert.equal(e.asCause, true);
    }
  });
});

describe('applyJsonPatch: RFC 6902 appendix A', () => {
  const cases: [string, unknown, unknown[], unknown][] = [
    ['A.1 add object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
    ['A.2 add array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
    ['A.3 remove object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
    ['A.4 remove array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
    ['A.5 replace value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
    ['A.6 move value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
    ['A.7 move array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
      { foo: ['all', 'cows', 'eat', 'grass'] }],
    ['A.10 add nested member', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }],
      { foo: 'bar', child: { grandchild: {} } }],
    ['A.11 ignore unrecognised members', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
    ['A.14 escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
    ['A.16 add array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ];
  for (const [name, doc, patch, expected] of cases) {
    test(name, () => assert.deepEqual(applyJsonPatch(doc, patch), expected));
  }

  test('A.9 and A.15: failing tests', () => {
    fails({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 'Invalid', /test failed/);
    fails({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }], 'Invalid', /test failed/);
  });

  test('A.12 adding to a nonexistent target', () => {
    fails({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }], 'Invalid', /doc is missing path/);
  });
});

test('copies that double the document each time stop at the accumulated copy limit (413)', () => {
  const doubling = [{ op: 'add', path: '/d', value: { a: 'x'.repeat(1000) } },
    ...Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/d', path: `/d/c${i}` }))];
  assert.throws(() => applyJsonPatch({}, doubling), (e: unknown) => e instanceof PatchError && e.code === 413 && /exceeding the limit/.test(e.message));
  // a few copies of a small value are fine
  assert.deepEqual(applyJsonPatch({ a: [1] }, [{ op: 'copy', from: '/a', path: '/b' }, { op: 'copy', from: '/a', path: '/c' }]), { a: [1], b: [1], c: [1] });
});

test('a move re-links the value instead of copying it, so moves back and forth over a large value cost nothing per move', () => {
  const large = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 'v']));
  const doc = { data: large };
  const moves = Array.from({ length: 200 }, (_, i) => (i % 2 ? { op: 'move', from: '/foo', path: '/data' } : { op: 'move', from: '/data', path: '/foo' }));
  const out = applyJsonPatch(doc, moves, { inPlace: true }) as { data: unknown };
  assert.equal(out.data, large, 'the same object, never copied');
  // a move into its own child finds its destination gone: refused, as the reference refuses it
  assert.throws(() => applyJsonPatch({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/c' }]), (e: unknown) => e instanceof PatchError && e.code === 422);
});
