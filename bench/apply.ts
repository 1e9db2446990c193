// Server-side apply benchmark: applying a Deployment with 50 containers against updating the same object (PUT),
// both through the API server over HTTPS in the same run. Each request changes one container's image, so every
// write stores a new version and records managed fields.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUND_MS, call, expectOk, fmt, rate, row, startApi, versus } from './support.js';

const containers = 50;
const deployment = (name: string, image: string, resourceVersion?: string) => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name, namespace: 'default', ...(resourceVersion ? { resourceVersion } : {}) },
  spec: {
    replicas: 1, selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: Array.from({ length: containers }, (_, i) => ({
          name: `c${i}`, image: i === 0 ? image : `busybox:${i}`,
          ports: [{ containerPort: 8000 + i, name: `p${i}` }], env: [{ name: 'INDEX', value: String(i) }],
          resources: { limits: { cpu: '100m', memory: '64Mi' } },
        })),
      },
    },
  },
});

export async function applyBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-apply-'));
  const api = await startApi(dir, 'memory');
  try {
    const setup = new Agent({ keepAlive: true });
    const base = '/apis/apps/v1/namespaces/default/deployments';
    await expectOk(call(setup, api.port, 'POST', base, JSON.stringify(deployment('updated', 'busybox:0'))), 201);
    await expectOk(call(setup, api.port, 'PATCH', `${base}/applied?fieldManager=bench`, JSON.stringify(deployment('applied', 'busybox:0')), 'application/apply-patch+yaml'), 201);
    setup.destroy();
    // one writer each; the update is a PUT of the whole object without a resourceVersion (as a client holding
    // its own copy sends it), the apply a PATCH of the whole configuration: one request each
    const update = (agent: Agent, port: number, i: number) =>
      expectOk(call(agent, port, 'PUT', `${base}/updated?fieldManager=bench`, JSON.stringify(deployment('updated', `busybox:u${i}`))), 200);
    const applyOnce = (agent: Agent, port: number, i: number) =>
      expectOk(call(agent, port, 'PATCH', `${base}/applied?fieldManager=bench`, JSON.stringify(deployment('applied', `busybox:a${i}`)), 'application/apply-patch+yaml'), 200);
    const [applyRate, updateRate] = await versus(() => rate(api.port, 1, applyOnce, ROUND_MS), () => rate(api.port, 1, update, ROUND_MS));
    const ratio = updateRate / applyRate;
    return [
      `A Deployment with ${containers} containers (ports, env, limits each) on the memory store; each request changes one image.`,
      'Update: PUT of the whole object. Apply: PATCH with application/apply-patch+yaml of the whole configuration. One writer, one request each.',
      '',
      row(['measure', 'apply', 'update', 'apply time / update time', 'target']),
      row(['---', '---:', '---:', '---:', '---']),
      row(['writes per second, one writer', fmt(applyRate), fmt(updateRate), `${ratio.toFixed(2)}x`, `≤ 3x: ${ratio <= 3 ? 'met' : '**missed**'}`]),
    ].join('\n');
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
