// Scale benchmark: one agent process simulating N nodes (fake runtime) against the API server (memory storage),
// each in its own process, and M Pods bound round-robin to those nodes while the agent runs. Measured: Pods/s to
// Running, latency percentiles of create / get / update / list calls made throughout the run, the longest gap
// between two Lease renewals of any node (a node is NotReady once its gap passes the 40 s grace period of the
// node lifecycle controller), the agent's own Ready conditions, resident memory and CPU of both processes, and
// the time the agent takes to stop.
//
// Sizes are parameters: SCALE_NODES (default 1000), SCALE_PODS (default 30000), SCALE_QPS (the agent's
// --cluster-api-qps, default 1000; burst twice that), SCALE_TIMEOUT_S (how long Pods may take to run, default 3600);
// SCALE_STORAGE (the API server's --storage-backend, memory or sqlite, default memory); SCALE_COMPONENTS (embedded: the
// controller manager, scheduler and metrics server inside the API server's process, its default; separate: each in a
// process of its own, as the reference runs them); SCALE_LOG=<dir> keeps the
// output of the API server and the agent there; SCALE_API_NODE_ARGS / SCALE_AGENT_NODE_ARGS are Node options for the API
// server's and the agent's processes (space-separated, e.g. `--cpu-prof --cpu-prof-dir=<dir>`: both processes are
// stopped with SIGTERM, so that a profile is written).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { clientFromFile, type Client } from '../src/client/rest-client.js';
import { naming } from '../src/api/naming.js';

const root = new URL('..', import.meta.url).pathname; // dist/
const size = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CREATE_CONCURRENCY = 64;
const SAMPLE_EVERY_MS = 200;
const GRACE_MS = 40_000;

const nodeArgs = (name: string) => (process.env[name] ?? '').split(' ').filter(Boolean);

function spawnUntil(args: string[], ready: RegExp, execArgs: string[] = []): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...execArgs, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      if (!ready.test(out)) return;
      proc.stdout!.off('data', onData);
      proc.stderr!.off('data', onData);
      // SCALE_LOG=<dir>: the processes' output is kept there
      if (process.env.SCALE_LOG) {
        const log = createWriteStream(join(process.env.SCALE_LOG, `${args[0]!.split('/').pop()}.log`));
        log.write(out);
        proc.stdout!.pipe(log);
        proc.stderr!.pipe(log);
      } else {
        proc.stdout!.resume();
        proc.stderr!.resume();
      }
      resolve(proc);
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${out.slice(-2000)}`)));
  });
}

const status = (pid: number) => readFileSync(`/proc/${pid}/status`, 'utf8');
const mib = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status(pid))?.[1] ?? 0) / 1024;
/** CPU seconds (user + system) the process has used */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN);
const ms = (n: number) => (Number.isNaN(n) ? '–' : n >= 100 ? String(Math.round(n)) : n.toFixed(1));

/** latencies of calls by kind, and failures */
function recorder() {
  const times: Record<string, number[]> = { create: [], get: [], update: [], list: [] };
  const failures: Record<string, number> = {};
  return {
    times, failures,
    async time<T>(kind: string, call: () => Promise<T>): Promise<T | undefined> {
      const t = performance.now();
      try {
        const r = await call();
        times[kind]!.push(performance.now() - t);
        return r;
      } catch (e) {
        failures[`${kind}: ${String((e as Error).message).slice(0, 80)}`] = (failures[`${kind}: ${String((e as Error).message).slice(0, 80)}`] ?? 0) + 1;
        return undefined;
      }
    },
  };
}

/**
 * The longest time between two renewals of any node's Lease, from a watch of the leases: by the renewal times the
 * agent wrote (its heartbeats) and by when their events arrived here (what a node controller sees), live gaps
 * included.
 */
function leaseGaps(client: Client, stop: AbortSignal) {
  const names = naming();
  const leases = client.resource({ group: names.group('coordination'), version: 'v1', resource: 'leases' }, names.nodeLeaseNamespace);
  const last = new Map<string, { renewed: number; seen: number }>();
  const worst = { renewed: { ms: 0, node: '' }, seen: { ms: 0, node: '' } };
  const note = (name: string, renewTime: string | undefined, now: number) => {
    const renewed = renewTime ? Date.parse(renewTime) : now;
    const before = last.get(name);
    if (before && renewed - before.renewed > worst.renewed.ms) worst.renewed = { ms: renewed - before.renewed, node: name };
    if (before && now - before.seen > worst.seen.ms) worst.seen = { ms: now - before.seen, node: name };
    last.set(name, { renewed, seen: now });
  };
  void (async () => {
    while (!stop.aborted) {
      try {
        const list = await leases.list();
        for (const l of list.items) if (!last.has(l.metadata.name)) note(l.metadata.name, l.spec?.renewTime, Date.now());
        for await (const e of leases.watch({ resourceVersion: list.metadata.resourceVersion, signal: stop })) {
          if (e.type === 'ADDED' || e.type === 'MODIFIED') note(e.object.metadata.name, e.object.spec?.renewTime, Date.now());
        }
      } catch {
        // the watch ends and starts again; gaps go on being measured from the last renewal seen
      }
    }
  })();
  return {
    worst() {
      const now = Date.now();
      const out = { renewed: { ...worst.renewed }, seen: { ...worst.seen } };
      for (const [node, at] of last) {
        if (now - at.renewed > out.renewed.ms) out.renewed = { ms: now - at.renewed, node };
        if (now - at.seen > out.seen.ms) out.seen = { ms: now - at.seen, node };
      }
      return out;
    },
    over: (limit: number) => [...last.values()].filter((at) => Date.now() - at.seen > limit).length,
  };
}

export async function scaleBench(): Promise<string> {
  const NODES = size('SCALE_NODES', 1000);
  const PODS = size('SCALE_PODS', 30_000);
  const QPS = size('SCALE_QPS', 1000);
  // Pods created per second; 0: as fast as the server answers (64 in flight). The reference's latency SLO is measured under
  // a set load below capacity: at capacity every call waits behind the queue that saturation builds
  const CREATE_RATE = size('SCALE_CREATE_RATE', 0);
  const TIMEOUT_MS = size('SCALE_TIMEOUT_S', 3600) * 1000;
  const STORAGE = process.env.SCALE_STORAGE ?? 'memory';
  if (STORAGE !== 'memory' && STORAGE !== 'sqlite') throw new Error(`SCALE_STORAGE=${STORAGE}: memory or sqlite`);
  // embedded: the controller manager, scheduler and metrics server run inside the API server's process (its default);
  // separate: each in a process of its own, as the reference's control plane runs them
  const COMPONENTS = process.env.SCALE_COMPONENTS ?? 'embedded';
  if (COMPONENTS !== 'embedded' && COMPONENTS !== 'separate') throw new Error(`SCALE_COMPONENTS=${COMPONENTS}: embedded or separate`);
  const separate = COMPONENTS === 'separate';
  const dir = mkdtempSync(join(tmpdir(), 'scale-bench-'));
  const children: ChildProcess[] = [];
  const stopAll = new AbortController();
  try {
    const api = await spawnUntil([join(root, 'bin/apiserver.js'), '--secure-port=0', '--bind-address=127.0.0.1', `--storage-backend=${STORAGE}`, `--data-dir=${join(dir, 'data')}`,
      ...(separate ? ['--controller-manager=false', '--scheduler=false', '--metrics-server=false'] : [])], /serving on https:\/\/127\.0\.0\.1:(\d+)/, nodeArgs('SCALE_API_NODE_ARGS'));
    children.push(api);
    const kubeconfig = join(dir, 'data', 'admin.kubeconfig');
    if (separate) {
      const pki = join(dir, 'data', 'pki');
      children.push(await spawnUntil([join(root, 'bin/controller-manager.js'), `--kubeconfig=${kubeconfig}`, `--service-account-private-key-file=${join(pki, 'sa.key')}`,
        `--root-ca-file=${join(pki, 'ca.crt')}`, `--cluster-signing-cert-file=${join(pki, 'ca.crt')}`, `--cluster-signing-key-file=${join(pki, 'ca.key')}`], /./));
      children.push(await spawnUntil([join(root, 'bin/scheduler.js'), `--kubeconfig=${kubeconfig}`], /./));
      children.push(await spawnUntil([join(root, 'bin/metrics-server.js'), `--kubeconfig=${kubeconfig}`, '--secure-port=0', '--bind-address=127.0.0.1', `--cert-dir=${join(dir, 'metrics-server')}`], /./));
    }
    const client = await clientFromFile(kubeconfig, { qps: 0 });
    const core = (resource: string, ns?: string) => client.resource({ group: '', version: 'v1', resource }, ns);
    await core('namespaces').create({ metadata: { name: 'bench' } });
    await core('serviceaccounts', 'bench').create({ metadata: { name: 'default' } }).catch(() => {});
    const pods = core('pods', 'bench');
    const calls = recorder();

    // the agent, and every node registered and Ready
    let t = performance.now();
    const agent = await spawnUntil([join(root, 'bin/agent.js'), `--clusterconfig=${kubeconfig}`, '--runtime=fake', `--fake-nodes=${NODES}`, '--hostname-override=sim',
      `--cluster-api-qps=${QPS}`, `--cluster-api-burst=${2 * QPS}`,
      `--root-dir=${join(dir, 'agent')}`, `--cert-dir=${join(dir, 'pki')}`, '--enable-server=false', '--healthz-port=0', '--read-only-port=0'], /running \d+ node/, nodeArgs('SCALE_AGENT_NODE_ARGS'));
    children.push(agent);
    const cpu0 = { api: cpuSeconds(api.pid!), agent: cpuSeconds(agent.pid!) };
    const readyNodes = async () => (await core('nodes').list()).items.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')).length;
    while ((await readyNodes()) < NODES) await new Promise((r) => setTimeout(r, 1000));
    const registerMs = performance.now() - t;

    const gaps = leaseGaps(client, stopAll.signal);
    // a node the agent itself reports not Ready
    const notReady = new Set<string>();
    void (async () => {
      const list = await core('nodes').list();
      for await (const e of core('nodes').watch({ resourceVersion: list.metadata.resourceVersion, signal: stopAll.signal })) {
        if (e.object.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status !== 'True')) notReady.add(e.object.metadata.name);
      }
    })().catch(() => {});

    // Pods reach Running, counted from a watch
    const running = new Set<string>();
    let lastRunningAt = 0;
    const watching = (async () => {
      const list = await pods.list({ limit: 1 });
      for (;;) {
        try {
          for await (const e of pods.watch({ resourceVersion: list.metadata.resourceVersion, signal: stopAll.signal })) {
            if (e.object.status?.phase === 'Running' && !running.has(e.object.metadata.name)) { running.add(e.object.metadata.name); lastRunningAt = performance.now(); }
            if (running.size >= PODS) return;
          }
        } catch (e) {
          if (stopAll.signal.aborted) return;
          list.metadata.resourceVersion = (await pods.list({ limit: 1 })).metadata.resourceVersion;
        }
        if (stopAll.signal.aborted) return;
      }
    })();

    // reads and updates made all along, as users and controllers make them
    await core('configmaps', 'bench').create({ metadata: { name: 'probe' }, data: { n: '0' } });
    let sampling = true;
    let created = 0;
    // one loop per kind, so that a slow list does not hold the gets and updates back
    const every = (f: (n: number) => Promise<unknown>) => (async () => {
      for (let n = 1; sampling; n++) {
        await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
        await f(n);
      }
    })();
    const sampler = Promise.all([
      every(async () => { if (created) await calls.time('get', () => pods.get(`p-${Math.floor(Math.random() * created)}`)); }),
      every((n) => calls.time('update', async () => {
        const cm = await core('configmaps', 'bench').get('probe');
        return core('configmaps', 'bench').update({ ...cm, data: { n: String(n) } });
      })),
      every(() => calls.time('list', () => pods.list({ limit: 500 }))),
    ]);

    // whether this process, the load generator, keeps up: its own event-loop delay adds to every latency it measures
    const benchDelay = monitorEventLoopDelay({ resolution: 10 });
    benchDelay.enable();
    t = performance.now();
    // progress on stderr, for runs that are stopped before they finish
    const progress = setInterval(() => {
      const rss = (pid: number) => { try { return `${mib(pid, 'VmRSS').toFixed(0)} MiB`; } catch { return 'gone'; } };
      process.stderr.write(`scale: ${((performance.now() - t) / 1000).toFixed(0)} s: ${created} created, ${running.size} Running; agent ${rss(agent.pid!)}, API server ${rss(api.pid!)}\n`);
    }, 30_000);
    progress.unref();
    let next = 0;
    await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, async () => {
      while (next < PODS) {
        const i = next++;
        const due = CREATE_RATE > 0 ? t + (i * 1000) / CREATE_RATE : 0;
        if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        await calls.time('create', () => pods.create({ metadata: { name: `p-${i}` }, spec: { nodeName: `sim-${i % NODES}`, containers: [{ name: 'c', image: 'busybox' }] } }));
        created = Math.max(created, i + 1);
      }
    }));
    const createMs = performance.now() - t;
    const deadline = setTimeout(() => stopAll.abort(), TIMEOUT_MS);
    await watching;
    clearTimeout(deadline);
    clearInterval(progress);
    const runMs = (running.size >= PODS ? lastRunningAt : performance.now()) - t;
    sampling = false;
    await sampler;
    benchDelay.disable();

    const cpu = { api: cpuSeconds(api.pid!) - cpu0.api, agent: cpuSeconds(agent.pid!) - cpu0.agent };
    const rss = { api: mib(api.pid!, 'VmRSS'), apiPeak: mib(api.pid!, 'VmHWM'), agent: mib(agent.pid!, 'VmRSS'), agentPeak: mib(agent.pid!, 'VmHWM') };
    const worstGap = gaps.worst();
    const lapsed = gaps.over(GRACE_MS);
    const finalReady = await readyNodes();
    // counted before the stop, which marks every node NotReady on its way out
    const reportedNotReady = notReady.size;

    t = performance.now();
    await new Promise<void>((resolve) => { agent.once('exit', () => resolve()); agent.kill('SIGTERM'); });
    const stopMs = performance.now() - t;
    stopAll.abort();
    client.close();

    for (const list of Object.values(calls.times)) list.sort((a, b) => a - b);
    const row = (kind: string) => {
      const l = calls.times[kind]!;
      return `| ${kind} | ${l.length} | ${ms(pct(l, 50))} | ${ms(pct(l, 99))} | ${ms(l[l.length - 1] ?? NaN)} |`;
    };
    const failed = Object.entries(calls.failures).map(([k, v]) => `${v}× ${k}`);
    return [
      `\`SCALE_NODES=${NODES} SCALE_PODS=${PODS} SCALE_QPS=${QPS}${CREATE_RATE > 0 ? ` SCALE_CREATE_RATE=${CREATE_RATE}` : ''}${STORAGE === 'memory' ? '' : ` SCALE_STORAGE=${STORAGE}`}${separate ? ' SCALE_COMPONENTS=separate' : ''} node dist/bench/run.js scale\`: one agent process (\`cluster-agent --runtime=fake --fake-nodes=${NODES}`,
      `--cluster-api-qps=${QPS} --cluster-api-burst=${2 * QPS}\`) and the API server (${STORAGE} storage, default flags${separate ? '; the controller manager, scheduler and metrics server as processes of their own' : ''}), each in its own process. This process`,
      `creates ${PODS} Pods bound round-robin to the nodes (${CREATE_CONCURRENCY} creates in flight${CREATE_RATE > 0 ? `, at most ${CREATE_RATE} a second` : ''}) and, in three loops pausing ${SAMPLE_EVERY_MS} ms between calls, gets a Pod,`,
      'updates a ConfigMap and lists 500 Pods (a paged list, served by storage). A node would be NotReady once its Lease goes unrenewed for 40 s (the node lifecycle controller\'s grace period).',
      '',
      '| measure | value |',
      '|---|---|',
      `| nodes registered and Ready after the agent started | ${NODES} in ${(registerMs / 1000).toFixed(1)} s |`,
      `| **Pods Running** | **${running.size} of ${PODS}**${running.size < PODS ? ` (stopped after ${TIMEOUT_MS / 1000} s)` : ''} |`,
      `| **Pods/s to Running** (first create → last Running) | **${(running.size / (runMs / 1000)).toFixed(0)}** (${(runMs / 1000).toFixed(0)} s; creates alone ${(PODS / (createMs / 1000)).toFixed(0)}/s) |`,
      `| **longest gap between two Lease renewals of a node**: by renewTime / by arrival of its watch event here | **${(worstGap.renewed.ms / 1000).toFixed(1)} s** (${worstGap.renewed.node}) / ${(worstGap.seen.ms / 1000).toFixed(1)} s (${worstGap.seen.node}); nodes past 40 s at the end: ${lapsed} |`,
      `| nodes the agent reported not Ready during the run / Ready at the end | ${reportedNotReady} / ${finalReady} of ${NODES} |`,
      `| API server resident memory at the end / peak | ${rss.api.toFixed(0)} / ${rss.apiPeak.toFixed(0)} MiB |`,
      `| **agent resident memory at the end / peak** | ${rss.agent.toFixed(0)} / **${rss.agentPeak.toFixed(0)} MiB** |`,
      `| CPU used from agent start to the end of the run: API server / agent | ${cpu.api.toFixed(0)} s / ${cpu.agent.toFixed(0)} s |`,
      `| **agent stop** (SIGTERM → exit, every node marked NotReady on the way out) | **${(stopMs / 1000).toFixed(1)} s** |`,
      `| event-loop delay of this process (the load generator) during the run: p99 / max | ${ms(benchDelay.percentile(99) / 1e6)} / ${ms(benchDelay.max / 1e6)} ms |`,
      '',
      '| call (during the run) | count | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|',
      row('create'), row('get'), row('update'), row('list'),
      '',
      failed.length ? `Failed calls: ${failed.join('; ')}.` : 'No call failed.',
    ].join('\n');
  } finally {
    stopAll.abort();
    // SIGTERM first (a process started with --cpu-prof writes its profile on the way out), SIGKILL after 60 s
    await Promise.all(children.reverse().filter((c) => c.exitCode === null).map((c) => new Promise<void>((resolve) => {
      const kill = setTimeout(() => c.kill('SIGKILL'), 60_000);
      c.once('exit', () => { clearTimeout(kill); resolve(); });
      c.kill('SIGTERM');
    })));
    rmSync(dir, { recursive: true, force: true });
  }
}
