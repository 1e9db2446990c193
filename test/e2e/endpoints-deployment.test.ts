// A Service in front of a Deployment, with pods scheduled to fake-agent nodes that give them addresses and
// run their readiness probes: the EndpointSlices list the pods' addresses as the agents report them and follow
// their readiness. A rollout to pods whose probe fails adds a not-ready endpoint; rolling back removes it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { fakeAnnotation, parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { ensureDefaultServiceAccount, tempDir, waitFor } from '../agent/helpers.js';

const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };
const services = { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true };

describe('EndpointSlices of a Deployment on agent nodes', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let root: string;
  before(async () => {
    server = await startTestServer({ scheduler: true });
    client = await clientFromFile(server.kubeconfig, { qps: 0 });
    root = tempDir('endpoints-deployment-');
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--fake-nodes=2', '--hostname-override=ep', `--root-dir=${root}`,
      '--pod-cidr=10.244.0.0/16', '--node-status-update-frequency=1s', `--api-domain=${server.names.domain}`,
    ]);
    agent = await runAgent(options, { info() {}, warn() {} });
    await ensureDefaultServiceAccount(client);
  });
  after(async () => {
    await agent?.stop();
    client?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('the slices hold the pods\' addresses and follow their readiness through a rollout and back', async () => {
    const deployments = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true };
    const slicesRef = { group: server.names.group('discovery'), version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true };
    await client.resource(services, 'default').create({
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    const template = (annotations: Record<string, string>) => ({
      metadata: { labels: { app: 'web' }, annotations },
      spec: { containers: [{
        name: 'web', image: 'nginx:1.25', ports: [{ name: 'http', containerPort: 8080 }],
        readinessProbe: { exec: { command: ['true'] }, periodSeconds: 1 },
      }] },
    });
    await client.resource(deployments, 'default').create({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template({}) },
    });

    /** the slices' endpoints, and the pods' own addresses and readiness as their agents report them */
    const observed = async () => {
      const slices = (await client.resource(slicesRef, 'default').list({ labelSelector: `${server.names.label('service-name')}=web` })).items;
      const endpoints = slices.flatMap((s: any) => (s.endpoints ?? []).map((e: any) => ({ ...e, ports: s.ports })));
      const running = (await client.resource(pods, 'default').list({ labelSelector: 'app=web' })).items.filter((p: any) => p.status?.podIP && !p.metadata.deletionTimestamp);
      const fromSlices = endpoints.map((e: any) => `${e.targetRef.name} ${e.addresses[0]} ready=${e.conditions.ready}`).sort();
      const fromPods = running.map((p: any) => `${p.metadata.name} ${p.status.podIP} ready=${p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')}`).sort();
      return { endpoints, fromSlices, fromPods };
    };
    const settled = (what: string, want: (o: Awaited<ReturnType<typeof observed>>) => boolean) => waitFor(what, async () => {
      const o = await observed();
      return o.fromSlices.join('\n') === o.fromPods.join('\n') && want(o) && o;
    }, 90_000, 200);

    const ready = (o: Awaited<ReturnType<typeof observed>>) => o.endpoints.filter((e: any) => e.conditions.ready).length;
    const first = await settled('three ready endpoints at the pods\' addresses', (o) => o.endpoints.length === 3 && ready(o) === 3);
    for (const e of first.endpoints) {
      assert.match(e.addresses[0], /^10\.244\./, 'an address from the node\'s pod range');
      assert.deepEqual(e.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
      assert.match(e.nodeName, /^ep-[01]$/);
    }

    // a rollout to pods whose readiness probe fails: the new pod is listed, not ready and not serving
    await client.resource(deployments, 'default').patch('web', { spec: { template: template({ [fakeAnnotation(server.names, 'ready')]: 'false' }) } }, 'merge');
    const rolled = await settled('a fourth, not-ready endpoint', (o) => o.endpoints.length === 4 && ready(o) === 3);
    const notReady = rolled.endpoints.find((e: any) => !e.conditions.ready);
    assert.equal(notReady.conditions.serving, false);

    // back to the ready template: the not-ready pod goes, and its endpoint with it
    await client.resource(deployments, 'default').patch('web', { spec: { template: { metadata: { annotations: { [fakeAnnotation(server.names, 'ready')]: null } } } } }, 'merge');
    const back = await settled('three ready endpoints again', (o) => o.endpoints.length === 3 && ready(o) === 3);
    assert.ok(!back.endpoints.some((e: any) => e.addresses[0] === notReady.addresses[0]), 'the not-ready address is gone');
  });
});
