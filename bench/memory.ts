// The API server's resident memory holding many Pods, against the bytes of their stored JSON (issue 20: ≤ 5x with
// 60,000 Pods). The server runs alone on SQLite; the Pods are what a Deployment's ReplicaSet makes (labels, an owner,
// a container with env, ports, a probe and resources), about 3.5 KB each as stored with the defaults and managed fields. Sizes from MEMORY_PODS.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, fmt, row, startApi } from './support.js';

const PODS = Number(process.env.MEMORY_PODS ?? 60_000);
const NAMESPACES = 10;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

export function benchPod(i: number) {
  const app = `app-${i % 50}`;
  const container = (name: string, port: number) => ({
    name, image: `registry.example.com/team/${app}/${name}:1.${i % 7}.3`,
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'UPSTREAM', value: `http://${app}-upstream.svc:8080` }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
    readinessProbe: { httpGet: { path: '/healthz', port } , periodSeconds: 10 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
  });
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `${app}-7d9f8c6b5-${i.toString(36).padStart(5, '0')}`,
      labels: { app, 'pod-template-hash': '7d9f8c6b5', tier: 'backend' },
      annotations: { 'example.com/owner': 'team-a', 'example.com/revision': String(i % 13) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-7d9f8c6b5`, uid: `00000000-0000-4000-8000-${String(i % 50).padStart(12, '0')}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [container('main', 8080)],
      volumes: [{ name: 'config', configMap: { name: `${app}-config` } }],
      nodeName: `node-${i % 1000}`,
    },
  };
}

export async function memoryBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const api = await startApi(dir, 'sqlite');
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  try {
    await new Promise(r => setTimeout(r, 1000));
    const idle = rssMiB(api.proc.pid!);
    for (let n = 0; n < NAMESPACES; n++) {
      await call(agent, api.port, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: `ns-${n}` } }));
    }
    // a watch of every Pod, as the scheduler and controllers keep one: the server then keeps the Pods in its watch cache
    let events = 0;
    const watch = request({ host: '127.0.0.1', port: api.port, path: '/api/v1/pods?watch=1', rejectUnauthorized: false },
      res => res.on('data', (d: Buffer) => { for (const b of d) if (b === 0x0a) events++; }));
    watch.on('error', () => {});
    watch.end();
    let next = 0;
    let peak = idle;
    const started = Date.now();
    await Promise.all(Array.from({ length: 64 }, async () => {
      for (let i = next++; i < PODS; i = next++) {
        const res = await call(agent, api.port, 'POST', `/api/v1/namespaces/ns-${i % NAMESPACES}/pods?fieldManager=bench`, JSON.stringify(benchPod(i)));
        if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.text.slice(0, 300)}`);
        if (i % 1000 === 0) peak = Math.max(peak, rssMiB(api.proc.pid!));
      }
    }));
    const createSeconds = (Date.now() - started) / 1000;
    // the stored JSON of each Pod, as a list gives it back, page by page
    let storedBytes = 0, count = 0, cont = '';
    do {
      const res = await call(agent, api.port, 'GET', `/api/v1/pods?limit=5000${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      const list = JSON.parse(res.text) as { items: unknown[]; metadata: { continue?: string } };
      for (const item of list.items) storedBytes += Buffer.byteLength(JSON.stringify(item));
      count += list.items.length;
      cont = list.metadata.continue ?? '';
    } while (cont);
    for (let waited = 0; events < PODS && waited < 60_000; waited += 100) await new Promise(r => setTimeout(r, 100));
    await new Promise(r => setTimeout(r, 3000));
    const held = rssMiB(api.proc.pid!);
    watch.destroy();
    peak = Math.max(peak, held);
    const ratio = (held * 1024 * 1024) / storedBytes;
    return [
      `\`MEMORY_PODS=${PODS} node dist/bench/run.js memory\`: the API server alone on SQLite (as \`startApi\` runs it), ${fmt(PODS)} Pods of a`,
      'Deployment-like template in 10 namespaces created at 64 connections over HTTPS while a watch of all Pods is open (as',
      'the scheduler\'s is: the server keeps them in its watch cache), then read back in pages of 5,000.',
      '"Stored JSON" sums the bytes of each Pod as the list returns it (managed fields included).',
      '',
      row(['measure', 'value', 'target']),
      row(['---', '---:', '---']),
      row(['Pods created / read back / watch events received', `${fmt(PODS)} / ${fmt(count)} / ${fmt(events)} (${fmt(PODS / createSeconds)} creates/s)`, '']),
      row(['stored JSON of the Pods (MiB)', fmt(storedBytes / 1024 / 1024), `${fmt(storedBytes / count)} bytes a Pod`]),
      row(['API server resident memory, idle before / holding the Pods / peak (MiB)', `${fmt(idle)} / ${fmt(held)} / ${fmt(peak)}`, '']),
      row(['resident memory per Pod held (bytes, above idle)', fmt(((held - idle) * 1024 * 1024) / count), '']),
      row(['**resident memory / stored JSON**', `**${ratio.toFixed(2)}x**`, `≤ 5x: ${ratio <= 5 ? 'met' : '**missed**'}`]),
    ].join('\n');
  } finally {
    agent.destroy();
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
