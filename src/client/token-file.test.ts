// A token file read again after its minute, or at once after a 401; the last token kept while the file is unreadable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokenFileCredentials, tokenFileRereadMs } from './token-file.js';

test('a token file is read again once its token is a minute old or was refused; unreadable, the last token is kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
  try {
    const path = join(dir, 'token');
    let clock = 1_000_000;
    writeFileSync(path, ' first\n');
    const source = tokenFileCredentials(path, 'initial', () => clock);
    assert.equal((await source.get()).token, 'initial');
    writeFileSync(path, 'second\n');
    clock += tokenFileRereadMs - 1;
    assert.equal((await source.get()).token, 'initial');
    clock += 1;
    const second = await source.get();
    assert.equal(second.token, 'second');
    writeFileSync(path, 'third');
    assert.equal((await source.get()).token, 'second');
    source.invalidate(second);
    assert.equal((await source.get()).token, 'third');
    rmSync(path);
    clock += tokenFileRereadMs;
    assert.equal((await source.get()).token, 'third');
    // with no token ever read, the failure is the caller's
    await assert.rejects(tokenFileCredentials(path).get(), /reading token file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
