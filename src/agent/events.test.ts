// The process's event sink: one bounded queue for all its nodes, the oldest dropped when the server falls behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '../client/rest-client.js';
import { eventRecorder, eventSink } from './events.js';
import { until } from '../../test/support/wait.js';

test('the events of all nodes share one queue of 1000: under a server that does not answer, the oldest go', async () => {
  const created: string[] = [];
  const answers: (() => void)[] = [];
  const client = { resource: () => ({ create: (e: { message: string }) => new Promise<void>((resolve) => answers.push(() => { created.push(e.message); resolve(); })) }) } as unknown as Client;
  const sink = eventSink(client, 0, 0, () => {});
  const nodes = [eventRecorder(sink, 'a'), eventRecorder(sink, 'b')];
  for (let i = 0; i < 3000; i++) nodes[i % 2]!.event({ metadata: { name: 'p', namespace: 'default' } }, 'Normal', 'Started', `e${i}`);
  await until(() => answers.length === 8, 'the first events on the wire');
  // 8 on the wire, then the newest 1000 of the others
  let flushed = false;
  void sink.flushed().then(() => { flushed = true; });
  while (answers.length) {
    answers.shift()!();
    await new Promise((r) => setImmediate(r));
  }
  await until(() => flushed, 'the queue flushed');
  assert.equal(created.length, 1008);
  assert.deepEqual(created.slice(0, 8), ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
  assert.deepEqual(created.slice(8, 10), ['e2000', 'e2001']);
  assert.equal(created.at(-1), 'e2999');
});
