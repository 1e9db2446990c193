// Subresources that act on part of their parent: scale, binding, eviction, ephemeral containers; and kubectl scale.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';
import { waitFor } from '../support/wait.js';

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
});
const pod = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] },
});

describe('subresources', () => {
  let server: TestServer;
  let c: Client;
  before(async () => { server = await startTestServer({ apiDomain: 'k8s.io' }); c = createClient(server); });
  after(async () => { c.close(); await server.close(); });
  const apps = '/apis/apps/v1/namespaces/default/deployments';
  const pods = '/api/v1/namespaces/default/pods';

  test('scale: read the Scale, change replicas by PUT and by merge patch, refuse a negative count, precondition on resourceVersion', async () => {
    assert.equal((await c.request('POST', apps, { body: deployment('web', 2) })).status, 201);
    const scale = (await c.get(`${apps}/web/scale`)).json;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.spec.replicas, 2);
    assert.equal(scale.status.selector, 'app=web');
    // the deployment controller may write the Deployment meanwhile (its status): read again on a conflict
    let put = await c.request('PUT', `${apps}/web/scale`, { body: { ...scale, spec: { replicas: 5 } } });
    while (put.status === 409) {
      const fresh = (await c.get(`${apps}/web/scale`)).json;
      put = await c.request('PUT', `${apps}/web/scale`, { body: { ...fresh, spec: { replicas: 5 } } });
    }
    assert.equal(put.status, 200);
    assert.equal(put.json.spec.replicas, 5);
    assert.equal((await c.get(`${apps}/web`)).json.spec.replicas, 5);
    const patched = await c.request('PATCH', `${apps}/web/scale`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
    assert.equal(patched.json.spec.replicas, 3);
    const negative = await c.request('PATCH', `${apps}/web/scale`, { body: { spec: { replicas: -1 } }, contentType: 'application/merge-patch+json' });
    assert.equal(negative.status, 422);
    const stale = await c.request('PUT', `${apps}/web/scale`, { body: { ...scale, spec: { replicas: 4 } } });
    assert.equal(stale.status, 409, 'the stale resourceVersion of the first read conflicts');
  });

  test('scale: writes own the replica count (subresource "scale"); server-side apply of a Scale conflicts, forces and moves ownership', async () => {
    const apply = (path: string, body: unknown, query: string) =>
      c.request('PATCH', `${path}${query}`, { body: JSON.stringify(body), contentType: 'application/apply-patch+yaml' });
    const scaleTo = (replicas: number) => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'owned' }, spec: { replicas } });
    // the in-process deployment controller writes the Deployment meanwhile (its status, and its revision annotation,
    // in entries of its own): the owners that matter here are those of the Deployment and its Scale
    const owners = async () => ((await c.get(`${apps}/owned`)).json.metadata.managedFields as any[])
      .filter(m => m.subresource !== 'status' && !/controller-manager$/.test(m.manager))
      .map(m => [m.manager, m.operation, m.subresource ?? '', m.apiVersion, !!m.fieldsV1?.['f:spec']?.['f:replicas']])
      // entries of one operation are in the order of their times (to the second), then of their managers' names
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.equal((await apply(`${apps}/owned`, deployment('owned', 1), '?fieldManager=operator')).status, 201);

    // an apply of the Scale conflicts with the Deployment's applier, then takes the count by force
    const refused = await apply(`${apps}/owned/scale`, scaleTo(4), '?fieldManager=autoscaler');
    assert.equal(refused.status, 409, refused.body);
    assert.equal(refused.json.message, 'Apply failed with 1 conflict: conflict with "operator": .spec.replicas');
    const forced = await apply(`${apps}/owned/scale`, scaleTo(4), '?fieldManager=autoscaler&force=true');
    assert.equal(forced.status, 200, forced.body);
    assert.equal(forced.json.kind, 'Scale');
    assert.equal(forced.json.spec.replicas, 4);
    assert.deepEqual(await owners(), [['autoscaler', 'Apply', 'scale', 'apps/v1', true], ['operator', 'Apply', '', 'apps/v1', false]]);

    // the Deployment's applier now conflicts with the Scale's, and may stop asserting the count
    const back = await apply(`${apps}/owned`, deployment('owned', 2), '?fieldManager=operator');
    assert.equal(back.status, 409, back.body);
    assert.match(back.json.message, /conflict with "autoscaler" with subresource "scale": \.spec\.replicas/);
    const { spec: { replicas: _dropped, ...rest }, ...withoutCount } = deployment('owned', 0);
    assert.equal((await apply(`${apps}/owned`, { ...withoutCount, spec: rest }, '?fieldManager=operator')).status, 200);
    assert.equal((await c.get(`${apps}/owned`)).json.spec.replicas, 4);

    // a merge patch of the Scale takes the count as an Update through "scale"
    const patched = await c.request('PATCH', `${apps}/owned/scale?fieldManager=scaler`, { body: { spec: { replicas: 6 } }, contentType: 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.body);
    assert.deepEqual(await owners(), [['operator', 'Apply', '', 'apps/v1', false], ['scaler', 'Update', 'scale', 'apps/v1', true]]);
    const again = await apply(`${apps}/owned/scale`, scaleTo(7), '?fieldManager=autoscaler');
    assert.equal(again.status, 409);
    assert.match(again.json.message, /conflict with "scaler" with subresource "scale" using autoscaling\/v1: \.spec\.replicas/);

    // what the reference refuses
    assert.equal((await apply(`${apps}/owned/scale`, scaleTo(-1), '?fieldManager=autoscaler&force=true')).status, 422);
    assert.equal((await apply(`${apps}/owned/scale`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'owned' } }, '?fieldManager=autoscaler')).status, 400);
    assert.equal((await apply(`${apps}/owned/scale`, scaleTo(3), '')).status, 422, 'an apply names its field manager');
    assert.equal((await apply(`${apps}/missing/scale`, scaleTo(3), '?fieldManager=autoscaler')).status, 404);
  });

  test('binding: a pod is assigned to a node once, through the subresource or the bindings resource', async () => {
    await c.request('POST', pods, { body: pod('p1') });
    await c.request('POST', pods, { body: pod('p2') });
    const bound = await c.request('POST', `${pods}/p1/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p1' }, target: { kind: 'Node', name: 'node-a' } } });
    assert.equal(bound.status, 201);
    assert.equal((await c.get(`${pods}/p1`)).json.spec.nodeName, 'node-a');
    const again = await c.request('POST', `${pods}/p1/binding`, { body: { metadata: { name: 'p1' }, target: { kind: 'Node', name: 'node-b' } } });
    assert.equal(again.status, 409);
    const misnamed = await c.request('POST', `${pods}/p2/binding`, { body: { metadata: { name: 'p1' }, target: { kind: 'Node', name: 'node-b' } } });
    assert.equal(misnamed.status, 400, misnamed.body);
    assert.equal(misnamed.json.message, 'name in URL does not match name in Binding object');
    assert.equal((await c.get(`${pods}/p2`)).json.spec.nodeName, undefined);
    // a body that names no pod binds none, as the reference refuses it
    for (const body of [{ target: { kind: 'Node', name: 'node-b' } }, null]) {
      const unnamed = await c.request('POST', `${pods}/p2/binding`, { body });
      assert.equal(unnamed.status, 400, unnamed.body);
      assert.equal(unnamed.json.message, 'name in URL does not match name in Binding object');
    }
    assert.equal((await c.get(`${pods}/p2`)).json.spec.nodeName, undefined);
    const viaResource = await c.request('POST', '/api/v1/namespaces/default/bindings', { body: { metadata: { name: 'p2' }, target: { kind: 'Node', name: 'node-b' } } });
    assert.equal(viaResource.status, 201);
    assert.equal((await c.get(`${pods}/p2`)).json.spec.nodeName, 'node-b');
  });

  test('eviction: refused while a disruption budget allows none, then the pod goes', async () => {
    await c.request('POST', pods, { body: pod('guarded', { app: 'db' }) });
    // a running pod: a pending one needs no budget to go
    const running = await c.request('PATCH', `${pods}/guarded/status`, { body: JSON.stringify({ status: { phase: 'Running' } }), contentType: 'application/merge-patch+json' });
    assert.equal(running.status, 200, running.body);
    await c.request('POST', pods, { body: pod('free', { app: 'web' }) });
    await c.request('POST', '/apis/policy/v1/namespaces/default/poddisruptionbudgets', {
      body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'db' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'db' } } } },
    });
    await waitFor('the budget counted', async () => (await c.get('/apis/policy/v1/namespaces/default/poddisruptionbudgets/db')).json.status?.observedGeneration === 1);
    const refused = await c.request('POST', `${pods}/guarded/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded' } } });
    assert.equal(refused.status, 429);
    assert.equal(refused.json.details.causes[0].reason, 'DisruptionBudget');
    // no Retry-After (the reference sends none for a budget's refusal): client-go would take 0 as "at once" and
    // repeat the eviction ten times in a row before kubectl drain sees the refusal and waits its own 5 s
    assert.equal(refused.headers['retry-after'], undefined);
    assert.equal(refused.json.details.retryAfterSeconds, undefined);
    // a body that does not name the pod evicts nothing, as the reference refuses it
    for (const body of [null, {}, { apiVersion: 'policy/v1', kind: 'Eviction' }]) {
      const unnamed = await c.request('POST', `${pods}/free/eviction`, { body });
      assert.equal(unnamed.status, 400, unnamed.body);
      assert.equal(unnamed.json.message, 'name in URL does not match name in Eviction object');
    }
    assert.equal((await c.get(`${pods}/free`)).status, 200);
    const ok = await c.request('POST', `${pods}/free/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'free' } } });
    assert.equal(ok.status, 201);
    assert.equal((await c.get(`${pods}/free`)).status, 404);
  });

  test('a DisruptionTarget condition left on a pod not deleted within 2 minutes is set back to False by the disruption controller', async () => {
    const marked = (minutesAgo: number) => ({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting',
      lastProbeTime: null, lastTransitionTime: new Date(Date.now() - minutesAgo * 60_000).toISOString().replace(/\.\d+Z$/, 'Z') });
    for (const [name, minutesAgo] of [['stale-target', 3], ['fresh-target', 0]] as const) {
      await c.request('POST', pods, { body: pod(name) });
      // the scheduler may write the pod's status meanwhile: the condition goes in on a fresh read
      await waitFor(`${name} marked`, async () => {
        const cur = (await c.get(`${pods}/${name}`)).json;
        const status = { ...cur.status, conditions: [...(cur.status?.conditions ?? []), marked(minutesAgo)] };
        return (await c.request('PUT', `${pods}/${name}/status`, { body: { ...cur, status } })).status === 200;
      });
    }
    const target = async (name: string) => (await c.get(`${pods}/${name}`)).json.status.conditions.find((x: any) => x.type === 'DisruptionTarget');
    const reset = await waitFor('the stale condition reset', async () => { const t = await target('stale-target'); return t.status === 'False' && t; });
    assert.deepEqual(Object.keys(reset).sort(), ['lastProbeTime', 'lastTransitionTime', 'status', 'type']);
    assert.equal((await target('fresh-target')).status, 'True', 'a condition set a moment ago stays');
  });

  test('ephemeral containers: only spec.ephemeralContainers changes through the subresource', async () => {
    await c.request('POST', pods, { body: pod('debugged') });
    const cur = (await c.get(`${pods}/debugged`)).json;
    const body = { ...cur, spec: { ...cur.spec, ephemeralContainers: [{ name: 'debug', image: 'busybox' }], containers: [{ name: 'changed', image: 'x' }] } };
    const r = await c.request('PUT', `${pods}/debugged/ephemeralcontainers`, { body });
    assert.equal(r.status, 200);
    assert.equal(r.json.spec.ephemeralContainers[0].name, 'debug');
    assert.equal(r.json.spec.containers[0].name, 'c', 'the containers are not changed through this subresource');
  });

  const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
  test('kubectl scale changes the replica count', { skip: existsSync(kubectl) ? false : 'kubectl.1.32 is not installed' }, async () => {
    const home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
    try {
      await c.request('POST', apps, { body: deployment('scaled', 1) });
      const run = promisify(execFile);
      const out = await run(kubectl, ['--kubeconfig', server.kubeconfig, '--cache-dir', join(home, 'cache'), 'scale', 'deployment/scaled', '--replicas=4'],
        { env: { PATH: process.env.PATH, HOME: home }, timeout: 20_000 });
      assert.match(out.stdout, /scaled/);
      assert.equal((await c.get(`${apps}/scaled`)).json.spec.replicas, 4);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('eviction and the disruption budget\'s status, without the disruption controller', () => {
  let server: TestServer;
  let c: Client;
  before(async () => { server = await startTestServer({ flags: ['--controllers=*,-disruption'] }); c = createClient(server); });
  after(async () => { c.close(); await server.close(); });
  const pods = '/api/v1/namespaces/default/pods';
  const pdbs = `/apis/policy/v1/namespaces/default/poddisruptionbudgets`;

  test('the eviction that takes the last disruption turns DisruptionAllowed False itself', async () => {
    for (const name of ['kept', 'taken']) {
      assert.equal((await c.request('POST', pods, { body: pod(name, { app: 'budgeted' }) })).status, 201);
      const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
      const running = await c.request('PATCH', `${pods}/${name}/status`, { body: JSON.stringify({ status: ready }), contentType: 'application/merge-patch+json' });
      assert.equal(running.status, 200, running.body);
    }
    const made = await c.request('POST', pdbs, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'budgeted' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'budgeted' } } } } });
    assert.equal(made.status, 201, made.body);
    // the status the controller would write: one disruption allowed
    const status = { observedGeneration: made.json.metadata.generation, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2,
      conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', observedGeneration: made.json.metadata.generation, lastTransitionTime: '2026-01-01T00:00:00Z' }] };
    assert.equal((await c.request('PUT', `${pdbs}/budgeted/status`, { body: { ...made.json, status } })).status, 200);
    const evicted = await c.request('POST', `${pods}/taken/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'taken' } } });
    assert.equal(evicted.status, 201, evicted.body);
    const after = (await c.get(`${pdbs}/budgeted`)).json.status;
    assert.equal(after.disruptionsAllowed, 0);
    assert.ok(after.disruptedPods?.taken, JSON.stringify(after));
    const allowed = after.conditions.find((x: any) => x.type === 'DisruptionAllowed');
    assert.deepEqual([allowed.status, allowed.reason, allowed.observedGeneration], ['False', 'InsufficientPods', made.json.metadata.generation]);
    assert.notEqual(allowed.lastTransitionTime, '2026-01-01T00:00:00Z');
  });
});
