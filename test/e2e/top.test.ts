// `top` with the resource metrics API out of the box: the server runs its metrics server, which scrapes the agents'
// /metrics/resource through nodes/proxy and is reached through the aggregation layer. Two simulated nodes of the
// fake agent (one process, told apart by the node query parameter) run pods whose simulated usage follows their
// requests; kubectl 1.27 and 1.32 (in k8s.io) and clusterctl (in both domains) print the figures for nodes, pods across
// namespaces and per namespace, and per container.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { fakeAnnotation, parseAgentOptions } from '../../src/agent/options.js';
import { naming } from '../../src/api/naming.js';
import { clientFromFile } from '../../src/client/rest-client.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { freePort } from '../support/ports.js';
import { ensureDefaultServiceAccount, quiet, tempDir, waitFor } from '../agent/helpers.js';
import { kubectlVersions, startClusterctlEnv, startKubectlEnv, tableRows, type KubectlEnv } from './support.js';
import type { ApiDomain } from '../../src/api/naming.js';

const millicores = (cell: string) => { const m = /^(\d+)m$/.exec(cell); assert.ok(m, `${cell} is a CPU figure in millicores`); return Number(m[1]); };
const mebibytes = (cell: string) => { const m = /^(\d+)Mi$/.exec(cell); assert.ok(m, `${cell} is a memory figure in MiB`); return Number(m[1]); };
const percent = (cell: string) => { const m = /^(\d+)%$/.exec(cell); assert.ok(m, `${cell} is a percentage`); return Number(m[1]); };

for (const domain of ['k8s.io', 'cluster.io'] as const satisfies readonly ApiDomain[]) {
  describe(`top with the fake agent (${domain})`, { concurrency: 1, timeout: 300_000 }, () => {
    let server: TestServer;
    let agent: RunningAgent;
    let agentServers: AgentServers;
    const clients: Array<{ label: string; env: KubectlEnv }> = [];

    before(async () => {
      const dir = tempDir('top-');
      server = await startTestServer({ apiDomain: domain, metricsServer: true, flags: ['--metrics-server-resolution=1s', '--authorization-mode=RBAC'] });
      writeFileSync(join(dir, 'ca.crt'), server.caCertPem);
      const { options } = await parseAgentOptions([
        `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', `--api-domain=${domain}`, '--hostname-override=top', '--fake-nodes=2',
        '--fake-node-capacity=cpu=4,memory=8Gi', `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`, '--address=127.0.0.1',
        `--port=${await freePort()}`, '--read-only-port=0', '--healthz-port=0', '--node-ip=127.0.0.1', '--pod-cidr=10.201.0.0/24',
        '--anonymous-auth=false', '--authentication-token-webhook', '--authorization-mode=Webhook', `--client-ca-file=${join(dir, 'ca.crt')}`,
        '--node-status-update-frequency=1s',
      ]);
      agent = await runAgent(options, quiet, { relistMs: 200 });
      agentServers = await startAgentServers(options, agent.nodes, agent.client);
      // the fake runtime burns the CPU a container requests; its memory is what the annotation says
      const annotation = (what: string) => fakeAnnotation(naming(domain), what);
      for (const namespace of ['default', 'e2e']) {
        if (namespace !== 'default') await server.client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: namespace } });
        await ensureDefaultServiceAccount(server.client, namespace);
      }
      const pods = (ns: string) => server.client.resource(podsRef, ns);
      await pods('default').create({
        metadata: { name: 'web', labels: { app: 'web' }, annotations: { [`${annotation('memory-usage')}.server`]: '64Mi', [`${annotation('memory-usage')}.sidecar`]: '16Mi' } },
        spec: { nodeName: 'top-0', containers: [
          { name: 'server', image: 'nginx', resources: { requests: { cpu: '400m' } } },
          { name: 'sidecar', image: 'busybox', resources: { requests: { cpu: '100m' } } },
        ] },
      });
      await pods('e2e').create({
        metadata: { name: 'batch', annotations: { [annotation('memory-usage')]: '200Mi' } },
        spec: { nodeName: 'top-1', containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '1' } } }] },
      });
      await waitFor('pods running', async () => {
        const all = [...(await pods('default').list()).items, ...(await pods('e2e').list()).items];
        return all.filter((p: any) => p.status?.phase === 'Running').length === 2;
      }, 60_000);
      if (domain === 'k8s.io') for (const version of kubectlVersions) clients.push({ label: `kubectl ${version}`, env: await startKubectlEnv(version, domain, server) });
      clients.push({ label: 'clusterctl', env: await startClusterctlEnv(domain, server) });
    }, { timeout: 120_000 });

    after(async () => {
      for (const c of clients) await c.env.close();
      await agentServers?.close();
      await agent?.stop();
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
          return r.code === 0 && tableRows(r.stdout).length === 3 && r.stdout;
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
