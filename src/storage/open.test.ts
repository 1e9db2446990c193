import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage } from './open.js';

const dir = mkdtempSync(join(tmpdir(), 'open-storage-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('memory storage works', async () => {
  const kv = await openStorage({ backend: 'memory' });
  assert.equal(kv.name, 'memory');
  await kv.create('/a', new Uint8Array([1]));
  assert.equal(await kv.count('/'), 1);
  await kv.close();
});

test('sqlite storage creates its data directory and keeps store.db in it', async () => {
  const dataDir = join(dir, 'data');
  const kv = await openStorage({ backend: 'sqlite', dataDir });
  try {
    assert.equal(kv.name, 'sqlite');
    await kv.create('/a', new Uint8Array([1]));
    assert.ok(existsSync(join(dataDir, 'store.db')));
  } finally {
    await kv.close();
  }
  const again = await openStorage({ backend: 'sqlite', dataDir });
  assert.equal(await again.count('/'), 1, 'the same directory opens the same store');
  await again.close();
});

test('sqlite storage refuses a data directory whose parent is missing, naming it', async () => {
  const dataDir = join(dir, 'missing-parent', 'data');
  await assert.rejects(openStorage({ backend: 'sqlite', dataDir }), new RegExp(`parent ${join(dir, 'missing-parent')} does not exist`));
  assert.equal(existsSync(join(dir, 'missing-parent')), false);
});

test('sqlite storage refuses a data directory that is a file', async () => {
  const dataDir = join(dir, 'a-file');
  writeFileSync(dataDir, 'x');
  await assert.rejects(openStorage({ backend: 'sqlite', dataDir }), /exists but is not a directory/);
});

test('missing settings are named', async () => {
  await assert.rejects(openStorage({ backend: 'sqlite' }), /needs a data directory/);
  await assert.rejects(openStorage({ backend: 'etcd' }), /needs at least one etcd server/);
});
