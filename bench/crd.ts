// CRD benchmark: create throughput of a custom resource whose schema has five CEL validation rules against a
// ConfigMap carrying the same data, in the same server and run (in-process server, memory storage,
// 16 requests in flight). The bar: the custom resource at least 0.5x the ConfigMap.
import { request, Agent } from 'node:https';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../src/testing.js';

const CONCURRENCY = 16;
const ROUND_MS = 1500;

const rules = [
  { rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' },
  { rule: "self.name.matches('^[a-z][a-z0-9-]*$')" },
  { rule: 'self.tags.all(t, t.size() <= 16)' },
  { rule: "self.mode in ['fast', 'safe']" },
  { rule: "!has(self.note) || self.note.startsWith('n')", messageExpression: "'bad note: ' + self.note" },
];
const specSchema = {
  type: 'object', 'x-kubernetes-validations': rules,
  properties: {
    replicas: { type: 'integer' }, maxReplicas: { type: 'integer' }, name: { type: 'string', maxLength: 63 },
    tags: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 16 } }, mode: { type: 'string', maxLength: 8 },
    note: { type: 'string', maxLength: 64 },
  },
};
const spec = { replicas: 2, maxReplicas: 5, name: 'bench-widget', tags: ['a', 'bb', 'ccc', 'dddd'], mode: 'fast', note: 'n-ok' };

export async function crdBench(): Promise<string> {
  const server = await startTestServer({ storage: 'memory' });
  const agent = new Agent({ keepAlive: true, ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, maxSockets: CONCURRENCY });
  const base = new URL(server.url);
  const post = (path: string, body: unknown) => new Promise<number>((resolve, reject) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = request({ agent, host: base.hostname, port: base.port, method: 'POST', path,
      headers: { 'content-type': 'application/json', 'content-length': String(payload.length) } }, res => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(payload);
  });
  try {
    const group = 'bench.example.com';
    const crd = {
      apiVersion: `${server.names.group('apiextensions')}/v1`, kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema } } } }] },
    };
    const status = await post(`/apis/${server.names.group('apiextensions')}/v1/customresourcedefinitions`, crd);
    if (status !== 201) throw new Error(`CRD create: ${status}`);
    // wait until the resource is served
    for (let i = 0; i < 200; i++) {
      if (await post(`/apis/${group}/v1/namespaces/default/widgets`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `warm-${i}` }, spec }) === 201) break;
      await new Promise(r => setTimeout(r, 25));
    }
    let seq = 0;
    const round = async (make: () => [string, unknown]) => {
      const end = performance.now() + ROUND_MS;
      let done = 0;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < end) {
          const [path, body] = make();
          const s = await post(path, body);
          if (s !== 201) throw new Error(`create answered ${s}`);
          done++;
        }
      }));
      return done / (ROUND_MS / 1000);
    };
    const configMap = (): [string, unknown] => [`/api/v1/namespaces/default/configmaps`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${++seq}` }, data: { spec: JSON.stringify(spec) } }];
    const widget = (): [string, unknown] => [`/apis/${group}/v1/namespaces/default/widgets`,
      { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w-${++seq}` }, spec }];
    const cm: number[] = [], cr: number[] = [];
    for (let i = 0; i < 3; i++) { cm.push(await round(configMap)); cr.push(await round(widget)); }
    const best = (xs: number[]) => Math.max(...xs);
    const ratio = best(cr) / best(cm);
    return [
      '| create (memory storage, 16 in flight) | per second (best of 3 rounds of 1.5 s) |',
      '|---|---|',
      `| ConfigMap with the same data | ${best(cm).toFixed(0)} |`,
      `| custom resource with 5 CEL rules | ${best(cr).toFixed(0)} |`,
      `| ratio (bar: at least 0.5) | ${ratio.toFixed(2)} |`,
    ].join('\n');
  } finally {
    agent.destroy();
    await server.close();
  }
}
