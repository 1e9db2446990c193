// The agent's log against a reader that falls behind: lines beyond what may wait unread are dropped and counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from './logger.js';

test('a log whose reader falls behind drops lines instead of holding them, and says how many once it is read again', () => {
  const written: string[] = [];
  const sink = { writableLength: 0, write(s: string) { written.push(s); } };
  const log = createLogger({ format: 'text', splitStream: false, infoBufferBytes: 0, flushMs: 1000 }, sink, sink);
  log.warn('first');
  sink.writableLength = 64 * 2 ** 20;
  for (let i = 0; i < 5; i++) log.warn(`lost ${i}`);
  sink.writableLength = 0;
  log.error('after');
  assert.equal(written.length, 3);
  assert.match(written[0]!, /^W \S+ first\n$/);
  assert.match(written[1]!, /^W \S+ 5 log line\(s\) dropped/);
  assert.match(written[2]!, /^E \S+ after\n$/);
  log.close();
});
