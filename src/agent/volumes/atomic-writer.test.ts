import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkItemPath, writeAtomically, type FileSet } from './atomic-writer.js';

const set = (entries: [string, string, number?][]): FileSet => new Map(entries.map(([p, d, m]) => [p, { data: Buffer.from(d), mode: m ?? 0o644 }]));

test('files appear through ..data; an update swaps the version at once and removes the old one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-'));
  try {
    assert.equal(await writeAtomically(dir, set([['a', 'one'], ['sub/b', 'two', 0o600]])), true);
    assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'one');
    assert.equal(readFileSync(join(dir, 'sub/b'), 'utf8'), 'two');
    assert.equal(statSync(join(dir, 'sub/b')).mode & 0o777, 0o600);
    assert.ok(lstatSync(join(dir, 'a')).isSymbolicLink());
    assert.equal(readlinkSync(join(dir, 'a')), '..data/a');
    const first = readlinkSync(join(dir, '..data'));
    assert.equal(await writeAtomically(dir, set([['a', 'one'], ['sub/b', 'two', 0o600]])), false, 'unchanged: nothing written');
    assert.equal(await writeAtomically(dir, set([['a', 'uno']])), true);
    assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'uno');
    assert.notEqual(readlinkSync(join(dir, '..data')), first);
    assert.deepEqual(readdirSync(dir).filter((e) => !e.startsWith('..')), ['a'], 'the removed key\'s link goes');
    assert.equal(readdirSync(dir).filter((e) => e.startsWith('..') && e !== '..data').length, 1, 'the old version is gone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('item paths stay inside the volume', () => {
  assert.equal(checkItemPath('a/b'), undefined);
  assert.match(checkItemPath('../x')!, /\.\./);
  assert.match(checkItemPath('a/../../x')!, /\.\./);
  assert.match(checkItemPath('/etc/x')!, /relative/);
  assert.match(checkItemPath('..data')!, /start with/);
});
