import { objectStoreContract } from './testing/object-store-contract.js';
import { backendNames, openBackend } from './testing/backends.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createObjectStore, decodeObject, encodeObject, keptForm, servedJson, storedObject } from './objects.js';
import type { ApiObject } from '../api/meta.js';

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
