// --authorization-mode=ABAC with --authorization-policy-file, through the HTTP API: what a policy allows is allowed,
// the rest forbidden; a server without the file, or with a bad one, does not start.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFromFile } from '../../src/client/rest-client.js';
import { startTestServer, type TestServer } from '../../src/testing.js';

const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: { code?: number; message?: string }) => e);

describe('ABAC', () => {
  const dir = mkdtempSync(join(tmpdir(), 'abac-'));
  const policyFile = join(dir, 'policy.jsonl');
  let server: TestServer;
  before(async () => {
    writeFileSync(policyFile, [
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "reader", "namespace": "default", "resource": "pods", "apiGroup": "", "readonly": true}}',
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "nonResourcePath": "/version", "readonly": true}}',
    ].join('\n'));
    server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--authorization-mode=ABAC', `--authorization-policy-file=${policyFile}`] });
  });
  after(async () => { await server?.close(); rmSync(dir, { recursive: true, force: true }); });

  test('a read-only policy lets its user read pods in its namespace, and nothing more', async () => {
    const reader = await clientFromFile(await server.userKubeconfig('reader'));
    try {
      const pods = { group: '', version: 'v1', resource: 'pods' };
      assert.deepEqual((await reader.resource(pods, 'default').list()).items, []);
      assert.equal((await failure(reader.resource(pods, 'kube-system').list()))?.code, 403);
      const create = await failure(reader.resource(pods, 'default').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } }));
      assert.equal(create?.code, 403);
      assert.match(create?.message ?? '', /pods is forbidden: User "reader" cannot create resource "pods"/);
      assert.ok((await reader.request({ method: 'GET', path: '/version' })).gitVersion);
    } finally { reader.close(); }
  });

  test('ABAC without a policy file is refused at start', async () => {
    await assert.rejects(startTestServer({ flags: ['--authorization-mode=ABAC'] }), /ABAC needs --authorization-policy-file/);
  });
});
