// Large but legal objects: the API server's own CPU time (user + system, read from /proc/<pid>/stat around a batch
// of requests) for each verb on a ConfigMap and a Secret of 100,000 keys, a Pod of 5,000 containers with env, a
// custom resource holding a 1 MB nested document and an object with 20,000 labels and annotations.
// Run alone: `node dist/bench/run.js bigobj` (BIGOBJ_N requests per verb, default 3; BIGOBJ_ONLY=configmap,...).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { naming } from '../src/api/naming.js';
import { call, expectOk, row, startApi } from './support.js';

const names = naming();

const ticksPerMs = 100 / 1000;   // USER_HZ is 100 on Linux
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;   // utime, stime
}

interface Case { name: string; base: string; make(name: string, salt: string): Record<string, unknown>; patchKey: (salt: string) => unknown;
  /** what a replacing client changes in the stored object (a Pod's spec allows only images to change) */
  change(stored: any, salt: string): void; setup?: { path: string; body: unknown }[] }

const keys = (n: number, salt: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, salt]));
const cases: Case[] = [
  { name: 'configmap', base: '/api/v1/namespaces/default/configmaps',
    make: (name, salt) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: keys(100_000, salt) }),
    patchKey: salt => ({ data: { k7: salt } }),
    change: (o, salt) => { o.data = keys(100_000, salt); } },
  { name: 'secret', base: '/api/v1/namespaces/default/secrets',
    make: (name, salt) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: undefined,
      data: Object.fromEntries(Object.entries(keys(100_000, salt)).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) }),
    patchKey: salt => ({ data: { k7: Buffer.from(salt).toString('base64') } }),
    change: (o, salt) => { o.data = Object.fromEntries(Object.keys(o.data).map(k => [k, Buffer.from(salt).toString('base64')])); } },
  { name: 'pod-5k-containers', base: '/api/v1/namespaces/default/pods',
    make: (name, salt) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: Array.from({ length: 5000 }, (_, i) => ({
      name: `c${i}`, image: `busybox:${i}`, env: [{ name: 'A', value: salt }, { name: 'B', value: String(i) }] })) } }),
    patchKey: salt => ({ metadata: { labels: { salt } } }),
    change: (o, salt) => { for (const c of o.spec.containers) c.image = `busybox:${salt}`; } },
  { name: 'labels-20k', base: '/api/v1/namespaces/default/configmaps',
    make: (name, salt) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name,
      labels: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`l${i}`, `v${i}`])),
      annotations: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`example.com/a${i}`, `${salt}-${i}`])) } }),
    patchKey: salt => ({ metadata: { labels: { l7: salt } } }),
    change: (o, salt) => { for (const k of Object.keys(o.metadata.annotations)) o.metadata.annotations[k] = salt; } },
  { name: 'cr-1mb-nested', base: '/apis/bench.example.com/v1/namespaces/default/docs',
    setup: [{ path: `/apis/${names.group('apiextensions')}/v1/customresourcedefinitions`, body: {
      apiVersion: `${names.group('apiextensions')}/v1`, kind: 'CustomResourceDefinition', metadata: { name: 'docs.bench.example.com' },
      spec: { group: 'bench.example.com', scope: 'Namespaced', names: { plural: 'docs', singular: 'doc', kind: 'Doc', listKind: 'DocList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: {
          spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } } }] } } }],
    make: (name, salt) => ({ apiVersion: 'bench.example.com/v1', kind: 'Doc', metadata: { name }, spec: nested(salt) }),
    patchKey: salt => ({ spec: { n0: { n0: { leaf0: salt } } } }),
    change: (o, salt) => { o.spec = nested(salt); } },
];

/** about 1 MB: three levels of 20 objects, each leaf object holding 8 short strings */
function nested(salt: string) {
  const level = (d: number): Record<string, unknown> => d === 0
    ? Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`leaf${i}`, `${salt}-${i}`]))
    : Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}`, level(d - 1)]));
  return level(3);
}

export async function bigobjBench(): Promise<string> {
  const n = Number(process.env.BIGOBJ_N ?? 3);
  const only = process.env.BIGOBJ_ONLY?.split(',');
  const dir = mkdtempSync(join(tmpdir(), 'bench-bigobj-'));
  const api = await startApi(dir, 'memory', [], process.env.BIGOBJ_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BIGOBJ_PROF}`] : []);
  const pid = api.proc.pid!;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const lines = [
    `Server CPU (user + system of the API server process, ms per request, mean of ${n}) on the memory store.`, '',
    row(['object', 'body', 'create', 'get json', 'get yaml', 'get protobuf', 'update (PUT)', 'merge patch 1 key', 'apply (whole)', 'list', 'delete']),
    row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  try {
    for (const c of cases) {
      if (only && !only.includes(c.name)) continue;
      for (const s of c.setup ?? []) await expectOk(call(agent, api.port, 'POST', s.path, JSON.stringify(s.body)), 201);
      if (c.setup) await new Promise(r => setTimeout(r, 1500));   // the new resource is served a moment after
      const bodyBytes = JSON.stringify(c.make('x', 's0')).length;
      const measure = async (op: (i: number) => Promise<unknown>) => {
        await op(-1);   // warm-up
        const before = cpuMs(pid);
        for (let i = 0; i < n; i++) await op(i);
        return (cpuMs(pid) - before) / n;
      };
      const name = (i: number) => `o${i + 1}`;
      const create = await measure(i => expectOk(call(agent, api.port, 'POST', c.base, JSON.stringify(c.make(name(i), 's0'))), 201));
      const getJson = await measure(i => expectOk(call(agent, api.port, 'GET', `${c.base}/${name(i)}`), 200));
      const accept = (type: string) => (i: number) => new Promise((res, rej) => {
        import('node:https').then(({ request }) => {
          const req = request({ host: '127.0.0.1', port: api.port, path: `${c.base}/${name(i)}`, agent, rejectUnauthorized: false, headers: { Accept: type } }, r => {
            r.resume(); r.on('end', () => r.statusCode === 200 ? res(undefined) : rej(new Error(`${type}: ${r.statusCode}`)));
          });
          req.on('error', rej); req.end();
        }, rej);
      });
      const getYaml = await measure(accept('application/yaml'));
      const getProto = c.name.startsWith('cr-') ? NaN : await measure(accept(names.protobufMediaType));
      // a replacing client sends back what it read, changed; reading is measured above, so it is done beforehand
      const replacements = new Map<number, string>();
      for (let i = -1; i < n; i++) {
        const stored = JSON.parse((await expectOk(call(agent, api.port, 'GET', `${c.base}/${name(i)}`), 200)).text);
        c.change(stored, `u${i}`);
        replacements.set(i, JSON.stringify(stored));
      }
      const update = await measure(i => expectOk(call(agent, api.port, 'PUT', `${c.base}/${name(i)}`, replacements.get(i)), 200));
      const merge = await measure(i => expectOk(call(agent, api.port, 'PATCH', `${c.base}/${name(i)}`, JSON.stringify(c.patchKey(`m${i}`)), 'application/merge-patch+json'), 200));
      const apply = await measure(i => expectOk(call(agent, api.port, 'PATCH', `${c.base}/a${name(i)}?fieldManager=bench&force=true`, JSON.stringify(c.make(`a${name(i)}`, 'a0')), 'application/apply-patch+yaml'), 201));
      const list = await measure(() => expectOk(call(agent, api.port, 'GET', c.base), 200));
      const del = await measure(i => expectOk(call(agent, api.port, 'DELETE', `${c.base}/${name(i)}`), 200));
      console.error(c.name, 'done');
      lines.push(row([c.name, `${(bodyBytes / 1e6).toFixed(2)} MB`, ...[create, getJson, getYaml, getProto, update, merge, apply, list, del].map(v => Number.isNaN(v) ? '-' : Math.round(v))]));
      // clean up so the next case's list holds only its own objects
      for (let i = -1; i < n; i++) await call(agent, api.port, 'DELETE', `${c.base}/a${name(i)}`);
      await call(agent, api.port, 'DELETE', `${c.base}/${name(-1)}`);
    }
    return lines.join('\n');
  } finally {
    agent.destroy();
    // a profile is written when the process exits of itself, which it does on SIGTERM
    if (process.env.BIGOBJ_PROF) await new Promise(r => { api.proc.once('exit', r); api.proc.kill('SIGTERM'); });
    else await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
