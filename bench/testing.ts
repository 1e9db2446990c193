// The testing kit for controller tests: how long from startTestServer() to the first successful request, and what
// 50 servers in one process cost in time and memory, each against an empty Node process measured in the same run.
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fmt, root, row } from './support.js';

const child = join(root, 'bench/servers/testing-child.js');

function runChild(args: string[]): Promise<{ wallMs: number; result: any }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(process.execPath, ['--expose-gc', child, ...args], { maxBuffer: 16 << 20, timeout: 600_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${args.join(' ')}: ${err.message}\n${stderr}`));
      resolve({ wallMs: performance.now() - t0, result: JSON.parse(stdout.trim().split('\n').pop()!) });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function testingBench(): Promise<string> {
  const runs = 7;
  // alternate the empty process and the test server so both meet the same machine load
  const empty: { wallMs: number; result: any }[] = [];
  const first: { wallMs: number; result: any }[] = [];
  await runChild(['empty']);
  await runChild(['first']);
  for (let i = 0; i < runs; i++) {
    empty.push(await runChild(['empty']));
    first.push(await runChild(['first']));
  }
  const emptyWall = median(empty.map((e) => e.wallMs));
  const emptyRss = median(empty.map((e) => e.result.rssMB));
  const emptyHeap = median(empty.map((e) => e.result.heapMB));
  const startMs = median(first.map((f) => f.result.startMs));
  const firstMs = median(first.map((f) => f.result.firstRequestMs));
  const processMs = median(first.map((f) => f.result.processMs));
  const warmMs = median(first.map((f) => f.result.warmMs));
  const load = loadavg()[0]!.toFixed(1);

  const n = 50;
  const many = (await runChild(['many', String(n)])).result;
  const one = (await runChild(['many', '1'])).result;
  const perServerMB = (many.rssMB - one.rssMB) / (n - 1);

  return [
    'Each measure runs in a fresh child process (`node --expose-gc`), alternating with an empty Node process that',
    'only reports its memory and exits; medians of 7. The servers use the memory store, a random loopback port and',
    'their own certificates, as `startTestServer()` gives them; "first request" is a namespace list through the',
    'library\'s client (TLS handshake included). The first server of a process also loads the server\'s code;',
    `later ones do not. Load average of the machine (1 min) when the suite ended: ${load} (other work shares the machine).`,
    '',
    row(['measure', 'test server(s)', 'empty Node process(es)', 'ratio']),
    row(['---', '---:', '---:', '---:']),
    row(['`startTestServer()` resolved, first server of a process (ms)', fmt(startMs), '', '']),
    row(['`startTestServer()` to the first successful request, first server of a process (ms)', fmt(firstMs), '', '']),
    row(['`startTestServer()` to the first successful request, another server in the same process, vs an empty process from start to exit (ms)', fmt(warmMs), fmt(emptyWall), `${(warmMs / emptyWall).toFixed(3)}x`]),
    row(['process start to the first successful request, vs an empty process from start to exit (ms, wall)', fmt(processMs + emptyWall), fmt(emptyWall), `${(1 + processMs / emptyWall).toFixed(2)}x`]),
    row([`${n} servers in one process, all started and each answered a request, vs ${n} empty processes one after another (ms)`, fmt(many.totalMs), fmt(n * emptyWall), `${(many.totalMs / (n * emptyWall)).toFixed(3)}x`]),
    row([`${n} servers: mean time per server (ms)`, fmt(many.totalMs / n), '', '']),
    row([`${n} servers in one process: resident memory, vs one empty process (MB)`, fmt(many.rssMB), fmt(emptyRss), `${(many.rssMB / emptyRss).toFixed(2)}x`]),
    row([`${n} servers in one process: resident memory, vs ${n} empty processes (MB)`, fmt(many.rssMB), fmt(n * emptyRss), `${(many.rssMB / (n * emptyRss)).toFixed(3)}x`]),
    row([`${n} servers: JavaScript heap in use after GC, vs one empty process (MB)`, fmt(many.heapMB), fmt(emptyHeap), `${(many.heapMB / emptyHeap).toFixed(2)}x`]),
    row(['resident memory each additional server adds (MB)', fmt(perServerMB), '', '']),
  ].join('\n');
}
