// SIGTERM under load: the program, on its embedded SQLite store, with 2,000 watches open over HTTP/1.1 and HTTP/2
// and 200 clients writing as fast as it answers (each write an event for every watch), stops in a bounded time (its own clients get 2 s to
// leave, the watches end, the requests in flight finish) and exits 0; started again on the same data directory, it
// has every write it acknowledged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from '../integration/client.js';
import { until } from '../support/wait.js';

const program = new URL('../../bin/apiserver.js', import.meta.url).pathname;   // the bundled program in dist/bin
const WATCHES = 2000;
const WRITERS = 200;
/** SIGTERM once this many writes were acknowledged: the server is under load by then */
const ACKED_BEFORE_SIGTERM = 100;
/**
 * The server's own bounds add up to about 5 s here (2 s for its clients to leave, then the drain of requests that
 * take milliseconds each once the watches are ended); before they were there, this load took 15 to 60 s to stop.
 */
const EXIT_WITHIN_MS = 15_000;

interface Running { child: ChildProcess; url: string; log(): string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }

async function start(cwd: string): Promise<Running> {
  const child = spawn(process.execPath, [program, '--secure-port=0', '--bind-address=127.0.0.1'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      const m = /serving on (https:\/\/\S+)/.exec(log);
      if (m && /admin client configuration/.test(log)) resolve(m[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`exited ${code}: ${log}`)));
  });
  return { child, url, log: () => log, exited };
}

test('SIGTERM under load: a bounded stop, exit 0, and every acknowledged write there after a restart', { skip: existsSync(program) ? false : 'the bundled program is missing (npm run build)', timeout: 300_000 }, async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'shutdown-'));
  const running: Running[] = [];
  let client: Client | undefined;
  let session: ClientHttp2Session | undefined;
  try {
    const server = await start(cwd);
    running.push(server);
    const pki = (f: string) => readFileSync(join(cwd, 'data', 'pki', f), 'utf8');
    const creds = { caCertPem: pki('ca.crt'), adminCertPem: pki('admin.crt'), adminKeyPem: pki('admin.key') };
    client = createClient({ url: server.url, ...creds });
    const base = '/api/v1/namespaces/default/configmaps';
    const rv = (await client.get(base)).json.metadata.resourceVersion;

    // half the watches over HTTP/1.1 (a connection each), half as streams of one HTTP/2 connection
    session = http2Connect(server.url, { ca: creds.caCertPem, cert: creds.adminCertPem, key: creds.adminKeyPem });
    session.on('error', () => {});
    const h1Watches = await Promise.all(Array.from({ length: WATCHES / 2 }, () => client!.watch(`${base}?watch=true&resourceVersion=${rv}`)));
    assert.ok(h1Watches.every(w => w.status === 200));
    for (let i = 0; i < WATCHES / 2; i++) session.request({ ':path': `${base}?watch=true&resourceVersion=${rv}` }).on('error', () => {}).resume();

    const acked = new Set<string>();
    let stopping = false, written = 0;
    const h2Create = (body: string) => new Promise<number>(resolve => {
      try {
        const s = session!.request({ ':method': 'POST', ':path': base, 'content-type': 'application/json' });
        let status = 0;
        s.on('response', h => { status = Number(h[':status']); }).on('error', () => resolve(0)).on('close', () => resolve(status)).resume();
        s.end(body);
      } catch { resolve(0); }   // the session is closed (after the server's GOAWAY)
    });
    const writer = async (w: number) => {
      while (!stopping) {
        const name = `cm-${w}-${written++}`;
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: 'x'.repeat(256) } });
        const status = w % 2 ? await h2Create(body) : await client!.request('POST', base, { body }).then(r => r.status, () => 0);
        if (status === 201) acked.add(name);
        else await new Promise(r => setTimeout(r, 10));   // refused or cut while the server stops: the writer tries again
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    await until(() => acked.size >= ACKED_BEFORE_SIGTERM, () => `${ACKED_BEFORE_SIGTERM} acknowledged writes (${acked.size} so far)`, 120_000);

    const signalled = performance.now();
    server.child.kill('SIGTERM');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exit = await Promise.race([server.exited, new Promise<undefined>(resolve => { timer = setTimeout(() => resolve(undefined), EXIT_WITHIN_MS); })]);
    clearTimeout(timer);
    const tookMs = Math.round(performance.now() - signalled);
    assert.deepEqual(exit, { code: 0, signal: null }, `the server did not exit 0 within ${EXIT_WITHIN_MS} ms of SIGTERM: ${server.log().split('\n').slice(-10).join('\n')}`);
    stopping = true;
    await Promise.all(writers);
    // the watches were ended by the server, not cut
    await Promise.all(h1Watches.map(w => w.ended));
    assert.ok(h1Watches.every(w => w.errorBody === undefined));

    const again = await start(cwd);
    running.push(again);
    const reader = createClient({ url: again.url, ...creds });
    const stored = new Set<string>();
    let token = '';
    do {
      const page = await reader.get(`${base}?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      assert.equal(page.status, 200, page.body);
      for (const item of page.json.items) stored.add(item.metadata.name);
      token = page.json.metadata.continue ?? '';
    } while (token);
    reader.close();
    const lost = [...acked].filter(n => !stored.has(n));
    assert.deepEqual(lost, [], `${lost.length} of ${acked.size} acknowledged writes are missing`);
    process.stderr.write(`# ${acked.size} writes acknowledged (${WATCHES} watches open); exit ${tookMs} ms after SIGTERM; all there after a restart\n`);
    again.child.kill('SIGTERM');
    assert.deepEqual(await again.exited, { code: 0, signal: null });
  } finally {
    client?.close();
    session?.destroy();
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
});
