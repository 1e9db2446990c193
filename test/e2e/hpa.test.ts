// kubectl autoscale with the server's own controllers: the horizontal pod autoscaler reads the pods' CPU from the
// in-process resource metrics API and scales the Deployment through its scale subresource; describe hpa shows the
// utilization, the conditions and the rescale event. Simulated pods burn the CPU their annotation says.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { fakeAnnotation } from '../../src/agent/options.js';
import { startKubectlEnv, type KubectlEnv, type Manifest } from './support.js';
import { startTopCluster } from './top-cluster.js';
import { waitFor } from '../support/wait.js';

describe('horizontal pod autoscaling with kubectl 1.32', () => {
  let server: TestServer;
  let cluster: { close(): Promise<void> } | undefined;
  let k: KubectlEnv;
  before(async () => {
    server = await startTestServer({ apiDomain: 'k8s.io', scheduler: true, metricsServer: true, flags: ['--metrics-server-resolution=1s', '--authorization-mode=RBAC', '--use-service-account-credentials'] });
    cluster = await startTopCluster(server, 'k8s.io');
    k = await startKubectlEnv('1.32', 'k8s.io', server);
    await k.ok(['create', 'namespace', 'hpa']);
  }, { timeout: 120_000 });
  after(async () => {
    await k?.close();
    await cluster?.close();
    await server?.close();
  });

  test('a Deployment using 300% of its CPU request is scaled up to maxReplicas, and describe hpa says why', { timeout: 150_000 }, async () => {
    const busy: Manifest = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'busy', namespace: 'hpa' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'busy' } }, template: {
        metadata: { labels: { app: 'busy' }, annotations: { [fakeAnnotation(server.names, 'cpu-usage')]: '300m' } },
        spec: { containers: [{ name: 'app', image: 'app:1', resources: { requests: { cpu: '100m' } } }] },
      } },
    };
    await k.ok(['apply', '-f', k.manifest('busy.yaml', [busy])]);
    await k.ok(['rollout', 'status', 'deployment/busy', '-n', 'hpa', '--timeout=120s'], { timeoutMs: 130_000 });
    await k.ok(['autoscale', 'deployment', 'busy', '-n', 'hpa', '--min=1', '--max=4', '--cpu-percent=50']);
    await waitFor('the Deployment scaled to 4', async () => (await k.json(['get', 'deployment', 'busy', '-n', 'hpa'])).spec.replicas === 4, 120_000);
    const hpa = await waitFor('the autoscaler\'s status', async () => {
      const h = await k.json(['get', 'hpa', 'busy', '-n', 'hpa']);
      return h.status?.desiredReplicas === 4 && h.status.currentMetrics?.length ? h : undefined;
    }, 60_000);
    assert.equal(hpa.status.currentMetrics[0].resource.name, 'cpu');
    assert.ok(hpa.status.currentMetrics[0].resource.current.averageUtilization >= 250, JSON.stringify(hpa.status.currentMetrics));
    const limited = hpa.status.conditions.find((c: any) => c.type === 'ScalingLimited');
    assert.equal(limited.reason, 'TooManyReplicas');
    // the controller records its events apart from its writes: the rescale's may come a moment after the status
    const described = await waitFor('the rescale event', async () => {
      const text = await k.ok(['describe', 'hpa', 'busy', '-n', 'hpa']);
      return /SuccessfulRescale/.test(text) && text;
    });
    assert.match(described, /resource cpu on pods\s+\(as a percentage of request\):\s+\d+% \(\d+m\) \/ 50%/);
    assert.match(described, /SuccessfulRescale\s+.*New size: 4; reason: cpu resource utilization \(percentage of request\) above target/);
    assert.match(described, /ScalingActive\s+True\s+ValidMetricFound/);
  });

  test('a second autoscaler of the same pods makes both report AmbiguousSelector and scale nothing', { timeout: 90_000 }, async () => {
    // its max is above the Deployment's 4 replicas: a target above an autoscaler's max is brought down to it before
    // any metric (or selector) is looked at, as the reference does
    await k.ok(['autoscale', 'deployment', 'busy', '-n', 'hpa', '--name=busy-too', '--min=1', '--max=6', '--cpu-percent=50']);
    const ambiguous = (h: any) => h.status?.conditions?.find((c: any) => c.type === 'ScalingActive' && c.reason === 'AmbiguousSelector');
    for (const name of ['busy', 'busy-too']) {
      const condition = await waitFor(`${name} reports AmbiguousSelector`, async () => ambiguous(await k.json(['get', 'hpa', name, '-n', 'hpa'])), 60_000);
      assert.equal(condition.status, 'False');
      assert.equal(condition.message, 'pods by selector app=busy are controlled by multiple HPAs: [hpa/busy hpa/busy-too]');
    }
    assert.equal((await k.json(['get', 'deployment', 'busy', '-n', 'hpa'])).spec.replicas, 4, 'busy-too (max 6) did not scale the Deployment up');
    await waitFor('the AmbiguousSelector event', async () => /AmbiguousSelector/.test(await k.ok(['get', 'events', '-n', 'hpa', '--field-selector=reason=AmbiguousSelector'])));
  });
});
