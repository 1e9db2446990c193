// An exec through the API server, audited: its upgraded connection is recorded as started (101, when the node
// switched protocols) and as complete when the session ends, as the reference records a hijacked connection.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { freePort } from '../support/ports.js';
import { kubectlPath } from '../e2e/support.js';
import { tempDir, ensureDefaultServiceAccount, servedAgent, waitFor } from './helpers.js';

let server: TestServer, client: Client, served: Awaited<ReturnType<typeof servedAgent>>, dir: string;
const log = () => join(dir, 'audit.log');

before(async () => {
  dir = tempDir('exec-audit-');
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy',
    rules: [{ level: 'Metadata', resources: [{ group: '', resources: ['pods/exec'] }] }] }));
  server = await startTestServer({ apiDomain: 'k8s.io', flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${log()}`] });
  client = await clientFromFile(server.kubeconfig);
  await ensureDefaultServiceAccount(client);
  served = await servedAgent(client, server.kubeconfig, dir, 'streams', 'shell', [
    `--port=${await freePort()}`, '--read-only-port=0', `--healthz-port=${await freePort()}`, '--node-ip=127.0.0.1']);
});

after(async () => {
  await served?.close();
  client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('kubectl exec is recorded at ResponseStarted and ResponseComplete with 101', async () => {
  const out = await new Promise<string>((resolve, reject) => execFile(kubectlPath('1.27'),
    ['--kubeconfig', server.kubeconfig, 'exec', 'shell', '--', 'echo', 'hello'], { encoding: 'utf8' }, (e, stdout, stderr) => (e ? reject(new Error(stderr)) : resolve(stdout))));
  assert.equal(out.trim(), 'hello');
  const events = await waitFor('the exec\'s events', () => {
    const es = existsSync(log()) ? readFileSync(log(), 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)) : [];
    return es.some(e => e.stage === 'ResponseComplete') ? es : undefined;
  });
  assert.deepEqual(events.map((e: any) => [e.stage, e.objectRef?.subresource, e.responseStatus?.code]),
    [['RequestReceived', 'exec', undefined], ['ResponseStarted', 'exec', 101], ['ResponseComplete', 'exec', 101]]);
});
