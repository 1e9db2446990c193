// Stored objects read through a definition that brings them up to date (a CRD whose schema changed since they were
// written): each is brought up to date once per definition, not on every read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../api/meta.js';
import type { StoredObject } from '../api/cache.js';
import { readItem, type Scope } from './scope.js';

const scopeWith = (fromStorage: (obj: ApiObject, rev: number) => ApiObject | undefined) => ({ info: { def: { fromStorage } } }) as unknown as Scope;

test('a stored object is brought up to date once per definition, and the same item serves every read', () => {
  let calls = 0;
  const defaulting = scopeWith((obj, rev) => { calls++; return rev <= 5 ? { ...obj, spec: { added: true } } : undefined; });
  const old: StoredObject = { key: 'a', rev: 3, obj: { metadata: { name: 'a' } } };
  const recent: StoredObject = { key: 'b', rev: 9, obj: { metadata: { name: 'b' } } };
  const first = readItem(defaulting, old);
  assert.deepEqual(first.obj.spec, { added: true });
  assert.equal(readItem(defaulting, old), first);
  assert.equal(readItem(defaulting, recent), recent);
  assert.equal(readItem(defaulting, recent), recent);
  assert.equal(calls, 2);
  // a new definition (the CRD changed again) reads afresh
  const next = scopeWith(() => { calls++; return undefined; });
  assert.equal(readItem(next, old), old);
  assert.equal(calls, 3);
});
