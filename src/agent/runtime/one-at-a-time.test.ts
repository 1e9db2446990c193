import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oneAtATime } from './one-at-a-time.js';

test('stats calls never overlap at the runtime; concurrent callers of one kind share one call', async () => {
  const serial = oneAtATime();
  let running = 0;
  let most = 0;
  const calls: string[] = [];
  const call = (name: string, fail = false) => async () => {
    calls.push(name);
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, 5));
    running--;
    if (fail) throw new Error(`${name} failed`);
    return name;
  };
  const answers = await Promise.all([
    serial('sandboxes', call('sandboxes')), serial('containers', call('containers')), serial('sandboxes', call('sandboxes')),
    serial('containers', call('containers')), serial('sandboxes', call('sandboxes')),
  ]);
  assert.deepEqual(answers, ['sandboxes', 'containers', 'sandboxes', 'containers', 'sandboxes']);
  assert.equal(most, 1);
  assert.deepEqual(calls, ['sandboxes', 'containers']);
  // a failure reaches its callers and does not stop the next call
  await assert.rejects(serial('sandboxes', call('sandboxes', true)), /sandboxes failed/);
  assert.equal(await serial('sandboxes', call('sandboxes')), 'sandboxes');
});
