// --event-ttl: an Event goes once it has not changed for that long, and watchers see it go; one that keeps changing
// stays.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let c: Client;
before(async () => {
  server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--event-ttl=2s'] });
  c = createClient(server);
});
after(async () => { c?.close(); await server?.close(); });

const events = '/api/v1/namespaces/default/events';
const event = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Tested', message: name, count: 1 });

test('an Event unchanged for --event-ttl is deleted, with a DELETED watch event; one changed meanwhile stays', async () => {
  const watch = await c.watch(`${events}?watch=true&fieldSelector=metadata.name%3Dquiet`);
  for (const name of ['quiet', 'busy']) assert.equal((await c.request('POST', events, { body: event(name) })).status, 201);
  // busy changes every half second, so it is never 2 s old
  let count = 1;
  // (the last change is awaited before the test ends: one still on its way when the server closes would fail later)
  let touching: Promise<unknown> = Promise.resolve();
  const touch = setInterval(() => {
    touching = c.request('PATCH', `${events}/busy`, { body: { count: ++count }, contentType: 'application/merge-patch+json' });
  }, 500);
  try {
    const seen: string[] = [];
    await waitFor('quiet deleted', async () => {
      const e = await watch.next(30_000);
      if (e) seen.push(e.type);
      return seen.includes('DELETED');
    }, 60_000);
    assert.deepEqual(seen, ['ADDED', 'DELETED']);
    assert.equal((await c.get(`${events}/quiet`)).status, 404);
    assert.equal((await c.get(`${events}/busy`)).status, 200);
  } finally {
    clearInterval(touch);
    await touching;
    watch.close();
  }
});
