// Cost of server-side apply against a plain update, for a Deployment with 50 containers.
// Run: node .build/<name>/src/apply/apply.bench.js
import { apply, updateManagedFields } from './managed-fields.js';
import * as S from './test-schemas.js';
import type { Obj } from './typed.js';

export function deployment(containers: number, image: string): Obj {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'big', namespace: 'default', labels: { app: 'big', tier: 'backend' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'big' } },
      template: {
        metadata: { labels: { app: 'big' } },
        spec: {
          containers: Array.from({ length: containers }, (_, i) => ({
            name: `c${i}`, image: i === 0 ? image : `img${i}:1`, args: ['--port', String(8000 + i)],
            env: [{ name: 'A', value: '1' }, { name: 'B', value: String(i) }],
            ports: [{ containerPort: 8000 + i }, { containerPort: 9000 + i, protocol: 'UDP' }],
            resources: { limits: { cpu: '100m', memory: '64Mi' }, requests: { cpu: '50m' } },
            volumeMounts: [{ name: 'data', mountPath: `/data/${i}` }],
          })),
        },
      },
    },
  };
}

export function measure(rounds: number) {
  const time = '2023-01-01T00:00:00Z';
  const live = apply(undefined, deployment(50, 'app:1'), { manager: 'kubectl', apiVersion: 'apps/v1', time }, S.deployment).object;
  const changed = deployment(50, 'app:2');
  const next = { ...changed, metadata: { ...(changed.metadata as Obj), managedFields: (live.metadata as Obj).managedFields } };
  const run = (f: () => unknown) => {
    for (let i = 0; i < 20; i++) f();
    const start = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) f();
    return Number(process.hrtime.bigint() - start) / 1e6 / rounds;
  };
  const update = run(() => updateManagedFields(live, next, { manager: 'editor', apiVersion: 'apps/v1', time }, S.deployment));
  const applied = run(() => apply(live, changed, { manager: 'kubectl', apiVersion: 'apps/v1', time }, S.deployment));
  const createUpdate = run(() => updateManagedFields(undefined, changed, { manager: 'editor', apiVersion: 'apps/v1', time }, S.deployment));
  const createApply = run(() => apply(undefined, changed, { manager: 'kubectl', apiVersion: 'apps/v1', time }, S.deployment));
  return { update, apply: applied, ratio: applied / update, createUpdate, createApply, createRatio: createApply / createUpdate };
}

if (process.argv[1]?.endsWith('apply.bench.js')) {
  const r = measure(200);
  console.log(`update ${r.update.toFixed(3)} ms, apply ${r.apply.toFixed(3)} ms, ratio ${r.ratio.toFixed(2)}`);
  console.log(`create: update ${r.createUpdate.toFixed(3)} ms, apply ${r.createApply.toFixed(3)} ms, ratio ${r.createRatio.toFixed(2)}`);
}
