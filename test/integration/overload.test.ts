// The overload benchmark in small: a server process with few seats and a short queue wait, many clients listing
// many objects while watches are open. The excess is answered 429, every probe is answered, memory stays bounded,
// and the server serves normally afterwards. The full size runs as `node dist/bench/run.js overload`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runOverload } from '../../bench/overload.js';

test('an overloaded server refuses the excess with 429, answers its probes, and serves normally afterwards', async () => {
  const r = await runOverload({
    clients: 200, users: 10, objects: 1000, watches: 500, durationMs: 6000, objectBytes: 4000,
    // 30 seats (3 for the clients' level) and a wait limit of 2 s, and lists of about 4 MB that take long enough from
    // the cache for the queue to pass that wait, so the excess is refused within the run
    serverFlags: ['--max-requests-inflight=20', '--max-mutating-requests-inflight=10', '--request-timeout=8s'],
  });
  assert.ok((r.load.lists['429'] ?? 0) > 0, `some lists were refused: ${JSON.stringify(r.load)}`);
  assert.ok((r.load.lists['200'] ?? 0) > 0, `some lists were served: ${JSON.stringify(r.load)}`);
  assert.deepEqual(Object.keys(r.load.lists).sort(), ['200', '429'], 'only served or refused');
  assert.equal(r.load.listErrors, 0);
  assert.equal(r.load.watchesOpened, 500, JSON.stringify(r.load));
  assert.equal(r.probes.failed, 0, `probes failed: ${JSON.stringify(r.probes)}`);
  assert.ok(r.rss.maxMiB < 1024, `resident memory ${r.rss.maxMiB} MiB`);
  assert.deepEqual([r.after.listStatus, r.after.listItems, r.after.createStatus], [200, 1000, 201]);
});
