// Admission benchmark: Pod create throughput of three API servers in the same run (child processes, on SQLite, the
// default storage, then in memory; 64 requests in flight): with no admission plugin at all, with the plugins on by
// default, and with the defaults plus three admission webhooks (one mutating, two validating; served over HTTP/2 by a
// child process of its own, bench/servers/webhook.ts) and three bound ValidatingAdmissionPolicies. The bar:
// each at least 0.6x the server with no admission.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensurePki } from '../src/pki/pki.js';
import { admissionPlugins } from '../src/admission/registry.js';
import { defaultApiDomain, naming } from '../src/api/naming.js';
import { ROUNDS, call, expectOk, fmt, rate, root, row, start, startApi, type Child } from './support.js';

const webhookServer = join(root, 'bench/servers/webhook.js');
const webhookClient = join(root, 'bench/servers/webhook-client.js');

const CONCURRENCY = 64;
/** long rounds: the CPU time of a process is counted in ticks of 10 ms */
const ROUND_MS = 4000;
const names = naming(defaultApiDomain);
const registration = names.group('admissionregistration');

const pod = (i: number) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'bench-', labels: { app: 'bench', i: String(i % 10) } },
  spec: { containers: [{ name: 'app', image: 'registry.example/app:1.0', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
});

/** the AdmissionReview server that allows everything (bench/servers/webhook.ts), in a child process of its own */
export async function allowingWebhook(dir: string) {
  const pkiDir = join(dir, 'webhook-pki');
  const pki = await ensurePki(pkiDir, { hosts: ['127.0.0.1'] });
  const child = await start([webhookServer, pkiDir], /listening (\d+)/, dir);
  return { url: `https://127.0.0.1:${child.port}`, caBundle: Buffer.from(pki.caCertPem).toString('base64'), pid: child.proc.pid!, close: child.stop };
}

/** CPU time per call of a bare Node HTTP/2 client of the webhook server (bench/servers/webhook-client.ts, a process of
 *  its own), sending reviews of `pod` as many at a time as the creates: what any Node process pays for the calls */
async function bareClientCpuPerCall(hook: { url: string; caBundle: string }, pod: string): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath,
    [webhookClient, `${hook.url}/bare`, hook.caBundle, String(CONCURRENCY), String(ROUND_MS), `${names.group('admission')}/v1`, pod]);
  const { calls, cpuMs } = JSON.parse(stdout) as { calls: number; cpuMs: number };
  return (cpuMs / calls) * 1000;
}

/** three webhooks and three bound policies on Pod creation, all of which the bench pods pass */
export async function addWebhooksAndPolicies(agent: Agent, port: number, hook: { url: string; caBundle: string }) {
  const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }];
  const webhook = (name: string) => ({ name: `${name}.bench.example`, clientConfig: { url: `${hook.url}/${name}`, caBundle: hook.caBundle },
    rules, sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail' });
  const post = (path: string, body: unknown) => expectOk(call(agent, port, 'POST', path, JSON.stringify(body)), 201);
  await post(`/apis/${registration}/v1/mutatingwebhookconfigurations`, { metadata: { name: 'bench-mutating' }, webhooks: [webhook('mutate')] });
  await post(`/apis/${registration}/v1/validatingwebhookconfigurations`, { metadata: { name: 'bench-validating' },
    webhooks: [webhook('validate-a'), webhook('validate-b')] });
  const validations = [
    [{ expression: 'object.spec.containers.size() <= 8', message: 'at most 8 containers' }],
    [{ expression: "object.spec.containers.all(c, !c.image.endsWith(':latest'))", message: 'no latest images' }],
    [{ expression: "has(object.metadata.labels) && 'app' in object.metadata.labels", messageExpression: "'pod ' + object.metadata.generateName + ' needs an app label'" }],
  ];
  for (const [i, v] of validations.entries()) {
    await post(`/apis/${registration}/v1alpha1/validatingadmissionpolicies`, { metadata: { name: `bench-${i}` },
      spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: rules }, validations: v } });
    await post(`/apis/${registration}/v1alpha1/validatingadmissionpolicybindings`, { metadata: { name: `bench-${i}` },
      spec: { policyName: `bench-${i}`, validationActions: ['Deny'] } });
  }
  // the policies are in force once a pod without its label is refused
  const unlabelled = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'probe-' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
  for (let i = 0; ; i++) {
    const r = await call(agent, port, 'POST', '/api/v1/namespaces/default/pods', unlabelled);
    if (r.status !== 201) break;
    if (i > 400) throw new Error('the policies did not take effect');
    await new Promise(r => setTimeout(r, 25));
  }
}

/** CPU time (user and system) a process has used, in milliseconds */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** ADMISSION_BENCH_STORAGE=sqlite|memory measures one backend only; ADMISSION_BENCH_PROFILE=<dir> writes a CPU profile
 *  of each server with webhooks and policies there (`node --cpu-prof`, the server stopped gracefully at the end) */
const only = process.env.ADMISSION_BENCH_STORAGE;
const profileDir = process.env.ADMISSION_BENCH_PROFILE;

export async function admissionBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-admission-'));
  const hook = await allowingWebhook(dir);
  try {
    const sections: string[] = [];
    // the default storage first, then memory, where admission is the larger share of a create
    for (const storage of ['sqlite', 'memory'] as const)
      if (!only || only === storage) sections.push(await compare(storage, mkdtempSync(join(dir, `${storage}-`)), hook));
    return [
      `Pod create, ${CONCURRENCY} requests in flight on connections opened in a warm-up round, ${ROUNDS} rounds of ${ROUND_MS / 1000} s `
        + 'per server, the three servers in turn; the servers run alone, without their in-process scheduler, controller manager and '
        + 'metrics server (the scheduler and controller manager would keep working on the unschedulable pods). Creates per CPU second count the API server process\'s own CPU time (the webhook server runs '
        + 'in a process of its own, as a webhook always does); on a machine other work keeps busy it is the steadier figure.',
      '',
      ...sections,
    ].join('\n');
  } finally {
    await hook.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** the three servers on one storage backend, measured in turn */
async function compare(storage: 'sqlite' | 'memory', dir: string, hook: { url: string; caBundle: string; pid: number }): Promise<string> {
  const children: Child[] = [];
  try {
    const defaults = admissionPlugins.filter(p => p.defaultOn).map(p => p.name);
    // each server alone (startApi), as in the API suite: an in-process scheduler and controller manager would keep working
    // on the thousands of pods made here, which can never be scheduled, and the metrics server's watch of them would add
    // its own cost to every create
    const none = await startApi(mkdtempSync(join(dir, 'none-')), storage, [`--disable-admission-plugins=${defaults.join(',')}`,
      `--runtime-config=${registration}/v1=false`]);
    children.push(none);
    const standard = await startApi(mkdtempSync(join(dir, 'defaults-')), storage, []);
    children.push(standard);
    const full = await startApi(mkdtempSync(join(dir, 'full-')), storage, ['--feature-gates=ValidatingAdmissionPolicy=true',
      `--runtime-config=${registration}/v1alpha1=true`], profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    children.push(full);
    const setup = new Agent({ keepAlive: true });
    // the namespace's default service account, as the controller manager (not run here) would make it
    for (const s of [none, standard, full]) {
      const made = await call(setup, s.port, 'POST', '/api/v1/namespaces/default/serviceaccounts', JSON.stringify({ metadata: { name: 'default' } }));
      if (made.status !== 201 && made.status !== 409) throw new Error(`creating the default service account: ${made.status} ${made.text.slice(0, 200)}`);
    }
    await addWebhooksAndPolicies(setup, full.port, hook);
    setup.destroy();

    const create = (agent: Agent, port: number, i: number) => expectOk(call(agent, port, 'POST', '/api/v1/namespaces/default/pods', pod(i)), 201);
    const servers = [none, standard, full];
    const rates = servers.map(() => 0), cpu = servers.map(() => 0), created = servers.map(() => 0);
    let hookCpu = 0;
    // each server keeps its clients' connections from the warm-up on: a round measures creates, not TLS handshakes
    // (64 of them a round would weigh most on the slowest server's figures)
    const agents = servers.map(() => new Agent({ keepAlive: true, maxSockets: CONCURRENCY }));
    for (const [i, s] of servers.entries()) await rate(s.port, CONCURRENCY, create, ROUND_MS, agents[i]);   // warm-up
    // rounds rotate the order, so no server always runs first or last
    for (let round = 0; round < ROUNDS; round++)
      for (let k = 0; k < servers.length; k++) {
        const i = (round + k) % servers.length, pid = servers[i]!.proc.pid!;
        const before = cpuMs(pid), hookBefore = cpuMs(hook.pid);
        const r = await rate(servers[i]!.port, CONCURRENCY, create, ROUND_MS, agents[i]);
        cpu[i] += cpuMs(pid) - before;
        if (servers[i] === full) hookCpu += cpuMs(hook.pid) - hookBefore;
        rates[i] += r;
        created[i] += r * ROUND_MS / 1000;
      }
    // a pod as the webhooks are sent it (defaulted, with its managed fields), for the bare client's reviews
    const sent = (await create(agents[2]!, full.port, 0)).text;
    for (const a of agents) a.destroy();
    const bareCall = await bareClientCpuPerCall(hook, sent);
    if (profileDir) {
      // the profile is written when the process ends of itself
      await new Promise(r => { full.proc.once('exit', r); full.proc.kill('SIGTERM'); });
      children.pop();
    }
    const perSecond = rates.map(t => t / ROUNDS);
    // creates per second of the server's own CPU: what a server that has the cores to itself would reach
    const perCpuSecond = created.map((n, i) => (n / cpu[i]!) * 1000);
    const perCreate = perCpuSecond.map(n => 1e6 / n);
    const labels = ['no admission plugin', `the ${defaults.length} plugins on by default`,
      'defaults, 3 webhooks (1 mutating, 2 validating) and 3 bound policies'];
    return [
      `### ${storage} storage${storage === 'sqlite' ? ' (the default)' : ''}`,
      '',
      row(['server', 'creates per second', 'ratio', 'creates per CPU second', 'ratio (bar: at least 0.6)']),
      row(['---', '---', '---', '---', '---']),
      ...labels.map((label, i) => row([label, fmt(perSecond[i]!), (perSecond[i]! / perSecond[0]!).toFixed(2),
        fmt(perCpuSecond[i]!), (perCpuSecond[i]! / perCpuSecond[0]!).toFixed(2)])),
      '',
      `API server CPU per create: ${perCreate.map(fmt).join(', ')} µs (the rows in order); at 0.6x a create may cost at most `
        + `${fmt(perCreate[0]! / 0.6)} µs. The webhook server spent ${fmt((hookCpu / created[2]!) * 1000)} µs on the three calls of a create. `
        + `A bare Node HTTP/2 client of the same webhook server (a process of its own, ${CONCURRENCY} calls in flight, reviews of the same pod) `
        + `spent ${fmt(bareCall)} µs per call: ${fmt(3 * bareCall)} µs for three, what the calls cost any Node client.`,
      '',
    ].join('\n');
  } finally {
    await Promise.all(children.map(c => c.stop()));
  }
}
