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

test('a repeated event raises the count of the one made (as `kubectl describe` shows "x3"), a different one is made anew', async () => {
  const calls: { op: string; name: string; body: any }[] = [];
  let hold: (() => void) | undefined;
  const client = {
    resource: () => ({
      create: async (e: any) => {
        if (e.message === 'slow') await new Promise<void>((r) => { hold = r; });
        calls.push({ op: 'create', name: e.metadata.name, body: e });
      },
      patch: async (name: string, body: any) => { calls.push({ op: 'patch', name, body }); },
    }),
  } as unknown as Client;
  const node = eventRecorder(eventSink(client, 0, 0, () => {}), 'n1');
  const pod = { metadata: { name: 'p', namespace: 'default', uid: 'u1' } };
  node.event(pod, 'Warning', 'Unhealthy', 'Liveness probe failed: ', 'spec.containers{c}');
  await node.flushed();
  node.event(pod, 'Warning', 'Unhealthy', 'Liveness probe failed: ', 'spec.containers{c}');
  await node.flushed();
  node.event(pod, 'Warning', 'Unhealthy', 'Liveness probe failed: ', 'spec.containers{c}');
  node.event(pod, 'Normal', 'Killing', 'Container c failed liveness probe, will be restarted', 'spec.containers{c}');
  await node.flushed();
  assert.deepEqual(calls.map((c) => [c.op, c.body.count]), [['create', 1], ['patch', 2], ['patch', 3], ['create', 1]]);
  assert.equal(calls[1]!.name, calls[0]!.name);
  assert.ok(calls[1]!.body.lastTimestamp);
  // repeats while the first is still on its way are counted in the next write, never created twice
  calls.length = 0;
  node.event(pod, 'Warning', 'Failed', 'slow');
  await until(() => hold !== undefined, 'the create on the wire');
  node.event(pod, 'Warning', 'Failed', 'slow');
  node.event(pod, 'Warning', 'Failed', 'slow');
  hold!();
  await node.flushed();
  assert.deepEqual(calls.map((c) => [c.op, c.body.count]), [['create', 1], ['patch', 3]]);
});

test('an event names the version of the pod it was about, and a repeat about a newer version counts on the same event', async () => {
  const calls: { op: string; body: any }[] = [];
  const client = {
    resource: () => ({
      create: async (e: any) => { calls.push({ op: 'create', body: e }); },
      patch: async (_name: string, body: any) => { calls.push({ op: 'patch', body }); },
    }),
  } as unknown as Client;
  const node = eventRecorder(eventSink(client, 0, 0, () => {}), 'n1');
  node.event({ metadata: { name: 'p', namespace: 'default', uid: 'u1', resourceVersion: '12' } }, 'Normal', 'Pulled', 'pulled', 'spec.containers{c}');
  await node.flushed();
  node.event({ metadata: { name: 'p', namespace: 'default', uid: 'u1', resourceVersion: '15' } }, 'Normal', 'Pulled', 'pulled', 'spec.containers{c}');
  await node.flushed();
  node.event({ kind: 'Node', metadata: { name: 'n1', uid: 'n1' } }, 'Normal', 'Starting', 'Starting kubelet.');
  await node.flushed();
  assert.deepEqual(calls.map((c) => [c.op, c.body.count]), [['create', 1], ['patch', 2], ['create', 1]]);
  assert.deepEqual(calls[0]!.body.involvedObject, { apiVersion: 'v1', kind: 'Pod', name: 'p', namespace: 'default', uid: 'u1', resourceVersion: '12', fieldPath: 'spec.containers{c}' });
  assert.deepEqual(calls[2]!.body.involvedObject, { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'n1' });
});
