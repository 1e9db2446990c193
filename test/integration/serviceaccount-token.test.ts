// Legacy service-account token Secrets: filled by the token controller with a token, the CA and the namespace;
// the token authenticates as the account while the Secret holds it; the account deleted, the Secret goes and
// the token stops working.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, createClient as apiClient, type Client } from '../../src/client/rest-client.js';
import { waitFor } from '../support/cluster.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('service-account token controller', () => {
  let server: TestServer;
  let admin: Client;
  const dir = mkdtempSync(join(tmpdir(), 'sa-token-'));
  const auditLog = join(dir, 'audit.log');
  before(async () => {
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ apiVersion: 'audit.cluster.io/v1', kind: 'Policy', omitStages: ['RequestReceived'], rules: [{ level: 'Metadata' }] }));
    server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${auditLog}`] });
    admin = await clientFromFile(server.kubeconfig);
  });
  after(async () => { admin.close(); await server.close(); rmSync(dir, { recursive: true, force: true }); });

  const secrets = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
  const accounts = { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true };
  const whoAmI = async (token: string) => {
    const c = apiClient({ ...admin.config, certPem: undefined, keyPem: undefined, token });
    try {
      const group = server.names.group('authentication');
      return await c.request<any>({ method: 'POST', path: `/apis/${group}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${group}/v1beta1`, kind: 'SelfSubjectReview' } });
    } finally { c.close(); }
  };

  test('a token Secret is filled, authenticates as its account, and goes with the account', async () => {
    const domain = server.names.labelDomain;
    const before = new Date();
    await admin.resource(accounts, 'default').create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    await admin.resource(secrets, 'default').create({
      apiVersion: 'v1', kind: 'Secret', type: `${domain}/service-account-token`,
      metadata: { name: 'robot-token', annotations: { [`${domain}/service-account.name`]: 'robot' } },
    });
    const filled = await waitFor('the token', async () => { const s = await admin.resource(secrets, 'default').get('robot-token'); return s.data?.token && s; });
    assert.equal(Buffer.from(filled.data['ca.crt'], 'base64').toString(), server.caCertPem);
    assert.equal(Buffer.from(filled.data.namespace, 'base64').toString(), 'default');
    const token = Buffer.from(filled.data.token, 'base64').toString();
    const review = await whoAmI(token);
    assert.equal(review.status.userInfo.username, 'system:serviceaccount:default:robot');
    assert.ok(review.status.userInfo.groups.includes('system:serviceaccounts:default'));
    // the audit log marks requests made with a legacy token
    const annotated = await waitFor('the audit event', async () => readFileSync(auditLog, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l))
      .find(e => e.user?.username === 'system:serviceaccount:default:robot' && e.objectRef?.resource === 'selfsubjectreviews'));
    assert.equal(annotated.annotations[`${server.names.group('authentication')}/legacy-token`], 'system:serviceaccount:default:robot');
    // the Secret records the day its token was used (LegacyServiceAccountTokenTracking), and since when that is tracked
    const days = [before, new Date()].map(t => t.toISOString().slice(0, 10));
    const used = (await admin.resource(secrets, 'default').get('robot-token')).metadata.labels?.[`${domain}/legacy-token-last-used`];
    assert.ok(days.includes(used), `last used ${used}`);
    const tracking = await admin.resource({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true }, server.names.systemNamespace)
      .get('kube-apiserver-legacy-service-account-token-tracking');
    assert.match(tracking.data.since, /^\d{4}-\d{2}-\d{2}$/);
    assert.ok(tracking.data.since <= used);

    await admin.resource(accounts, 'default').delete('robot');
    await waitFor('the Secret to go', async () => admin.resource(secrets, 'default').get('robot-token').then(() => false, () => true));
    await assert.rejects(whoAmI(token), (e: any) => e.code === 401);
  });
});
