// The horizontal pod autoscaler against a real server with simulated nodes and the metrics server inside it: the
// simulated containers report the CPU usage their pod's annotation names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { waitFor } from '../support/wait.js';
import { fakeAnnotation } from '../../src/agent/options.js';

const deploymentsRef = { group: 'apps', version: 'v1', resource: 'deployments' };
const hpaRef = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
const eventsRef = { group: '', version: 'v1', resource: 'events' };

describe('horizontal pod autoscaler', () => {
  let cluster: TestServer;
  before(async () => {
    cluster = await startTestServer({ nodes: 2, scheduler: true, metricsServer: true, flags: ['--horizontal-pod-autoscaler-sync-period=2s', '--metrics-server-resolution=500ms'] });
  });
  after(async () => { await cluster?.close(); });

  const deployment = (name: string, replicas: number, container: Record<string, unknown>, cpuUsage?: string) => ({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      replicas, selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name }, annotations: cpuUsage ? { [fakeAnnotation(cluster.names, 'cpu-usage')]: cpuUsage } : {} },
        spec: { containers: [{ name: 'c', image: 'x', ...container }] },
      },
    },
  });
  const hpa = (name: string, min: number, max: number) => ({
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: min, maxReplicas: max,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
  });
  const rescales = async (name: string) => (await cluster.client.resource(eventsRef, 'default')
    .list({ fieldSelector: `involvedObject.name=${name},reason=SuccessfulRescale` })).items
    .sort((a: any, b: any) => Date.parse(a.firstTimestamp) - Date.parse(b.firstTimestamp));

  test('a step up is at most double the replicas or 4, one step a sync period', async () => {
    await cluster.client.resource(deploymentsRef, 'default').create(deployment('busy', 1, { resources: { requests: { cpu: '100m' } } }, '300m'));
    await cluster.client.resource(hpaRef, 'default').create(hpa('busy', 1, 10));
    const events = await waitFor('two rescales', async () => {
      const e = await rescales('busy');
      if (e.length < 2) throw new Error(`rescales: ${e.map((x: any) => x.message).join('; ')}; status ${JSON.stringify((await cluster.client.resource(hpaRef, 'default').get('busy')).status)}`);
      return e;
    });
    // 300% of the request against a target of 50% asks for 6: the first step stops at 4 (the reference's max(2×1, 4))
    assert.equal(events[0].message, 'New size: 4; reason: cpu resource utilization (percentage of request) above target');
    // its own status write does not bring the next turn at once (on metrics that cannot show the new pods yet)
    assert.ok(Date.parse(events[1].firstTimestamp) - Date.parse(events[0].firstTimestamp) >= 1000,
      `${events[0].firstTimestamp} then ${events[1].firstTimestamp}: ${events.map((e: any) => e.message).join('; ')}`);
  });

  test('a metric that cannot be had keeps the target from scaling down on the others', async () => {
    await cluster.client.resource(deploymentsRef, 'default').create(deployment('idle', 3, { resources: { requests: { cpu: '100m' } } }, '10m'));
    const spec = hpa('idle', 1, 5);
    spec.spec.metrics.push({ type: 'Pods', pods: { metric: { name: 'queue-length' }, target: { type: 'AverageValue', averageValue: '10' } } } as any);
    await cluster.client.resource(hpaRef, 'default').create({ ...spec, spec: { ...spec.spec, behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } });
    const computed = await waitFor('FailedComputeMetricsReplicas', async () => (await cluster.client.resource(eventsRef, 'default')
      .list({ fieldSelector: 'involvedObject.name=idle,reason=FailedComputeMetricsReplicas' })).items[0]);
    // CPU at 10% of a 50% target alone would go down to 1
    assert.match(computed.message, /^invalid metrics \(1 invalid out of 2\), first error is: failed to get pods metric value: /);
    const status = await waitFor('the status', async () => (await cluster.client.resource(hpaRef, 'default').get('idle')).status?.conditions);
    assert.equal(status.find((c: any) => c.type === 'ScalingActive').reason, 'FailedGetPodsMetric');
    assert.equal((await cluster.client.resource(deploymentsRef, 'default').get('idle')).spec.replicas, 3);
    assert.deepEqual(await rescales('idle'), []);
  });

  test('a target above maxReplicas is brought down to it even while its metrics cannot be had', async () => {
    // no CPU request: utilization cannot be computed
    await cluster.client.resource(deploymentsRef, 'default').create(deployment('bare', 3, {}));
    await cluster.client.resource(hpaRef, 'default').create(hpa('bare', 1, 2));
    const scaled = await waitFor('scaled to the max', async () => {
      const d = await cluster.client.resource(deploymentsRef, 'default').get('bare');
      return d.spec.replicas === 2 && d;
    });
    assert.equal(scaled.spec.replicas, 2);
    const [event] = await rescales('bare');
    assert.equal(event.message, 'New size: 2; reason: Current number of replicas above Spec.MaxReplicas');
    const status = await waitFor('the status', async () => { const h = await cluster.client.resource(hpaRef, 'default').get('bare'); return h.status?.desiredReplicas === 2 && h.status; });
    assert.equal(status.conditions.find((c: any) => c.type === 'AbleToScale').reason, 'SucceededRescale');
    // then, within range, the metric that cannot be computed is reported twice, as the reference reports it
    const computed = await waitFor('FailedComputeMetricsReplicas', async () => (await cluster.client.resource(eventsRef, 'default')
      .list({ fieldSelector: 'involvedObject.name=bare,reason=FailedComputeMetricsReplicas' })).items[0]);
    assert.match(computed.message, /^invalid metrics \(1 invalid out of 1\), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container c of Pod bare-/);
  });
});
