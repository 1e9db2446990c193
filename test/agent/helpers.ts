// Shared by the agent's tests: polling until a condition holds, and options for a test agent.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function waitFor<T>(what: string, f: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

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
