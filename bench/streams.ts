// Node streams benchmark: the API server (memory storage) and an agent on the fake runtime, in this process. A pod's
// log of 32 MiB is read whole, and `echo` is exec'd over WebSocket (v4.channel.k8s.io) one at a time, each both
// directly from the agent's server and through the API server's pods/log and pods/exec, in alternating rounds: the
// ratio is what the extra hop (authentication, authorization, the proxy) costs.
import { mkdtempSync, mkdirSync, rmSync, appendFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { startTestServer } from '../src/testing.js';
import { parseAgentOptions } from '../src/agent/options.js';
import { runAgent } from '../src/agent/agent.js';
import { startAgentServers } from '../src/agent/server.js';
import { clientFromFile } from '../src/client/rest-client.js';
import { podLogDirectory } from '../src/agent/sandbox.js';
import { fmt, row } from './support.js';

const LOG_BYTES = 32 * 2 ** 20;
const EXECS = 200;
const ROUNDS = 3;
const quiet = { info() {}, warn() {}, error() {}, close() {} };

interface Tls { cert?: string; key?: string; ca?: string }

/** reads a whole response; resolves with its size in bytes */
function readAll(url: string, tls: Tls): Promise<number> {
  return new Promise((resolve, reject) => {
    httpsRequest(url, { ...tls, rejectUnauthorized: false, agent: false }, res => {
      let n = 0;
      if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
      res.on('data', (d: Buffer) => { n += d.length; });
      res.on('end', () => resolve(n));
    }).on('error', reject).end();
  });
}

/** one exec of `echo hi` over WebSocket: resolves when the server has closed it */
function execOnce(url: string, tls: Tls): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['v4.channel.k8s.io'], { ...tls, rejectUnauthorized: false });
    let out = '';
    ws.on('message', (m: Buffer) => { if (m[0] === 1) out += m.subarray(1).toString(); });
    ws.on('error', reject);
    ws.on('close', () => (out === 'hi\n' ? resolve() : reject(new Error(`exec answered ${JSON.stringify(out)}`))));
  });
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function streamsBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'streams-bench-'));
  const server = await startTestServer({ apiDomain: 'k8s.io' });
  const client = await clientFromFile(server.kubeconfig, { qps: 0 });
  const servers: { close(): Promise<void> }[] = [];
  let stopAgent = async () => {};
  try {
    writeFileSync(join(dir, 'ca.crt'), server.caCertPem);
    await client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, 'default').create({ metadata: { name: 'default' } }).catch(() => {});
    const port = 20000 + Math.floor(Math.random() * 30000);
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--api-domain=k8s.io', '--hostname-override=bench-node', `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`, '--address=127.0.0.1', `--port=${port}`, '--read-only-port=0', '--healthz-port=0', '--node-ip=127.0.0.1',
    ]);
    const agent = await runAgent(options, quiet);
    stopAgent = () => agent.stop();
    servers.push(await startAgentServers(options, agent.nodes, agent.client));
    const pods = client.resource({ group: '', version: 'v1', resource: 'pods' }, 'default');
    await pods.create({ metadata: { name: 'bench' }, spec: { nodeName: 'bench-node', containers: [{ name: 'c', image: 'busybox' }] } });
    let pod: any;
    for (;;) {
      pod = await pods.get('bench');
      if (pod.status?.phase === 'Running') break;
      await new Promise(r => setTimeout(r, 50));
    }
    // the log, written as the runtime writes it
    const file = join(podLogDirectory(options.rootDir, pod), 'c', '0.log');
    const line = `${new Date().toISOString()} stdout F ${'x'.repeat(90)}\n`;
    const chunk = line.repeat(Math.ceil(2 ** 20 / line.length));
    mkdirSync(dirname(file), { recursive: true });
    for (let n = 0; n < LOG_BYTES; n += chunk.length) appendFileSync(file, chunk);

    const admin = { cert: server.adminCertPem, key: server.adminKeyPem };
    const direct = `https://127.0.0.1:${port}`;
    const api = server.url;
    const logVia = { agent: `${direct}/containerLogs/default/bench/c`, api: `${api}/api/v1/namespaces/default/pods/bench/log?container=c` };
    const execVia = {
      agent: `wss://127.0.0.1:${port}/exec/default/bench/c?command=echo&command=hi&output=1`,
      api: `wss://${api.replace(/^https:\/\//, '')}/api/v1/namespaces/default/pods/bench/exec?command=echo&command=hi&stdout=true&container=c`,
    };
    const tlsOf = (via: 'agent' | 'api') => (via === 'api' ? admin : {});

    const logRate = { agent: 0, api: 0 };
    const latencies = { agent: [] as number[], api: [] as number[] };
    for (let round = 0; round <= ROUNDS; round++) {
      const order: ('agent' | 'api')[] = round % 2 ? ['api', 'agent'] : ['agent', 'api'];
      for (const via of order) {
        const t0 = performance.now();
        const bytes = await readAll(logVia[via], tlsOf(via));
        const mbps = bytes / 2 ** 20 / ((performance.now() - t0) / 1000);
        if (round > 0) logRate[via] += mbps / ROUNDS; // round 0 warms up
        for (let i = 0; i < EXECS / ROUNDS; i++) {
          const s = performance.now();
          await execOnce(execVia[via], tlsOf(via));
          if (round > 0) latencies[via].push(performance.now() - s);
        }
      }
    }
    const lat = (via: 'agent' | 'api') => { const s = latencies[via].sort((a, b) => a - b); return `${fmt(pct(s, 50))} / ${fmt(pct(s, 99))}`; };
    return [
      'The API server (memory storage) and one agent on the fake runtime in this process; the agent\'s server with',
      'AlwaysAllow, the API server as the admin user. Logs: a 32 MiB CRI log read whole (GET, no follow). Exec: `echo hi`',
      `over WebSocket (\`v4.channel.k8s.io\`), one at a time, ${latencies.api.length} each way, connection set-up included.`,
      `Load average when it ended: ${loadavg()[0]!.toFixed(1)} (the machine is shared; the ratios are what counts).`,
      '',
      row(['measure', 'through the API server', 'from the agent directly', 'ratio']),
      row(['---', '---', '---', '---']),
      row(['log streaming (MiB/s)', fmt(logRate.api), fmt(logRate.agent), `${(logRate.api / logRate.agent).toFixed(2)}×`]),
      row(['exec round trip p50 / p99 (ms)', lat('api'), lat('agent'),
        `${(pct(latencies.api.sort((a, b) => a - b), 50) / pct(latencies.agent.sort((a, b) => a - b), 50)).toFixed(2)}× (p50)`]),
    ].join('\n');
  } finally {
    for (const s of servers) await s.close();
    await stopAgent();
    client.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
