// The cluster that `top` tests read: two simulated nodes of the fake agent (one process, told apart by the node
// query parameter) running two pods whose simulated usage follows their requests: on top-0 `default/web`
// (containers server 400m and 64Mi, sidecar 100m and 16Mi), on top-1 `e2e/batch` (1 core, 200Mi).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import type { TestServer } from '../../src/testing.js';
import { fakeAnnotation, parseAgentOptions } from '../../src/agent/options.js';
import { naming, type ApiDomain } from '../../src/api/naming.js';
import { runAgent } from '../../src/agent/agent.js';
import { startAgentServers } from '../../src/agent/server.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { freePort } from '../support/ports.js';
import { ensureDefaultServiceAccount, quiet, tempDir, waitFor } from '../agent/helpers.js';

export const millicores = (cell: string) => { const m = /^(\d+)m$/.exec(cell); assert.ok(m, `${cell} is a CPU figure in millicores`); return Number(m[1]); };
export const mebibytes = (cell: string) => { const m = /^(\d+)Mi$/.exec(cell); assert.ok(m, `${cell} is a memory figure in MiB`); return Number(m[1]); };

export async function startTopCluster(server: TestServer, domain: ApiDomain): Promise<{ close(): Promise<void> }> {
  const dir = tempDir('top-');
  writeFileSync(join(dir, 'ca.crt'), server.caCertPem);
  const { options } = await parseAgentOptions([
    `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', `--api-domain=${domain}`, '--hostname-override=top', '--fake-nodes=2',
    '--fake-node-capacity=cpu=4,memory=8Gi', `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`, '--address=127.0.0.1',
    `--port=${await freePort()}`, '--read-only-port=0', '--healthz-port=0', '--node-ip=127.0.0.1', '--pod-cidr=10.201.0.0/24',
    '--anonymous-auth=false', '--authentication-token-webhook', '--authorization-mode=Webhook', `--client-ca-file=${join(dir, 'ca.crt')}`,
    '--node-status-update-frequency=1s',
  ]);
  const agent = await runAgent(options, quiet, { relistMs: 200 });
  const agentServers = await startAgentServers(options, agent.nodes, agent.client);
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
  return {
    async close() {
      await agentServers.close();
      await agent.stop();
    },
  };
}
