// The fake runtime: nothing runs. Sandboxes and containers are records that go Running as soon as
// they start (init containers and those of a Job's pods run their command in the simulated shell, which takes
// the programs it does not know as done, or without a command exit 0 at once: pods with init containers start
// and Jobs complete, as with KWOK's default stages); pod annotations make containers exit after a while with a code, make probes fail, set
// the CPU and memory they are reported to use, or the lines they log (see `agentUsage`). Exec runs a
// small simulated shell over the container's in-memory files (fake-exec.ts); attach follows the output and passes stdin
// (a container with stdin whose command the shell knows runs it there, reading what attaches send; any other echoes);
// port-forward reaches the node's port for host-network pods and a simulated HTTP answer otherwise. Pods off the host network get
// addresses from the node's pod range. One instance per simulated node; they are cheap enough for
// thousands of pods.

import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { appendFile, mkdir } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { addFile, fakeExec, fakeFiles, knownCommand, type FakeFiles } from './fake-exec.js';
import type { Naming } from '../../api/naming.js';
import { fakeAnnotation } from '../options.js';
import { parseQuantity } from '../quantity.js';
import { addressPool, type AddressPool } from './address-pool.js';
import { ImageNeverPulled, type ContainerConfig, type ContainerInfo, type ContainerRuntime, type ContainerStats, type ImageInfo, type SandboxConfig, type SandboxInfo } from './types.js';
import type { Probe } from '../objects.js';
import type { MountedFile } from '../volumes/index.js';

interface FakeContainer extends ContainerInfo {
  annotations: Record<string, string>;
  timer?: NodeJS.Timeout;
  /** the simulated log lines written every so often */
  logTimer?: NodeJS.Timeout;
  /** the CRI log file of this instance */
  logFile: string;
  /** its files, for exec and cp: made at the first exec (most simulated containers are never entered) */
  files?: FakeFiles;
  /** what its mounts would show (the service-account token, ConfigMap keys, ...), added to its files at the first exec */
  mountedFiles?: () => Promise<MountedFile[]>;
  /** the files being made at the first exec, with what its mounts show */
  filesMade?: Promise<void>;
  hostname: string;
  /** its main process reads stdin (attach with -i echoes what it reads) */
  stdin: boolean;
  /** stdin closes when the first attach ends (`kubectl run -i`): the main process then reads its end and exits */
  stdinOnce: boolean;
  /** its main process has a terminal */
  tty: boolean;
  /** the stdin of its main process, when that process runs in the simulated shell and reads one: what attaches send */
  input?: PassThrough;
  /** an init container, or any of a Job's pod: its command runs in the simulated shell (or, without one, it exits 0 at
   *  once), unless the annotations say otherwise */
  runsToCompletion: boolean;
  /** its command and arguments */
  argv: string[];
  /** where its processes start */
  workingDir: string;
  /** the variables its processes start with (the container's env, as the agent resolved it) */
  env: Record<string, string>;
  /** stops the simulated shell running its command */
  main?: AbortController;
  /** told when the container stops (made when an attach waits for it) */
  stopped?: EventEmitter;
  /** told of each line the container writes (made when an attach follows its output) */
  output?: EventEmitter;
  /** what it is reported to use: CPU in cores, memory in bytes */
  cpuCores: number;
  memoryBytes: number;
  /** CPU time used up to `sampledAt`, in nanoseconds */
  cpuNanos: number;
  sampledAt: number;
}

export interface FakeRuntimeOptions {
  /** the node's pod address range (from --pod-cidr); pods off the host network get addresses from it */
  podCidr?: string;
  /** the range used while the node has none of its own: until the agent passes the node's `spec.podCIDR` */
  fallbackPodCidr?: string;
}

/** the default usage of a simulated container: its requests (from shares and limit), else a little */
const defaultMemory = 8 * 2 ** 20;

export function fakeRuntime(nodeName: string, names: Naming, o: FakeRuntimeOptions = {}): ContainerRuntime {
  const sandboxes = new Map<string, SandboxInfo & { annotations: Record<string, string> }>();
  const containers = new Map<string, FakeContainer>();
  const images = new Map<string, ImageInfo>();
  let range = o.podCidr ?? o.fallbackPodCidr;
  let pool: AddressPool | undefined = range ? addressPool(range) : undefined;
  /** the pool each sandbox's address came from: a range given later serves new sandboxes only */
  const poolOf = new Map<string, AddressPool>();
  const release = (id: string) => { poolOf.get(id)?.release(id); poolOf.delete(id); };
  /** told when a container exits */
  const exitListeners: (() => void)[] = [];

  /** what the simulated shell of a container works on: its files, made at the first exec */
  const shellOf = (c: FakeContainer) => ({ files: c.files ??= fakeFiles(c.hostname, c.workingDir), hostname: c.hostname, env: c.env, cwd: c.workingDir });
  /** the shell of an exec: at the first, the container's files get what its mounts show (read from the API then) */
  const execShellOf = async (c: FakeContainer) => {
    if (c.mountedFiles) {
      c.filesMade ??= c.mountedFiles().catch(() => [] as MountedFile[]).then((mounted) => {
        const files = c.files ??= fakeFiles(c.hostname, c.workingDir);
        for (const f of mounted) addFile(files, f.path, f.data, f.mode);
      });
      await c.filesMade;
    }
    return shellOf(c);
  };

  /** an annotation for one container (`key.<container>`) wins over the pod-wide one */
  const setting = (annotations: Record<string, string>, container: string, what: string) => {
    const key = fakeAnnotation(names, what);
    return annotations[`${key}.${container}`] ?? annotations[key];
  };
  const imageId = (image: string) => `sha256:${Buffer.from(image).toString('hex').padEnd(64, '0').slice(0, 64)}`;
  const imageOf = (image: string): ImageInfo => {
    const ref = imageId(image);
    let i = images.get(ref);
    if (!i) images.set(ref, (i = { id: ref, names: [image], size: 1_000_000 + image.length }));
    return i;
  };
  /** CPU time accrues at the container's rate while it runs */
  const sample = (c: FakeContainer, now: number) => {
    if (c.state === 'running') c.cpuNanos += (now - c.sampledAt) * 1e6 * c.cpuCores;
    c.sampledAt = now;
  };

  const self: ContainerRuntime = {
    async version() {
      return { name: 'fake', version: '1.0.0' };
    },
    async ready() {},
    async status() {
      const ok = { status: true, reason: '', message: '' };
      return { runtimeReady: ok, networkReady: ok };
    },
    // the node's own range (its spec.podCIDR), as the reference passes it to the runtime; --pod-cidr stays in force
    async updatePodCidr(cidr) {
      if (o.podCidr || cidr === range) return;
      range = cidr;
      pool = addressPool(cidr);
    },
    async runSandbox(c: SandboxConfig) {
      // ids made in one piece (hex, join): a string built by concatenation is kept as a tree of its parts
      const id = randomBytes(16).toString('hex');
      const ip = c.hostNetwork ? undefined : pool?.allocate(id);
      if (!c.hostNetwork && pool && !ip) throw new Error(`no address left in the pod range ${range} of node ${nodeName}`);
      if (ip) poolOf.set(id, pool!);
      sandboxes.set(id, { id, uid: c.uid, name: c.name, namespace: c.namespace, attempt: c.attempt, ready: true, createdAt: Date.now(), ip, annotations: c.annotations });
      return id;
    },
    async stopSandbox(id) {
      const s = sandboxes.get(id);
      if (s) s.ready = false;
      release(id);
      for (const c of containers.values()) if (c.sandboxId === id) stop(c, 137, 'Error');
    },
    async removeSandbox(id) {
      sandboxes.delete(id);
      release(id);
      for (const c of [...containers.values()]) if (c.sandboxId === id) forget(c);
    },
    async listSandboxes() {
      return [...sandboxes.values()].map(({ annotations: _a, ...s }) => s);
    },
    async sandboxInfo(id) {
      const s = sandboxes.get(id);
      if (!s) return undefined;
      const { annotations: _a, ...info } = s;
      return info;
    },
    async ensureImage(image, policy, onPull) {
      // an image is on the node once a container used it: the first one (or any with policy Always) "pulls" it
      const present = images.has(imageId(image));
      if (policy === 'Never' && !present) throw new ImageNeverPulled(image);
      if (!present || policy === 'Always') onPull?.();
      return imageOf(image);
    },
    async listImages() {
      return [...images.values()];
    },
    async removeImage(id) {
      images.delete(id);
    },
    async createContainer(sandboxId, sandbox, c: ContainerConfig) {
      const made = sandboxes.get(sandboxId);
      if (!made) throw new Error(`sandbox ${sandboxId} not found`);
      const id = [nodeName, sandbox.uid, c.name, c.attempt].join('/');
      // the annotations the sandbox was made with, one object for all its containers
      const annotations = made.annotations;
      const cpu = setting(annotations, c.name, 'cpu-usage');
      const memory = setting(annotations, c.name, 'memory-usage');
      const now = Date.now();
      containers.set(id, {
        id, sandboxId, name: c.name, attempt: c.attempt, state: 'created', image: c.image, imageRef: imageOf(c.image).id,
        createdAt: now, labels: c.labels, annotations, logFile: join(sandbox.logDirectory, c.logPath),
        hostname: sandbox.hostname ?? sandbox.name, stdin: c.stdin, stdinOnce: c.stdinOnce, tty: c.tty,
        runsToCompletion: !!c.init || sandbox.labels[`batch.${names.labelDomain}/job-name`] !== undefined, argv: [...c.command, ...c.args],
        env: Object.fromEntries(c.env.map((e) => [e.name, e.value])), workingDir: c.workingDir || '/',
        cpuCores: cpu !== undefined ? parseQuantity(cpu) : Math.max(0.001, (c.resources.cpuShares * 1000) / 1024 / 1000),
        memoryBytes: memory !== undefined ? parseQuantity(memory) : c.resources.memoryLimitBytes ? Math.min(c.resources.memoryLimitBytes, defaultMemory) : defaultMemory,
        cpuNanos: 0, sampledAt: now, ...(c.mountedFiles ? { mountedFiles: c.mountedFiles } : {}),
      });
      return id;
    },
    async startContainer(id) {
      const c = containers.get(id);
      if (!c) throw new Error(`container ${id} not found`);
      c.state = 'running';
      c.startedAt = c.sampledAt = Date.now();
      const lines = setting(c.annotations, c.name, 'log');
      if (lines !== undefined) await appendLog(c, lines.split('\n'));
      const every = setting(c.annotations, c.name, 'log-every');
      if (every !== undefined) {
        const { parseDuration } = await import('../../config/flags.js');
        let n = 0;
        c.logTimer = setInterval(() => { appendLog(c, [`${c.name} line ${++n}`]).catch(() => undefined); }, Math.max(10, parseDuration(every)));
        c.logTimer.unref();
      }
      const exitCode = setting(c.annotations, c.name, 'exit-code');
      let runFor = setting(c.annotations, c.name, 'run-for');
      // a container that runs to completion: its command, unless an annotation sets how it ends
      if (c.runsToCompletion && runFor === undefined) {
        if (exitCode === undefined && c.argv.length) return runMain(c);
        runFor = '0s';
      }
      // one with stdin (`kubectl run -i`, `debug -i`) whose command the simulated shell knows runs it, reading what
      // attaches send: `sh` runs the lines it reads, `sh -c 'echo hi; exit 3'` exits 3, `cat` echoes; any other
      // (a loop, a program it does not know) keeps running and echoes its input
      if (c.stdin && runFor === undefined && exitCode === undefined && knownCommand(c.argv)) return runMain(c, true);
      if (runFor !== undefined) {
        const { parseDuration } = await import('../../config/flags.js');
        const code = Number(exitCode ?? 0);
        c.timer = setTimeout(() => stop(c, code, code === 0 ? 'Completed' : 'Error'), parseDuration(runFor));
        c.timer.unref();
      }
    },
    async stopContainer(id) {
      const c = containers.get(id);
      if (c) stop(c, 137, 'Error');
    },
    async updateContainerResources(id) {
      if (!containers.has(id)) throw new Error(`container ${id} not found`);
    },
    async removeContainer(id) {
      const c = containers.get(id);
      if (c) forget(c);
    },
    onContainerExit(changed) {
      exitListeners.push(changed);
    },
    async listContainers(sandboxId) {
      const all = [...containers.values()];
      return (sandboxId ? all.filter((c) => c.sandboxId === sandboxId) : all).map(info);
    },
    async execSync(id, command, timeoutSeconds) {
      const c = containers.get(id);
      if (!c || c.state !== 'running') throw new Error(`container ${id} is not running`);
      // the simulated shell, as exec runs it (lifecycle hooks, /run): its output collected
      const out = { stdout: '', stderr: '' };
      const sink = (key: keyof typeof out) => new Writable({ write(chunk, _enc, done) { out[key] += String(chunk); done(); } });
      const signal = timeoutSeconds > 0 ? AbortSignal.timeout(timeoutSeconds * 1000) : new AbortController().signal;
      const exitCode = await fakeExec(await execShellOf(c), command,
        { stdout: sink('stdout'), stderr: sink('stderr'), tty: false, resizes: new EventEmitter(), signal });
      return { ...out, exitCode };
    },
    async containerStats() {
      const now = Date.now();
      const out: ContainerStats[] = [];
      for (const c of containers.values()) {
        if (c.state !== 'running') continue;
        sample(c, now);
        out.push({
          id: c.id, name: c.name, timestamp: now,
          // the rate is known: summaries need no earlier sample to tell it
          cpu: { usageCoreNanoSeconds: Math.round(c.cpuNanos), usageNanoCores: Math.round(c.cpuCores * 1e9) },
          memory: { workingSetBytes: Math.round(c.memoryBytes), usageBytes: Math.round(c.memoryBytes), rssBytes: Math.round(c.memoryBytes) },
          writableLayer: { usedBytes: 4096, inodesUsed: 1 },
        });
      }
      return out;
    },
    async probe(container, sandbox, kind, probe) {
      const c = containers.get(container.id);
      const value = c && setting(c.annotations, c.name, kind === 'readiness' ? 'ready' : kind);
      const ok = !(value === 'fail' || value === 'false');
      return { ok, output: ok ? '' : failedProbeOutput(probe, sandbox.ip ?? '127.0.0.1') };
    },
    logPath(container) {
      return containers.get(container.id)?.logFile;
    },
    async execStream(id, command, io) {
      const c = containers.get(id);
      if (!c || c.state !== 'running') return { error: `container not found ("${id.split('/')[2] ?? id}")` };
      return { exitCode: await fakeExec(await execShellOf(c), command, io) };
    },
    async attachStream(id, io) {
      const c = containers.get(id);
      if (!c || c.state !== 'running') return { error: `container not found ("${id.split('/')[2] ?? id}")` };
      // what the container writes from now on goes to the client too, as it goes to its log
      const newline = io.tty ? '\r\n' : '\n';
      const to = (stream: 'stdout' | 'stderr') => (stream === 'stderr' && !io.tty ? io.stderr : io.stdout);
      const follow = (stream: 'stdout' | 'stderr', lines: string[]) => to(stream)?.write(lines.map((l) => l + newline).join(''));
      // what a main process in the simulated shell writes goes as it is (a prompt, a terminal's echo)
      const raw = (stream: 'stdout' | 'stderr', text: string) => to(stream)?.write(text);
      (c.output ??= new EventEmitter()).on('lines', follow).on('data', raw);
      // the simulated main process echoes what it reads, to the client and to its log, as `cat` would
      const echo = c.input ? feed(c, c.input, io) : (async () => {
        if (!c.stdin || !io.stdin) return;
        for await (const chunk of io.stdin) {
          const text = (chunk as Buffer).toString('utf8');
          // on a terminal, ^D is the end of input (the line discipline's EOF)
          const end = io.tty ? text.indexOf('\x04') : -1;
          const read = end < 0 ? text : text.slice(0, end);
          if (read) {
            io.stdout?.write(read);
            await appendLog(c, read.replace(/\r?\n$/, '').split(/\r?\n/), 'stdout', false);
          }
          if (end >= 0) break;
        }
        // with stdinOnce the runtime closes stdin as this first attach ends, so `cat` reads its end and exits,
        // and the pod of `kubectl run -i --rm` completes
        if (c.stdinOnce) stop(c, 0, 'Completed');
      })();
      await Promise.race([
        new Promise(resolve => (c.stopped ??= new EventEmitter()).once('stop', resolve)),
        new Promise(resolve => io.signal.addEventListener('abort', resolve, { once: true })),
        c.stdin && io.stdin ? echo : new Promise(() => undefined),
      ]).finally(() => c.output?.off('lines', follow).off('data', raw));
      // an attach ends well whatever the container's exit code, as the CRI's does (kubectl run reads the code from the
      // pod's status)
      return { exitCode: 0 };
    },
    async openPort(sandboxId, port) {
      const s = sandboxes.get(sandboxId);
      if (!s) throw new Error(`sandbox ${sandboxId} not found`);
      // a host-network pod shares the node's ports; any other simulated pod answers HTTP with what it was asked
      if (!s.ip) return connectTo(port);
      return simulatedHttp(`simulated pod ${s.namespace}/${s.name}, port ${port}`);
    },
    close() {
      for (const c of containers.values()) { clearTimeout(c.timer); clearInterval(c.logTimer); }
    },
  };
  return self;

  function info(c: FakeContainer): ContainerInfo {
    const { env: _env, workingDir: _w, timer: _t, annotations: _a, cpuCores: _c, memoryBytes: _m, cpuNanos: _n, sampledAt: _s, logTimer: _l, logFile: _f, files: _fs, mountedFiles: _mf, filesMade: _fm, hostname: _h, stdin: _i, stdinOnce: _o, stopped: _e, output: _out, runsToCompletion: _r, argv: _v, main: _p, ...rest } = c;
    return rest;
  }

  /** the main process of a container that runs to completion: its command in the simulated shell, which takes the
   *  programs it does not know as done; what it writes goes to the container's log */
  function runMain(c: FakeContainer, readsStdin = false) {
    const main = (c.main = new AbortController());
    const log = (stream: 'stdout' | 'stderr') => new Writable({
      write(chunk, _enc, done) {
        const text = String(chunk);
        c.output?.emit('data', stream, text);
        appendRaw(c, text, stream).then(() => done(), done);
      },
    });
    const tty = readsStdin && c.tty;
    const stdin = readsStdin ? (c.input = new PassThrough()) : undefined;
    const io = { stdin, stdout: log('stdout'), stderr: log('stderr'), tty, resizes: new EventEmitter(), signal: main.signal };
    // a program it does not know is done, for one that runs to completion; a shell reading stdin says it is not found
    void fakeExec({ ...shellOf(c), unknownSucceeds: !readsStdin }, c.argv, io).catch(() => 1)
      .then((code) => { if (!main.signal.aborted) stop(c, code, code === 0 ? 'Completed' : 'Error'); });
  }

  function stop(c: FakeContainer, exitCode: number, reason: string) {
    c.main?.abort();
    c.input?.end();
    clearTimeout(c.timer);
    clearInterval(c.logTimer);
    if (c.state !== 'running' && c.state !== 'created') return;
    sample(c, Date.now());
    c.state = 'exited';
    c.exitCode = exitCode;
    c.reason = reason;
    c.finishedAt = Date.now();
    c.stopped?.emit('stop');
    for (const changed of exitListeners) changed();
  }

  function forget(c: FakeContainer) {
    c.main?.abort();
    clearTimeout(c.timer);
    clearInterval(c.logTimer);
    containers.delete(c.id);
  }
}

/** appends lines to a container's log in the CRI format, and tells the attached clients (but for the echo of their
 *  own input, which the echo already wrote to its client) */
async function appendLog(c: { logFile: string; output?: EventEmitter }, lines: string[], stream: 'stdout' | 'stderr' = 'stdout', tell = true) {
  if (tell) c.output?.emit('lines', stream, lines);
  await mkdir(dirname(c.logFile), { recursive: true });
  const now = new Date().toISOString();
  await appendFile(c.logFile, lines.map((l) => `${now} ${stream} F ${l}\n`).join(''));
}

/** what the reference's prober says of a failed probe of this kind (an exec probe's command printed nothing) */
function failedProbeOutput(probe: Probe, ip: string): string {
  if (probe.httpGet) return 'HTTP probe failed with statuscode: 500';
  if (probe.tcpSocket) return `dial tcp ${ip}:${probe.tcpSocket.port}: connect: connection refused`;
  if (probe.grpc) return 'service unhealthy (responded with "NOT_SERVING")';
  return '';
}

/** appends what a main process wrote to its log: whole lines, and a line it has not ended yet as a partial one */
async function appendRaw(c: { logFile: string }, text: string, stream: 'stdout' | 'stderr') {
  const pieces = text.split(/\r?\n/);
  const last = pieces.pop()!;
  const now = new Date().toISOString();
  const entries = [...pieces.map((l) => `${now} ${stream} F ${l}\n`), ...(last ? [`${now} ${stream} P ${last}\n`] : [])];
  if (!entries.length) return;
  await mkdir(dirname(c.logFile), { recursive: true });
  await appendFile(c.logFile, entries.join(''));
}

/** passes what an attach sends to the stdin of the container's main process; with stdinOnce, the end of the first
 *  attach's input is the end of that stdin */
async function feed(c: { stdinOnce: boolean }, input: PassThrough, io: { stdin?: NodeJS.ReadableStream }): Promise<never> {
  if (io.stdin) {
    try {
      for await (const chunk of io.stdin) if (!input.writableEnded) input.write(chunk);
    } catch { /* the client went away: its input ends there */ }
    if (c.stdinOnce) input.end();
  }
  // the attach lasts until the container stops (having read that end, or not) or the client goes
  return new Promise<never>(() => undefined);
}

function connectTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => resolve(s)).once('error', reject);
  });
}

/** a connection to a one-off HTTP server that answers every request with `who` and the request */
async function simulatedHttp(who: string): Promise<Socket> {
  const server = createHttpServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${who}: ${req.method} ${req.url}\n`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = await connectTo((server.address() as AddressInfo).port);
  server.close();
  socket.once('close', () => server.closeAllConnections());
  return socket;
}
