import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHostPath } from './host-path.js';

test('hostPath types: made when asked to, checked otherwise, in the reference words', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'host-path-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'file');
  writeFileSync(file, 'kept');

  await checkHostPath({ path: join(dir, 'a/b'), type: 'DirectoryOrCreate' });
  assert.ok(statSync(join(dir, 'a/b')).isDirectory());
  await checkHostPath({ path: join(dir, 'new'), type: 'FileOrCreate' });
  assert.ok(statSync(join(dir, 'new')).isFile());
  await checkHostPath({ path: file, type: 'FileOrCreate' });
  assert.equal(readFileSync(file, 'utf8'), 'kept', 'an existing file is left as it is');
  await checkHostPath({ path: join(dir, 'anything'), type: '' });
  await checkHostPath({ path: '/dev/null', type: 'CharDevice' });

  await assert.rejects(checkHostPath({ path: join(dir, 'missing'), type: 'Directory' }), { message: `hostPath ${join(dir, 'missing')} doesn't exist` });
  await assert.rejects(checkHostPath({ path: file, type: 'Directory' }), { message: `hostPath type check failed: ${file} is not a directory, it's a File` });
  await assert.rejects(checkHostPath({ path: file, type: 'DirectoryOrCreate' }), { message: `hostPath type check failed: ${file} is not a directory, it's a File` });
  await assert.rejects(checkHostPath({ path: dir, type: 'FileOrCreate' }), { message: `hostPath type check failed: ${dir} is not a file, it's a Directory` });
  await assert.rejects(checkHostPath({ path: dir, type: 'Socket' }), { message: `hostPath type check failed: ${dir} is not a socket file, it's a Directory` });
  await assert.rejects(checkHostPath({ path: '/dev/null', type: 'BlockDevice' }), { message: 'hostPath type check failed: /dev/null is not a block device, it\'s a CharDevice' });
  await assert.rejects(checkHostPath({ path: dir, type: 'Folder' as never }), { message: 'Folder is an invalid volume type' });
});
