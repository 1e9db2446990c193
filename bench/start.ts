// Start-up benchmark: `npm start` as a user runs it, against `node -e 0` (the least any Node program takes) in the
// same run. A refused flag answers, and a second start (nothing changed since the build, the store and
// certificates there) is serving, each well within a second of wall time.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, root, row } from './support.js';

const repo = join(root, '..');
const RUNS = 5;

/** wall time from spawn until `done` says so (or the process exits), in ms */
function timed(cmd: string, args: string[], done?: RegExp): Promise<{ ms: number; out: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // its own process group, so that stopping it stops npm, the script and the server alike
    const proc = spawn(cmd, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    const exited = new Promise<void>(r => proc.once('exit', () => r()));
    const alive = () => { try { process.kill(-proc.pid!, 0); return true; } catch { return false; } };
    // npm may end before the server it started: the group is waited for to the last process
    const stop = async () => {
      if (alive()) process.kill(-proc.pid!, 'SIGTERM');
      await exited;
      while (alive()) await new Promise(r => setTimeout(r, 20));
    };
    const onData = (d: Buffer) => {
      out += d;
      if (done?.test(out)) resolve({ ms: performance.now() - t0, out, stop });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', code => (done && !done.test(out) ? reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${out}`)) : resolve({ ms: performance.now() - t0, out, stop })));
    proc.once('error', reject);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function medianOf(run: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push(await run());
  return median(times);
}

export async function startBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-start-'));
  try {
    const serve = ['start', '--', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`];
    const ready = /serving on https:\/\/\S+ /;
    // the first start builds when needed and makes the store and the certificates: not measured
    await (await timed('npm', serve, ready)).stop();
    const load = loadavg()[0];
    const node = await medianOf(async () => (await timed(process.execPath, ['-e', '0'])).ms);
    const npm = await medianOf(async () => (await timed('npm', ['--version'])).ms);
    const refused = await medianOf(async () => {
      const r = await timed('npm', ['start', '--', '--no-such-flag']);
      if (!/unknown flag/.test(r.out)) throw new Error(`expected an unknown flag error: ${r.out}`);
      return r.ms;
    });
    const again = await medianOf(async () => { const r = await timed('npm', serve, ready); await r.stop(); return r.ms; });
    const direct = await medianOf(async () => {
      const r = await timed(process.execPath, [join(root, 'bin/apiserver.js'), ...serve.slice(2), '--api-domain=k8s.io', '--authorization-mode=Node,RBAC',
        '--use-service-account-credentials'], ready);
      await r.stop();
      return r.ms;
    });
    return [
      `Wall time from spawn, median of ${RUNS} runs, on the SQLite store with the embedded controller manager and scheduler ` +
        `(Node,RBAC, a service account per controller, as \`npm start\` runs it). Load average at the start: ${load.toFixed(1)}.`,
      '',
      row(['what', 'ms', 'vs `node -e 0`']),
      row(['---', '---:', '---:']),
      row(['`node -e 0` (baseline)', fmt(node), '1.0x']),
      row(['`npm --version` (npm itself)', fmt(npm), `${(npm / node).toFixed(1)}x`]),
      row(['`npm start -- --no-such-flag` (refused)', fmt(refused), `${(refused / node).toFixed(1)}x`]),
      row(['`npm start` a second time, until serving', fmt(again), `${(again / node).toFixed(1)}x`]),
      row(['`node dist/bin/apiserver.js` a second time, until serving', fmt(direct), `${(direct / node).toFixed(1)}x`]),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
