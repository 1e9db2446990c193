import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batches, batchBytes } from './respond.js';

const collect = async (parts: Buffer[]) => { const out: Buffer[] = []; for await (const b of batches(parts)) out.push(b); return out; };

test('a response is written in batches of at most 64 KiB, a large piece cut across them without a copy', async () => {
  const big = Buffer.alloc(900_000, 'b');
  const parts = [Buffer.from('{"items":['), Buffer.alloc(1000, 's'), big, Buffer.from(','), Buffer.alloc(70_000, 't'), Buffer.from(']}')];
  const out = await collect(parts);
  assert.ok(out.every((b) => b.length <= batchBytes), `batches of ${Math.max(...out.map((b) => b.length))} bytes`);
  assert.ok(out.slice(0, -1).every((b) => b.length === batchBytes));
  assert.deepEqual(Buffer.concat(out), Buffer.concat(parts));
  // the batches wholly inside the large piece are views of its bytes, shared by every response sending it
  const views = out.filter((b) => b.buffer === big.buffer);
  assert.ok(views.length >= 12, `${views.length} batches share the large piece's memory`);
});

test('small pieces are joined, and an exact fit makes no empty batch', async () => {
  assert.deepEqual((await collect([Buffer.alloc(10), Buffer.alloc(20)])).map((b) => b.length), [30]);
  assert.deepEqual((await collect([Buffer.alloc(batchBytes), Buffer.alloc(batchBytes)])).map((b) => b.length), [batchBytes, batchBytes]);
  assert.deepEqual(await collect([]), []);
});
