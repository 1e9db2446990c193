// The status manager against a client that records its writes: statuses coalesced per pod, one write per pod on
// the wire at a time, refusals retried with the latest status after a pause.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { ApiError, type Client } from '../client/rest-client.js';
import { createStatusManager } from './status-manager.js';
import type { AgentPod, PodStatus } from './objects.js';
import { until } from '../../test/support/wait.js';

interface Call { name: string; phase?: string; answer(error?: Error): void }

/** a client whose status patches wait until the test answers them */
function recordingClient() {
  const calls: Call[] = [];
  const client = {
    resource: () => ({
      status: {
        patch: (name: string, body: { status: PodStatus }) => new Promise((resolve, reject) => {
          calls.push({ name, phase: body.status.phase, answer: (e) => (e ? reject(e) : resolve({})) });
        }),
      },
    }),
  } as unknown as Client;
  return { client, calls };
}

const pod = (name: string): AgentPod => ({ metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { containers: [] } });
const names = naming();

test('statuses of one pod set while its write is on the wire are coalesced: only the newest goes next', async () => {
  const { client, calls } = recordingClient();
  const m = createStatusManager(client, names, 'n', () => undefined, () => {});
  const p = pod('a');
  m.set(p, { phase: 'Pending' });
  await until(() => calls.length === 1, 'the first write');
  for (const phase of ['Running', 'Succeeded', 'Failed'] as const) m.set(p, { phase });
  // one write per pod at a time: nothing more goes while the first is unanswered
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.length, 1);
  calls[0].answer();
  await until(() => calls.length === 2, 'the coalesced write');
  assert.equal(calls[1].phase, 'Failed');
  calls[1].answer();
  await m.flushed();
  assert.equal(calls.length, 2);
  m.stop();
});

test('other pods are written while one pod waits on its write', async () => {
  const { client, calls } = recordingClient();
  const m = createStatusManager(client, names, 'n', () => undefined, () => {});
  m.set(pod('a'), { phase: 'Pending' });
  m.set(pod('a'), { phase: 'Running' });
  m.set(pod('b'), { phase: 'Running' });
  await until(() => calls.length === 2, 'a write of each pod');
  assert.deepEqual(calls.map((c) => c.name).sort(), ['a', 'b']);
  for (const c of calls) c.answer();
  await until(() => calls.length === 3, 'the newer status of a');
  assert.deepEqual([calls[2].name, calls[2].phase], ['a', 'Running']);
  calls[2].answer();
  await m.flushed();
  m.stop();
});

test('a refused write goes again after the pause for its attempt, with the newest status; a 4xx refusal does not', async () => {
  const { client, calls } = recordingClient();
  const attempts: number[] = [];
  const m = createStatusManager(client, names, 'n', () => undefined, () => {}, (attempt) => { attempts.push(attempt); return 0; });
  const p = pod('a');
  m.set(p, { phase: 'Pending' });
  await until(() => calls.length === 1, 'the first write');
  m.set(p, { phase: 'Running' });
  calls[0].answer(new ApiError(429, 'TooManyRequests', 'slow down'));
  await until(() => calls.length === 2, 'the retry');
  assert.equal(calls[1].phase, 'Running');
  calls[1].answer(new ApiError(503, 'ServiceUnavailable', 'away'));
  await until(() => calls.length === 3, 'the second retry');
  assert.deepEqual(attempts, [0, 1]);
  calls[2].answer();
  await m.flushed();

  m.set(pod('b'), { phase: 'Running' });
  await until(() => calls.length === 4, 'the write of b');
  calls[3].answer(new ApiError(422, 'Invalid', 'no'));
  await m.flushed();
  assert.equal(calls.length, 4);
  m.stop();
});

test('an unchanged status is not written again; a pod forgotten (gone from the API) has its waiting write dropped', async () => {
  const { client, calls } = recordingClient();
  const m = createStatusManager(client, names, 'n', () => undefined, () => {});
  const p = pod('a');
  m.set(p, { phase: 'Running' });
  await until(() => calls.length === 1, 'the first write');
  calls[0].answer();
  await m.flushed();
  m.set(p, { phase: 'Running' });
  await m.flushed();
  assert.equal(calls.length, 1, 'the same status again is not written');

  m.set(p, { phase: 'Succeeded' });
  await until(() => calls.length === 2, 'the changed status');
  m.set(p, { phase: 'Failed' });
  m.forget(p.metadata.uid);
  calls[1].answer();
  await m.flushed();
  assert.equal(calls.length, 2, 'nothing waits for a forgotten pod');
  // what was known of it went too: the status it had is written again for a pod of that uid
  m.set(p, { phase: 'Succeeded' });
  await until(() => calls.length === 3, 'a write after forgetting');
  calls[2].answer();
  await m.flushed();
  m.stop();
});
