// Shared by the agent's tests: polling until a condition holds, and options for a test agent.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';

export { waitFor } from '../support/wait.js';

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

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
