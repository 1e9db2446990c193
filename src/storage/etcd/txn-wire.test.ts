// The hand-written Txn encoding checked against etcd's own rpc.proto, compiled by @grpc/proto-loader.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { decodeTxnResponse, encodeCreate, encodeDelete, encodeUpdate } from './txn-wire.js';

const require = createRequire(import.meta.url);
const proto = join(dirname(require.resolve('etcd3/package.json')), 'proto', 'rpc.proto');
const txn = loadSync(proto, { keepCase: true, longs: String, enums: String, bytes: String, defaults: false, oneofs: true })['etcdserverpb.KV'] as
  Record<string, MethodDefinition<object, object>>;
const request = (buf: Buffer) => JSON.parse(JSON.stringify(txn.Txn.requestDeserialize(buf)));
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describe('Txn wire format', () => {
  const key = Buffer.from('/registry/pods/default/p');
  const value = Buffer.alloc(300, 'v');

  test('create compares the create revision with 0 and puts', () => {
    assert.deepEqual(request(encodeCreate(key, value)), {
      compare: [{ result: 'Equal', target: 'Create', key: b64(key), create_revision: '0', target_union: 'create_revision' }],
      success: [{ request_put: { key: b64(key), value: b64(value) }, request: 'request_put' }],
    });
  });

  test('update needs the key at the expected revision, puts with the previous pair, else reads', () => {
    assert.deepEqual(request(encodeUpdate(key, value, 2 ** 40 + 3)), {
      compare: [
        { result: 'Greater', target: 'Create', key: b64(key), create_revision: '0', target_union: 'create_revision' },
        { result: 'Equal', target: 'Mod', key: b64(key), mod_revision: String(2 ** 40 + 3), target_union: 'mod_revision' },
      ],
      success: [{ request_put: { key: b64(key), value: b64(value), prev_kv: true }, request: 'request_put' }],
      failure: [{ request_range: { key: b64(key) }, request: 'request_range' }],
    });
  });

  test('delete with and without an expected revision', () => {
    const exists = { result: 'Greater', target: 'Create', key: b64(key), create_revision: '0', target_union: 'create_revision' };
    const rest = {
      success: [{ request_delete_range: { key: b64(key), prev_kv: true }, request: 'request_delete_range' }],
      failure: [{ request_range: { key: b64(key) }, request: 'request_range' }],
    };
    assert.deepEqual(request(encodeDelete(key, undefined)), { compare: [exists], ...rest });
    assert.deepEqual(request(encodeDelete(key, 7)), {
      compare: [exists, { result: 'Equal', target: 'Mod', key: b64(key), mod_revision: '7', target_union: 'mod_revision' }],
      ...rest,
    });
  });

  test('replies decode to the revision, the outcome and the pairs of the one operation', () => {
    const header = { cluster_id: '14841639068965178418', member_id: '10276657743932975437', revision: '9007199254740991', raft_term: '2' };
    const pair = (k: string, v: string, c: number, m: number) =>
      ({ key: Buffer.from(k), value: Buffer.from(v), create_revision: String(c), mod_revision: String(m), version: '3', lease: '0' });
    const reply = (res: object) => decodeTxnResponse(txn.Txn.responseSerialize(res));
    const plain = (kvs: { key: Buffer; value: Buffer }[]) => kvs.map(kv => ({ ...kv, key: kv.key.toString(), value: kv.value.toString() }));

    const created = reply({ header, succeeded: true, responses: [{ response_put: { header } }] });
    assert.deepEqual({ ...created, kvs: plain(created.kvs) }, { revision: 2 ** 53 - 1, succeeded: true, kvs: [] });

    const updated = reply({ header, succeeded: true, responses: [{ response_put: { header, prev_kv: pair('/a', 'old', 4, 5) } }] });
    assert.deepEqual(plain(updated.kvs), [{ key: '/a', value: 'old', createRevision: 4, modRevision: 5 }]);

    const deleted = reply({ header, succeeded: true, responses: [{ response_delete_range: { header, deleted: '1', prev_kvs: [pair('/b', 'x', 6, 8)] } }] });
    assert.deepEqual(plain(deleted.kvs), [{ key: '/b', value: 'x', createRevision: 6, modRevision: 8 }]);

    const conflicted = reply({ header, succeeded: false, responses: [{ response_range: { header, kvs: [pair('/c', 'now', 1, 300)], count: '1' } }] });
    assert.equal(conflicted.succeeded, false);
    assert.deepEqual(plain(conflicted.kvs), [{ key: '/c', value: 'now', createRevision: 1, modRevision: 300 }]);

    const missing = reply({ header, succeeded: false, responses: [{ response_range: { header, count: '0' } }] });
    assert.deepEqual(missing.kvs, []);
  });

  test('a truncated reply is an error, not a wrong answer', () => {
    const whole = txn.Txn.responseSerialize({ header: { revision: '5' }, succeeded: true, responses: [{ response_put: {} }] });
    assert.throws(() => decodeTxnResponse(whole.subarray(0, whole.length - 1)), /truncated/);
  });
});
