// cluster-metrics-server as its own process, registered the way the reference metrics-server's manifests register
// it, against a server that runs none of its own (--metrics-server=false, RBAC on): its user gets the roles the
// manifests give, a Service without a selector whose Endpoints lead to the program's port and an APIService that
// skips the serving certificate's check (the program's certificate is self-signed in --cert-dir). The APIService
// becomes Available, kubectl and clusterctl `top` print the fake agent's figures and `explain` reads the program's
// OpenAPI, and when the program stops on SIGTERM (exit 0) the APIService is no longer Available.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { registrationObjects, metricsServerUser } from '../../src/main/embedded-metrics-server.js';
import { tempDir, waitFor } from '../agent/helpers.js';
import { mebibytes, millicores, startTopCluster } from './top-cluster.js';
import { kubectlPath, startClusterctlEnv, startKubectlEnv, tableRows, type KubectlEnv } from './support.js';

const program = new URL('../../bin/metrics-server.js', import.meta.url).pathname;   // the bundled program in dist/bin
const domain = 'k8s.io';

describe('cluster-metrics-server as its own program', { concurrency: 1, timeout: 300_000, skip: existsSync(program) ? false : 'the bundled program is missing (npm run build)' }, () => {
  let server: TestServer;
  let cluster: { close(): Promise<void> } | undefined;
  let child: ChildProcess | undefined;
  let log = '';
  const clients: Array<{ label: string; env: KubectlEnv }> = [];
  const apiServicePath = () => `/apis/${server.names.group('apiregistration')}/v1/apiservices/v1beta1.${server.names.group('metrics')}`;
  const available = async () => (await server.client.request({ method: 'GET', path: apiServicePath() }))
    .status?.conditions?.find((c: any) => c.type === 'Available');

  before(async () => {
    server = await startTestServer({ apiDomain: domain, metricsServer: false, apiServiceCheckIntervalMs: 500, flags: ['--authorization-mode=RBAC'] });
    cluster = await startTopCluster(server, domain);
    const { roles } = registrationObjects(server.names, { port: 0, own: false });
    for (const { ref, namespace, object } of roles) await server.client.resource(ref, namespace).create(object as never);
    const kubeconfig = await server.userKubeconfig(metricsServerUser);
    child = spawn(process.execPath, [program, `--kubeconfig=${kubeconfig}`, '--secure-port=0', '--bind-address=127.0.0.1',
      `--cert-dir=${join(tempDir('metrics-server-'), 'certs')}`, '--metric-resolution=1s', '--kubelet-insecure-tls'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const port = await new Promise<number>((resolve, reject) => {
      child!.stderr!.on('data', (d: Buffer) => {
        log += d;
        const m = /serving metrics\.k8s\.io\/v1beta1 on https:\/\/127\.0\.0\.1:(\d+)/.exec(log);
        if (m) resolve(Number(m[1]));
      });
      child!.once('exit', code => reject(new Error(`exited ${code}: ${log}`)));
    });
    for (const { ref, namespace, object } of registrationObjects(server.names, { host: '127.0.0.1', port, own: false }).service)
      await server.client.resource(ref, namespace).create(object as never);
    for (const version of ['1.27', '1.32'] as const) if (existsSync(kubectlPath(version))) clients.push({ label: `kubectl ${version}`, env: await startKubectlEnv(version, domain, server) });
    clients.push({ label: 'clusterctl', env: await startClusterctlEnv(domain, server) });
  }, { timeout: 120_000 });

  after(async () => {
    for (const c of clients) await c.env.close();
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await cluster?.close();
    await server?.close();
  });

  test('warns that the agents\' TLS flags have no effect, since it reaches them through the API server', () => {
    assert.match(log, /--kubelet-insecure-tls has no effect: agents are reached through the API server's nodes\/proxy/);
  });

  test('its APIService becomes Available and discovery lists the group', async () => {
    await waitFor('APIService Available', async () => (await available())?.status === 'True', 60_000);
    const groups = (await server.client.request({ method: 'GET', path: '/apis' })).groups.map((g: any) => g.name);
    assert.ok(groups.includes(server.names.group('metrics')), groups.join(' '));
  });

  test('top nodes and top pods print the fake agent\'s figures', async () => {
    for (const { label, env } of clients) {
      const nodes = tableRows(await waitFor(`${label} top nodes`, async () => {
        const r = await env.run(['top', 'nodes']);
        return r.code === 0 && tableRows(r.stdout).length === 3 && r.stdout;
      }, 90_000, 500));
      const top0 = nodes.find(r => r[0] === 'top-0')!;
      assert.ok(Math.abs(millicores(top0[1]!) - 500) <= 25, `${label}: top-0 CPU ${top0[1]}`);
      assert.equal(mebibytes(top0[3]!), 80, label);
      const pods = tableRows(await waitFor(`${label} top pods -A`, async () => {
        const r = await env.run(['top', 'pods', '-A']);
        return r.code === 0 && tableRows(r.stdout).length === 3 && r.stdout;
      }, 90_000, 500));
      const batch = pods.find(r => r[1] === 'batch')!;
      assert.equal(batch[0], 'e2e', label);
      assert.ok(Math.abs(millicores(batch[2]!) - 1000) <= 50, `${label}: batch ${batch[2]}`);
      assert.equal(mebibytes(batch[3]!), 200, label);
      // the kinds' OpenAPI comes from the program, merged and proxied by the server
      assert.match((await env.ok(['explain', 'nodemetrics.usage'])).replace(/\s+/g, ' '), /What the node uses: cpu in cores/, label);
    }
  });

  test('SIGTERM stops it with status 0, and its APIService is then not Available', async () => {
    const exited = new Promise<number | null>(r => child!.once('exit', code => r(code)));
    child!.kill('SIGTERM');
    assert.equal(await exited, 0, log);
    const c = await waitFor('APIService not Available', async () => {
      const a = await available();
      return a?.status === 'False' && a;
    }, 60_000);
    assert.equal(c.reason, 'FailedDiscoveryCheck');
  });
});
