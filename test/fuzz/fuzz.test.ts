// The hostile-request fuzzer at a small count (the benchmark runs the full 100,000): the server process survives,
// answers no 5xx but the reference's own, and answers every request in time. Twice: as the administrator on the
// memory store (the k8s.io domain), and as a user RBAC allows little on the SQLite store (the server's own domain),
// with a node agent in fake mode behind exec, attach, port-forward and proxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFuzz, startFuzzServer, type FuzzUser } from './hostile.js';

const requests = Number(process.env.FUZZ_REQUESTS ?? 1500);
// a fixed seed keeps the suite's outcome reproducible; FUZZ_SEED explores others (the benchmark uses its own)
const seed = Number(process.env.FUZZ_SEED ?? 424242);

const runs: Array<{ flags: string[]; user: FuzzUser; agent: boolean; requests: number }> = [
  { flags: [], user: 'admin', agent: false, requests },
  { flags: ['--storage-backend=sqlite', '--api-domain=cluster.io'], user: 'limited', agent: true, requests: Math.ceil(requests / 2) },
];

for (const run of runs) {
  test(`${run.requests} hostile requests over HTTP/1.1, HTTP/2, raw sockets and upgrades (${run.flags.join(' ') || 'memory store, k8s.io'}, as ${run.user === 'admin' ? 'the administrator' : 'a limited user'}, seed ${seed})`, { timeout: 600_000 }, async () => {
    const server = await startFuzzServer(run.flags, { user: run.user, agent: run.agent });
    try {
      // the benchmark holds every answer to 10 s on its own; beside the rest of the suite on a busy machine, 30 s
      const report = await runFuzz({ requests: run.requests, seed, server, concurrency: 8, budgetMs: 30_000 });
      assert.equal(report.crashed, undefined, `the server exited: ${report.crashed}`);
      assert.deepEqual(report.serverErrors, [], `5xx answers (seed ${seed}):\n${JSON.stringify(report.serverErrors, null, 1)}`);
      assert.deepEqual(report.slow, [], `requests not answered in time (seed ${seed}):\n${JSON.stringify(report.slow, null, 1)}`);
      assert.ok(report.sent >= run.requests, `sent ${report.sent} of ${run.requests}`);
    } finally {
      await server.stop();
    }
  });
}
