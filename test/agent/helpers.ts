// Shared by the agent's tests: polling until a condition holds, and options for a test agent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { podsRef } from '../../src/agent/status-manager.js';
import type { Client } from '../../src/client/rest-client.js';
import { waitFor } from '../support/wait.js';

export { waitFor } from '../support/wait.js';

const tempDirs: string[] = [];
/** a new folder under the system's temporary folder, removed when the test process exits */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (tempDirs.push(dir) === 1) process.once('exit', removeTempDirs);
  return dir;
}

// a folder that still has something mounted under it (a real runtime's volume) is left alone: removing it
// would reach into the mounted file system
function removeTempDirs(): void {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((line) => line.split(' ')[4] ?? '');
  for (const dir of tempDirs) {
    if (mounts.some((m) => m === dir || m.startsWith(`${dir}/`))) continue;
    try { rmSync(dir, { recursive: true, force: true }); } catch { /* left for the system's cleaner */ }
  }
}

export function pod(name: string, nodeName: string, extra: { annotations?: Record<string, string>; spec?: object; containers?: object[] } = {}): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: { nodeName, containers: extra.containers ?? [{ name: 'main', image: 'busybox' }], ...extra.spec },
  };
}

/**
 * Pods need their namespace's `default` ServiceAccount when the ServiceAccount admission plugin is on;
 * without a controller manager in these tests, the test creates it.
 */
export async function ensureDefaultServiceAccount(client: { resource(ref: object, ns?: string): { create(o: object): Promise<unknown> } }, namespace = 'default'): Promise<void> {
  await client.resource({ group: '', version: 'v1', resource: 'serviceaccounts' }, namespace).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } })
    .catch((e: any) => { if (e?.code !== 409) throw e; });
}

/** the agent's log in tests: silent, or on stderr with AGENT_TEST_LOG=1 */
export const quiet = process.env.AGENT_TEST_LOG
  ? { info: (m: string) => process.stderr.write(`I ${m}\n`), warn: (m: string) => process.stderr.write(`W ${m}\n`) }
  : { info() {}, warn() {} };

/**
 * The cluster's root CA in the namespace's ConfigMap that projected service-account volumes read; without
 * the controller that publishes it in these tests, the test writes it from the client's configuration.
 */
export async function ensureRootCA(client: { config: { caPem?: string }; resource(ref: object, ns?: string): { create(o: object): Promise<unknown> } }, configMapName: string, namespace = 'default'): Promise<void> {
  await client.resource({ group: '', version: 'v1', resource: 'configmaps' }, namespace)
    .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMapName }, data: { 'ca.crt': client.config.caPem ?? '' } })
    .catch((e: any) => { if (e?.code !== 409) throw e; });
}

/** a GET of the agent's server, its certificate not checked */
export const httpsGet = (url: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
  httpsRequest(url, { rejectUnauthorized: false }, (res) => {
    let body = '';
    res.on('data', (d) => (body += d));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
  }).on('error', reject).end();
});

/** the flags of a fake-mode test agent of one node, its files under `dir`, listening on the loopback address */
export const fakeAgentFlags = (kubeconfig: string, dir: string, node: string, certDir = 'pki') => [
  `--clusterconfig=${kubeconfig}`, '--runtime=fake', `--hostname-override=${node}`, `--root-dir=${join(dir, 'root')}`,
  `--cert-dir=${join(dir, certDir)}`, '--address=127.0.0.1'];

/** a fake-mode agent of one node with its ports served, returned once a pod bound to the node (`podName`) runs there */
export async function servedAgent(client: Client, kubeconfig: string, dir: string, node: string, podName: string, flags: string[]):
  Promise<{ agent: RunningAgent; servers: AgentServers; close(): Promise<void> }> {
  const { options } = await parseAgentOptions([...fakeAgentFlags(kubeconfig, dir, node), ...flags]);
  const agent = await runAgent(options, quiet);
  const servers = await startAgentServers(options, agent.nodes, agent.client);
  await client.resource(podsRef, 'default').create(pod(podName, node));
  await waitFor('pod Running', () => agent.nodes[0]!.workers.pods().some((x) => x.pod.status?.phase === 'Running'));
  return { agent, servers, async close() { await servers.close(); await agent.stop(); } };
}

