import { objectStoreContract } from './testing/object-store-contract.js';
import { backendNames, openBackend } from './testing/backends.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObjectStore, decodeObject, encodeObject, keptForm, servedJson, storedObject, writtenJson, decodedAgain } from './objects.js';
import type { ApiObject } from '../api/meta.js';
import type { StoredObject } from '../api/cache.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

for (const name of backendNames) {
  objectStoreContract(`object store on ${name}`, async () => {
    const { kv, close } = await openBackend(name);
    return { store: createObjectStore(kv), kv, close };
  });
}

test('the JSON of a stored object is made from its bytes as decoding and encoding it again would make it', () => {
  const objects = [
    { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default', labels: { x: 'é"\\' } }, data: { k: 'v\u2028' } },
    { kind: 'Thing', apiVersion: 'example.com/v1', metadata: {}, spec: { n: 1.5, list: [null, true] } },
  ] as unknown as ApiObject[];
  for (const obj of objects) {
    const bytes = servedJson(encodeObject(obj), 42)!;
    assert.ok(bytes, JSON.stringify(obj));
    assert.deepEqual(JSON.parse(bytes.toString()), decodeObject(encodeObject(obj), 42));
  }
  // not written as encodeObject writes: left to decoding
  assert.equal(servedJson(Buffer.from('{"data":{"metadata":{}},"metadata":{"name":"a"},"kind":"ConfigMap"}'), 1), undefined);
  assert.equal(servedJson(Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","resourceVersion":"7"}}'), 1), undefined);
});

test('a kept object holds its served JSON in a buffer of its own, and decodes from it', () => {
  const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } } as unknown as ApiObject;
  // small enough for Node's shared pool: the stored text is a slice of a larger slab
  const text = encodeObject(structuredClone(obj));
  assert.ok(text.buffer.byteLength > text.byteLength);
  const item = keptForm(storedObject('/registry/core/configmaps/default/a', text, 7));
  assert.equal(item.bytes!.buffer.byteLength, item.bytes!.length, 'not a slice of a shared slab');
  assert.deepEqual(item.obj, decodeObject(text, 7));
  assert.equal(item.obj.metadata.resourceVersion, '7');
  const held = item.obj;
  assert.equal(item.obj, held, 'one decoded object while it is in use');
});

test('a stored object keeps what its reader changed; one a cache keeps is decoded afresh once no one uses it', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const settle = async () => { await new Promise(r => setTimeout(r, 0)); gc(); };
  const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { n: '0' } } as unknown as ApiObject;
  const data = (o: ApiObject) => (o as unknown as { data: { n: string } }).data;

  // an update's reader changes a part and reads the object again to write it: the change is there
  const read = storedObject('/registry/core/configmaps/default/a', encodeObject(structuredClone(obj)), 3);
  let part: { n: string } | undefined = data(read.obj);
  part.n = '1';
  part = undefined;
  await settle();
  assert.equal(data(read.obj).n, '1');

  // a cache's copy: its decoded form goes when unused, and the next reader decodes the stored JSON again
  const kept = keptForm(storedObject('/registry/core/configmaps/default/a', encodeObject(structuredClone(obj)), 3));
  data(kept.obj).n = 'changed by a reader that should not have';
  await settle();
  assert.equal(data(kept.obj).n, '0');
});

test('a written object\'s JSON is made from the text stored, while the object carries that write\'s resourceVersion', async () => {
  const { kv, close } = await openBackend('memory');
  try {
    const store = createObjectStore(kv);
    const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } } as unknown as ApiObject;
    assert.equal(writtenJson(obj), undefined);
    await store.create('/registry/configmaps/default/a', obj);
    assert.deepEqual(JSON.parse(writtenJson(obj)!.toString()), obj);
    const next = { ...obj, metadata: { ...obj.metadata }, data: { k: 'w' } } as unknown as ApiObject;
    const out = await store.update('/registry/configmaps/default/a', () => ({ put: next }));
    assert.equal(out!.obj, next);
    assert.deepEqual(JSON.parse(writtenJson(next)!.toString()), next);
    assert.equal(JSON.parse(writtenJson(next)!.toString()).metadata.resourceVersion, out!.obj.metadata.resourceVersion);
    // another resourceVersion: not the written object any more
    next.metadata.resourceVersion = '1';
    assert.equal(writtenJson(next), undefined);
  } finally {
    await close();
  }
});

test('a stored object decoded again is equal to the one read and shares nothing with it; a replaced one is not decoded', () => {
  const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { k: 'v' } } as unknown as ApiObject;
  const item = storedObject('/registry/configmaps/default/a', encodeObject(obj), 5);
  const again = decodedAgain(item)!;
  assert.deepEqual(again, item.obj);
  assert.notEqual(again, item.obj);
  (again as unknown as { data: Record<string, string> }).data.k = 'changed';
  assert.equal((item.obj as unknown as { data: Record<string, string> }).data.k, 'v');
  item.obj = obj;
  assert.equal(decodedAgain(item), undefined);
  assert.equal(decodedAgain({ key: 'k', obj, rev: 1 }), undefined);
});

for (const name of ['memory', 'sqlite'] as const) {
  test(`200 concurrent updates of one key on ${name} all land, each deciding once on the latest state`, async () => {
    const { kv, close } = await openBackend(name);
    try {
      const store = createObjectStore(kv);
      const key = '/registry/core/configmaps/default/counter';
      await store.create(key, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counter', annotations: { n: '0' } } } as unknown as ApiObject);
      let decisions = 0;
      const written = await Promise.all(Array.from({ length: 200 }, () => store.update(key, async cur => {
        decisions++;
        // a decision takes turns of the event loop, as admission and the field manager do
        await new Promise(resolve => setImmediate(resolve));
        const obj = structuredClone(cur!.obj);
        obj.metadata.annotations!.n = String(Number(obj.metadata.annotations!.n) + 1);
        return { put: obj };
      })));
      assert.equal((await store.get(key))!.obj.metadata.annotations!.n, '200');
      assert.equal(new Set(written.map(w => w!.rev)).size, 200, 'each update its own revision');
      assert.equal(decisions, 200, 'no update decided again after losing a race to another of this store');
    } finally {
      await close();
    }
  });
}

test('an update whose decision waits on another update of the same key is not held up by its own turn', async () => {
  const { kv, close } = await openBackend('memory');
  try {
    const store = createObjectStore(kv);
    const key = '/registry/core/configmaps/default/hooked';
    await store.create(key, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hooked', annotations: {} } } as unknown as ApiObject);
    const annotate = (cur: StoredObject | undefined, name: string) => {
      const obj = structuredClone(cur!.obj);
      obj.metadata.annotations![name] = 'yes';
      return { put: obj };
    };
    let attempts = 0;
    // as an admission webhook that patches the object it is admitting: the first decision waits for that write
    await store.update(key, async cur => {
      if (++attempts === 1) await store.update(key, inner => annotate(inner, 'webhook'));
      return annotate(cur, 'outer');
    });
    assert.deepEqual((await store.get(key))!.obj.metadata.annotations, { webhook: 'yes', outer: 'yes' });
    assert.equal(attempts, 2, 'the outer update lost its first attempt to the write it waited on, and decided again');
  } finally {
    await close();
  }
});
