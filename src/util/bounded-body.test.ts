import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { boundedChunks, settledWithin } from './bounded-body.js';

test('an answer within the bound is collected whole; one past it fails its stream and is dropped', async () => {
  const small = new PassThrough();
  const kept = boundedChunks(small, 10);
  small.end(Buffer.from('0123456789'));
  await once(small, 'end');
  assert.equal(Buffer.concat(kept).toString(), '0123456789');

  const large = new PassThrough();
  const dropped = boundedChunks(large, 10);
  const failed = once(large, 'error');
  large.write(Buffer.from('01234'));
  large.write(Buffer.from('56789a'));
  const [e] = await failed;
  assert.match((e as Error).message, /larger than 10 bytes/);
  assert.equal(dropped.length, 0);
});

test('a call settles once: by its answer, or by the deadline, which cuts it and outlasts a late answer', async () => {
  const answered = settledWithin<number>(60_000, 'late', () => assert.fail('an answered call is not cut'));
  answered.resolve(1);
  answered.reject(new Error('after'));
  assert.equal(await answered.promise, 1);
  const cut: Error[] = [];
  const silent = settledWithin<number>(10, 'no answer in time', e => cut.push(e));
  await assert.rejects(silent.promise, /^Error: no answer in time$/);
  silent.resolve(2);
  assert.deepEqual(cut.map(e => e.message), ['no answer in time']);
});
