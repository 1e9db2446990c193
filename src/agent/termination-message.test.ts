// Termination messages: the container's own file first; the end of its log only for FallbackToLogsOnError and a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminationMessage, terminationMessageMount } from './termination-message.js';

test('each container instance gets an empty file writable by all, mounted at its terminationMessagePath', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'termination-'));
  try {
    const m = await terminationMessageMount(dir, { name: 'c' }, 2);
    assert.deepEqual(m, { containerPath: '/dev/termination-log', hostPath: join(dir, 'containers', 'c', '2'), readOnly: false, propagation: 'private' });
    assert.equal(statSync(m!.hostPath).mode & 0o777, 0o666);
    assert.equal(readFileSync(m!.hostPath, 'utf8'), '');
    assert.equal((await terminationMessageMount(dir, { name: 'c', terminationMessagePath: '/tmp/msg' }, 3))!.containerPath, '/tmp/msg');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the message is what the container wrote (its last 4096 bytes), else its log\'s end when it failed under FallbackToLogsOnError', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'termination-'));
  try {
    const file = join(dir, 'message');
    const log = join(dir, '0.log');
    writeFileSync(log, Array.from({ length: 100 }, (_, i) => `2026-01-01T00:00:00.000000000Z stdout F line ${i}\n`).join('') + '2026-01-01T00:00:00.000000000Z stderr P part\n2026-01-01T00:00:00.000000000Z stderr F ial\n');
    writeFileSync(file, 'x'.repeat(5000) + 'bye');
    assert.equal(await terminationMessage(file, log, { name: 'c', terminationMessagePolicy: 'FallbackToLogsOnError' }, 1), ('x'.repeat(5000) + 'bye').slice(-4096));
    writeFileSync(file, '');
    assert.equal(await terminationMessage(file, log, { name: 'c' }, 1), '');
    assert.equal(await terminationMessage(file, log, { name: 'c', terminationMessagePolicy: 'FallbackToLogsOnError' }, 0), '');
    const fallback = await terminationMessage(file, log, { name: 'c', terminationMessagePolicy: 'FallbackToLogsOnError' }, 1);
    const lines = fallback.split('\n').filter(Boolean);
    assert.equal(lines.length, 80);
    assert.equal(lines[0], 'line 21');
    assert.equal(lines.at(-1), 'partial');
    assert.equal(await terminationMessage(join(dir, 'missing'), undefined, { name: 'c' }, 1), '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
