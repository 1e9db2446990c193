// `top` with the resource metrics API out of the box: the server runs its metrics server, which scrapes the agents'
// /metrics/resource through nodes/proxy and is reached through the aggregation layer. Two simulated nodes of the
// fake agent (one process, told apart by the node query parameter) run pods whose simulated usage follows their
// requests; kubectl 1.27 and 1.32 (in k8s.io) and clusterctl (in both domains) print the figures for nodes, pods across
// namespaces and per namespace, and per container.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile } from '../../src/client/rest-client.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { ensureDefaultServiceAccount, waitFor } from '../agent/helpers.js';
import { mebibytes, millicores, startTopCluster } from './top-cluster.js';
import { kubectlVersions, startClusterctlEnv, startKubectlEnv, tableRows, type KubectlEnv } from './support.js';
import type { ApiDomain } from '../../src/api/naming.js';

const percent = (cell: string) => { const m = /^(\d+)%$/.exec(cell); assert.ok(m, `${cell} is a percentage`); return Number(m[1]); };

for (const domain of ['k8s.io', 'cluster.io'] as const satisfies readonly ApiDomain[]) {
  describe(`top with the fake agent (${domain})`, { concurrency: 1, timeout: 300_000 }, () => {
    let server: TestServer;
    let cluster: { close(): Promise<void> } | undefined;
    const clients: Array<{ label: string; env: KubectlEnv }> = [];

    before(async () => {
      server = await startTestServer({ apiDomain: domain, metricsServer: true, flags: ['--metrics-server-resolution=1s', '--authorization-mode=RBAC'] });
      cluster = await startTopCluster(server, domain);
      if (domain === 'k8s.io') for (const version of kubectlVersions) clients.push({ label: `kubectl ${version}`, env: await startKubectlEnv(version, domain, server) });
      clients.push({ label: 'clusterctl', env: await startClusterctlEnv(domain, server) });
    }, { timeout: 120_000 });

    after(async () => {
      for (const c of clients) await c.env.close();
      await cluster?.close();
      await server?.close();
    });

    test('the APIService of the resource metrics API becomes Available and discovery lists the group', async () => {
      const group = server.names.group('metrics');
      const apiService = await waitFor('APIService Available', async () => {
        const a = await server.client.request({ method: 'GET', path: `/apis/${server.names.group('apiregistration')}/v1/apiservices/v1beta1.${group}` });
        return a.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True') && a;
      }, 60_000);
      assert.equal(apiService.spec.service.name, 'metrics-server');
      const groups = (await server.client.request({ method: 'GET', path: '/apis' })).groups.map((g: any) => g.name);
      assert.ok(groups.includes(group), groups.join(' '));
    });

    test('top nodes prints CPU and memory figures and percentages of allocatable', async () => {
      for (const { label, env } of clients) {
        const out = await waitFor(`${label} top nodes`, async () => {
          const r = await env.run(['top', 'nodes']);
          // a first window may begin before the pods ran: the figures settle once a whole window saw them running
          const cpu = new Map(tableRows(r.stdout).slice(1).map((row) => [row[0], millicores(row[1]!)]));
          return r.code === 0 && tableRows(r.stdout).length === 3 && Math.abs(cpu.get('top-0')! - 500) <= 25 && Math.abs(cpu.get('top-1')! - 1000) <= 50 && r.stdout;
        }, 90_000, 500);
        const rows = tableRows(out);
        // kubectl wrote the percentage headers as CPU% and MEMORY% before 1.29
        const pct = label === 'kubectl 1.27' ? ['CPU%', 'MEMORY%'] : ['CPU(%)', 'MEMORY(%)'];
        assert.deepEqual(rows[0], ['NAME', 'CPU(cores)', pct[0], 'MEMORY(bytes)', pct[1]], label);
        const byName = new Map(rows.slice(1).map((r) => [r[0], r]));
        // the simulated node's usage is its pods': 500m and 80Mi on top-0, 1 core and 200Mi on top-1
        const [, cpu0, pct0, mem0] = byName.get('top-0')!;
        const [, cpu1, , mem1] = byName.get('top-1')!;
        assert.ok(Math.abs(millicores(cpu0!) - 500) <= 25, `${label}: top-0 CPU ${cpu0}`);
        assert.ok(Math.abs(millicores(cpu1!) - 1000) <= 50, `${label}: top-1 CPU ${cpu1}`);
        assert.ok(percent(pct0!) >= 11 && percent(pct0!) <= 14, `${label}: top-0 CPU% ${pct0} of 4 cores`);
        assert.equal(mebibytes(mem0!), 80, label);
        assert.equal(mebibytes(mem1!), 200, label);
      }
    });

    test('top pods: -A, -n, --containers and a label selector', async () => {
      for (const { label, env } of clients) {
        const all = tableRows(await waitFor(`${label} top pods -A`, async () => {
          const r = await env.run(['top', 'pods', '-A']);
          return r.code === 0 && tableRows(r.stdout).length === 3 && r.stdout;
        }, 90_000, 500));
        assert.deepEqual(all[0], ['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'], label);
        const web = all.find((r) => r[1] === 'web')!;
        const batch = all.find((r) => r[1] === 'batch')!;
        assert.equal(web[0], 'default');
        assert.equal(batch[0], 'e2e');
        assert.ok(Math.abs(millicores(web[2]!) - 500) <= 25, `${label}: web ${web[2]}`);
        assert.equal(mebibytes(web[3]!), 80);
        assert.ok(Math.abs(millicores(batch[2]!) - 1000) <= 50, `${label}: batch ${batch[2]}`);

        const inE2e = tableRows(await env.ok(['top', 'pods', '-n', 'e2e']));
        assert.deepEqual(inE2e.map((r) => r.slice(0, 1)), [['NAME'], ['batch']], label);
        assert.equal(mebibytes(inE2e[1]![2]!), 200);

        const containers = tableRows(await env.ok(['top', 'pods', 'web', '--containers']));
        assert.deepEqual(containers[0], ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'], label);
        assert.deepEqual(containers.slice(1).map((r) => r.slice(0, 2)), [['web', 'server'], ['web', 'sidecar']], label);
        assert.ok(Math.abs(millicores(containers[1]![2]!) - 400) <= 20, `${label}: server ${containers[1]![2]}`);
        assert.ok(Math.abs(millicores(containers[2]![2]!) - 100) <= 10, `${label}: sidecar ${containers[2]![2]}`);
        assert.deepEqual(containers.slice(1).map((r) => mebibytes(r[3]!)), [64, 16]);

        const selected = tableRows(await env.ok(['top', 'pods', '-A', '-l', 'app=web']));
        assert.deepEqual(selected.slice(1).map((r) => r[1]), ['web'], label);
      }
    });

    test('a namespace whose pods have no figures yet, and one with no pods: the same answers as kubectl', async () => {
      for (const ns of ['quiet', 'empty']) await server.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
      await ensureDefaultServiceAccount(server.client, 'quiet');
      // no node: it never runs, so it is never measured
      await server.client.resource(podsRef, 'quiet').create({ metadata: { name: 'waiting' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      for (const { label, env } of clients) {
        const waiting = await env.run(['top', 'pods', '-n', 'quiet']);
        assert.equal(waiting.code, 1, label);
        assert.match(waiting.stderr, /^error: metrics not available yet$/m, label);
        const empty = await env.run(['top', 'pods', '-n', 'empty']);
        assert.equal(empty.code, 0, label);
        assert.match(empty.stderr, /^No resources found in empty namespace\.$/m, label);
        const one = await env.run(['top', 'pod', 'waiting', '-n', 'quiet']);
        assert.equal(one.code, 1, label);
        assert.match(one.stderr, /NotFound.*podmetrics\.metrics\.[a-z0-9.]+ "quiet\/waiting" not found/, label);
      }
    });

    test('explain teaches the metrics kinds from the OpenAPI the metrics server publishes, merged by the server', async () => {
      const oneLine = (text: string) => text.replace(/\s+/g, ' ');
      for (const { label, env } of clients) {
        const nodes = oneLine(await waitFor(`${label} explain nodemetrics.usage`, async () => {
          const r = await env.run(['explain', 'nodemetrics.usage']);
          return r.code === 0 && r.stdout;
        }, 60_000, 500));
        assert.match(nodes, /KIND: NodeMetrics/, label);
        assert.match(nodes, /What the node uses: cpu in cores/, label);
        const pods = oneLine(await env.ok(['explain', 'podmetrics']));
        assert.match(pods, /The resource usage of one pod's containers/, label);
        assert.match(pods, /containers/, label);
        const containers = oneLine(await env.ok(['explain', 'podmetrics.containers.usage']));
        assert.match(containers, /What the container uses/, label);
      }
    });

    test('the metrics API itself: NodeMetrics and PodMetrics with timestamp, window and usage', async () => {
      const base = `/apis/${server.names.group('metrics')}/v1beta1`;
      const node = await server.client.request({ method: 'GET', path: `${base}/nodes/top-1` });
      assert.equal(node.kind, 'NodeMetrics');
      assert.match(node.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.match(node.window, /^\d+(\.\d+)?s$/);
      assert.match(node.usage.cpu, /^\d+n$/);
      assert.equal(node.usage.memory, `${200 * 1024}Ki`);
      const pod = await server.client.request({ method: 'GET', path: `${base}/namespaces/default/pods/web` });
      assert.deepEqual(pod.containers.map((c: any) => [c.name, c.usage.memory]), [['server', '65536Ki'], ['sidecar', '16384Ki']]);
      assert.deepEqual(pod.metadata.labels, { app: 'web' });
      await assert.rejects(server.client.request({ method: 'GET', path: `${base}/namespaces/default/pods/none` }), (e: any) => e.code === 404);
      // a user without rights to the metrics is refused by the metrics server's delegated authorization
      const nobody = await server.userKubeconfig('nobody');
      const c = await clientFromFile(nobody);
      await assert.rejects(c.request({ method: 'GET', path: `${base}/nodes` }), (e: any) => e.code === 403 && /cannot list resource "nodes"/.test(e.message));
      c.close();
    });
  });
}
