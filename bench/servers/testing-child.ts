// A child process of the testing benchmark. `empty`: nothing but Node (the baseline); `first`: the time from
// startTestServer() to the first successful request; `many N`: N servers in this one process, each answering a
// request, with the time it took and the memory held. Prints one JSON line.
import { startTestServer, type TestServer } from '../../src/testing.js';

const memory = () => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return { rssMB: m.rss / 2 ** 20, heapMB: m.heapUsed / 2 ** 20 };
};

async function firstRequest(server: TestServer) {
  const list = await server.client.request({ method: 'GET', path: '/api/v1/namespaces', query: { limit: 1 } });
  if (list?.kind !== 'NamespaceList') throw new Error(`unexpected answer ${JSON.stringify(list).slice(0, 200)}`);
}

async function main() {
  const [mode, count] = process.argv.slice(2);
  if (mode === 'empty') {
    console.log(JSON.stringify({ ...memory(), uptimeMs: performance.now() }));
    return;
  }
  if (mode === 'first') {
    const t0 = performance.now();
    const server = await startTestServer();
    const ready = performance.now();
    await firstRequest(server);
    const first = performance.now();
    // a second server in the same process: what a test suite that starts one per test sees
    const t1 = performance.now();
    const second = await startTestServer();
    await firstRequest(second);
    const warmMs = performance.now() - t1;
    console.log(JSON.stringify({ startMs: ready - t0, firstRequestMs: first - t0, processMs: first, warmMs }));
    await second.close();
    await server.close();
    return;
  }
  const n = Number(count);
  const t0 = performance.now();
  const servers: TestServer[] = [];
  for (let i = 0; i < n; i++) servers.push(await startTestServer());
  await Promise.all(servers.map(firstRequest));
  const elapsed = performance.now() - t0;
  console.log(JSON.stringify({ servers: n, totalMs: elapsed, ...memory() }));
  for (const s of servers) await s.close();
}

main().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
