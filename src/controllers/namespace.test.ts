// The namespace controller's last step: removing its finalizer through `finalize`, when the namespace changed meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../client/rest-client.js';
import { naming } from '../api/naming.js';
import { finalizeNamespace } from './namespace.js';
import type { Namespace } from './types.js';

const ns = (resourceVersion: string, finalizers: string[], uid = 'u1', metaFinalizers?: string[]): Namespace => ({
  metadata: { name: 'x', uid, resourceVersion, deletionTimestamp: '2026-01-01T00:00:00Z', ...(metaFinalizers ? { finalizers: metaFinalizers } : {}) },
  spec: { finalizers },
});
/** the namespace controller's own finalizer */
const vendor = naming().vendor;
const conflict = () => new ApiError(409, 'Conflict', 'the object has been modified; please apply your changes to the latest version and try again');

/** a server holding one namespace: finalize refuses a stale resourceVersion as the API server does */
function server(stored: Namespace) {
  const puts: Namespace[] = [];
  return {
    puts,
    access: {
      put: async (body: Namespace) => {
        puts.push(body);
        if (body.metadata.resourceVersion !== stored.metadata.resourceVersion) throw conflict();
        stored = { ...body, metadata: { ...body.metadata, resourceVersion: String(Number(stored.metadata.resourceVersion) + 1) } };
      },
      get: async () => stored,
    },
    stored: () => stored,
  };
}

test('a namespace changed since it was cached (the garbage collector removed foregroundDeletion) is read again and finalized', async () => {
  const s = server(ns('12', [vendor], 'u1', []));
  await finalizeNamespace(s.access, ns('10', [vendor], 'u1', ['foregroundDeletion']), vendor);
  assert.equal(s.puts.length, 2);
  assert.deepEqual(s.stored().spec?.finalizers, []);
  assert.deepEqual(s.stored().metadata.finalizers, [], 'the fresh namespace is the one finalized');
});

test('a namespace whose finalizer is already gone on a fresh read, or replaced by another uid, is not finalized again', async () => {
  const gone = server(ns('12', []));
  await finalizeNamespace(gone.access, ns('10', [vendor]), vendor);
  assert.equal(gone.puts.length, 1);
  const replaced = server(ns('12', [vendor], 'u2'));
  await assert.rejects(finalizeNamespace(replaced.access, ns('10', [vendor]), vendor), /uid changed/);
  assert.equal(replaced.puts.length, 1);
});

test('a namespace deleted meanwhile ends the step quietly; other errors are the caller\'s', async () => {
  await finalizeNamespace({ put: async () => { throw new ApiError(404, 'NotFound', 'gone'); }, get: async () => { throw new Error('not read'); } },
    ns('1', [vendor]), vendor);
  await finalizeNamespace({ put: async () => { throw conflict(); }, get: async () => { throw new ApiError(404, 'NotFound', 'gone'); } },
    ns('1', [vendor]), vendor);
  await assert.rejects(finalizeNamespace({ put: async () => { throw new ApiError(500, 'InternalError', 'boom'); }, get: async () => ns('1', []) },
    ns('1', [vendor]), vendor), /boom/);
});
