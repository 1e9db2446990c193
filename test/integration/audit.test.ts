// The audit log through a real server: a policy that records each namespace at another level, the events of
// create, update, delete and watch at each level (bodies only where the level keeps them), the stages, the
// annotations of authorization, deprecated versions, mutating webhooks and pod security, failed
// authentication, a log rotated by size, a webhook backend receiving batches, requests that never wait for a
// batching backend that does not answer, the blocking and blocking-strict modes, the legacy log format, and a
// request whose handler fails unexpectedly (the Panic stage).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { parseApiServerOptions } from '../../src/config/apiserver-options.js';
import { startApiServer } from '../../src/main/apiserver.js';
import { createClient, type Client } from './client.js';
import { encodeObject } from '../../src/api/protobuf/codec.js';
import { call, fakeHttpsService, writeWebhookConfig, type FakeService } from './auth-support.js';
import { startWebhookServer, type WebhookServer } from '../support/admission-webhook.js';

const policy = (extra: object[] = []) => JSON.stringify({
  apiVersion: 'audit.cluster.io/v1', kind: 'Policy', omitStages: ['RequestReceived'],
  rules: [
    { level: 'None', nonResourceURLs: ['/healthz*', '/readyz*', '/livez*'] },
    ...extra,
    { level: 'None', namespaces: ['lvl-none'] },
    { level: 'Request', namespaces: ['lvl-req'] },
    { level: 'RequestResponse', namespaces: ['lvl-rr'], omitStages: ['ResponseStarted'], omitManagedFields: true },
    { level: 'RequestResponse', namespaces: ['lvl-rr-watch'] },
    { level: 'Metadata' },
  ],
});

interface AuditEvent {
  stage: string; level: string; verb: string; requestURI: string; auditID: string; annotations?: Record<string, string>;
  objectRef?: { resource: string; namespace?: string; name?: string }; user: { username?: string; groups?: string[] };
  responseStatus?: { code: number; message?: string }; requestObject?: any; responseObject?: any;
}

/** the events of a JSON-lines audit log so far: whole lines only, as the backend may be writing the next one */
function loggedEvents(file: string): AuditEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').slice(0, -1).filter(Boolean).map(l => JSON.parse(l) as AuditEvent);
}

async function waitFor<T>(get: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in time: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise(r => setTimeout(r, 50));
  }
}

describe('audit log', () => {
  let dir: string, server: TestServer, c: Client, wh: WebhookServer;
  const logFile = () => join(dir, 'audit.log');
  const events = (): AuditEvent[] => loggedEvents(logFile());
  const eventsOf = (id: string | string[] | undefined) => events().filter(e => e.auditID === id);
  const configMap = (name: string, data: Record<string, string> = { a: '1' }) => ({ metadata: { name }, data });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-'));
    writeFileSync(join(dir, 'policy.json'), policy());
    wh = await startWebhookServer();
    server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${logFile()}`] });
    c = createClient(server);
    for (const ns of ['lvl-none', 'lvl-meta', 'lvl-req', 'lvl-rr', 'lvl-rr-watch'])
      assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
  });
  after(async () => { c?.close(); await server?.close(); await wh?.close(); rmSync(dir, { recursive: true, force: true }); });

  /** create, update, delete of a ConfigMap in a namespace, and the events each left */
  async function writes(ns: string) {
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await c.request('POST', base, { body: configMap('cm') });
    const updated = await c.request('PUT', `${base}/cm`, { body: configMap('cm', { a: '2' }) });
    const deleted = await c.request('DELETE', `${base}/cm`);
    assert.deepEqual([created.status, updated.status, deleted.status], [201, 200, 200]);
    return Promise.all([created, updated, deleted].map(r =>
      waitFor(() => eventsOf(r.headers['audit-id']), es => ns === 'lvl-none' || es.length > 0).then(es => es)));
  }

  test('None records nothing', async () => {
    const [cr, up, del] = await writes('lvl-none');
    assert.deepEqual([cr, up, del].map(e => e.length), [0, 0, 0]);
  });

  test('Metadata records the request line, user and outcome, without bodies', async () => {
    const [[cr], [up], [del]] = await writes('lvl-meta');
    assert.deepEqual([cr!.verb, up!.verb, del!.verb], ['create', 'update', 'delete']);
    for (const e of [cr!, up!, del!]) {
      assert.equal(e.level, 'Metadata');
      assert.equal(e.stage, 'ResponseComplete');
      assert.equal(e.requestObject, undefined);
      assert.equal(e.responseObject, undefined);
      assert.equal(e.annotations?.['authorization.cluster.io/decision'], 'allow');
      assert.ok(e.user.groups?.includes('system:masters'));
    }
    // a create's path has no name: the reference takes it from the object sent
    assert.deepEqual(cr!.objectRef, { resource: 'configmaps', namespace: 'lvl-meta', name: 'cm', apiGroup: '', apiVersion: 'v1' });
    assert.equal(cr!.responseStatus?.code, 201);
    assert.equal(del!.objectRef?.name, 'cm');
  });

  test('a server-side apply patch sent as JSON (as kubectl sends it) is recorded at Request', async () => {
    const r = await c.request('PATCH', '/api/v1/namespaces/lvl-req/configmaps/applied?fieldManager=kubectl', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', ...configMap('applied', { k: 'v' }) }, contentType: 'application/apply-patch+yaml' });
    assert.equal(r.status, 201, r.body);
    const [e] = await waitFor(() => eventsOf(r.headers['audit-id']), es => es.length > 0);
    assert.deepEqual(e!.requestObject, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { k: 'v' } });
  });

  test('Request adds the request body; RequestResponse the response body too', async () => {
    const [[cr], [up]] = await writes('lvl-req');
    assert.deepEqual(cr!.requestObject.data, { a: '1' });
    assert.deepEqual(up!.requestObject.data, { a: '2' });
    assert.equal(cr!.responseObject, undefined);
    const [[rcr], [rup], [rdel]] = await writes('lvl-rr');
    assert.deepEqual(rcr!.requestObject.data, { a: '1' });
    assert.equal(rcr!.responseObject.metadata.name, 'cm');
    assert.deepEqual(rup!.responseObject.data, { a: '2' });
    assert.deepEqual([rdel!.responseObject.kind, rdel!.responseObject.status], ['Status', 'Success']);
    // that rule omits managed fields; another records them
    assert.equal(rcr!.responseObject.metadata.managedFields, undefined);
    assert.equal(rcr!.requestObject.metadata.managedFields, undefined);
    const kept = await c.request('POST', '/api/v1/namespaces/lvl-rr-watch/configmaps', { body: configMap('with-fields') });
    assert.equal(kept.status, 201);
    const [withFields] = await waitFor(() => eventsOf(kept.headers['audit-id']).filter(e => e.stage === 'ResponseComplete'), es => es.length > 0);
    assert.equal(withFields!.responseObject.metadata.managedFields[0].manager, kept.json.metadata.managedFields[0].manager);
  });

  test('RequestResponse keeps a list\'s whole body; every decision is annotated with its reason, empty or not', async () => {
    for (const name of ['l1', 'l2']) assert.equal((await c.request('POST', '/api/v1/namespaces/lvl-rr-watch/configmaps', { body: configMap(name) })).status, 201);
    const list = await c.request('GET', '/api/v1/namespaces/lvl-rr-watch/configmaps');
    assert.equal(list.status, 200);
    const [e] = await waitFor(() => eventsOf(list.headers['audit-id']).filter(x => x.stage === 'ResponseComplete'), es => es.length > 0);
    assert.equal(e!.responseObject.kind, 'ConfigMapList');
    assert.deepEqual(e!.responseObject.items.map((i: any) => i.metadata.name).filter((n: string) => n.startsWith('l')), ['l1', 'l2']);
    // the reference records the authorizer's reason beside its decision, "" when it gave none
    assert.equal(e!.annotations?.['authorization.cluster.io/reason'], '');
  });

  test('a watch is recorded when its response starts and when it ends; omitted stages are left out', async () => {
    const w = await c.watch('/api/v1/namespaces/lvl-rr-watch/configmaps?watch=1');
    const id = w.headers['audit-id'];
    await waitFor(() => eventsOf(id), es => es.some(e => e.stage === 'ResponseStarted'));
    w.close();
    const stages = (await waitFor(() => eventsOf(id), es => es.some(e => e.stage === 'ResponseComplete'))).map(e => e.stage);
    assert.deepEqual(stages, ['ResponseStarted', 'ResponseComplete']);
    assert.equal(eventsOf(id)[0]!.verb, 'watch');
    // in lvl-rr the rule leaves ResponseStarted out, and the policy leaves RequestReceived out everywhere
    const other = await c.watch('/api/v1/namespaces/lvl-rr/configmaps?watch=1');
    other.close();
    const otherStages = (await waitFor(() => eventsOf(other.headers['audit-id']), es => es.length > 0)).map(e => e.stage);
    assert.deepEqual(otherStages, ['ResponseComplete']);
    // a watch refused before its response starts: its start, then its end, as the reference records them
    const refused = await c.get('/api/v1/namespaces/lvl-rr-watch/configmaps?watch=1&labelSelector=a%20in');
    assert.equal(refused.status, 400);
    const refusedEvents = await waitFor(() => eventsOf(refused.headers['audit-id']), es => es.some(e => e.stage === 'ResponseComplete'));
    assert.deepEqual(refusedEvents.map(e => [e.stage, e.responseStatus?.code]), [['ResponseStarted', 400], ['ResponseComplete', 400]]);
  });

  test('a deprecated version is annotated, and so is a mutating webhook\'s change (its patch only at Request)', async () => {
    const fs = await c.request('POST', '/apis/flowcontrol.apiserver.cluster.io/v1beta2/flowschemas', { body: {
      metadata: { name: 'old-api' }, spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000 } } });
    assert.equal(fs.status, 201, fs.body);
    const [deprecated] = await waitFor(() => eventsOf(fs.headers['audit-id']), es => es.length > 0);
    assert.equal(deprecated!.annotations?.['cluster.io/deprecated'], 'true');
    assert.equal(deprecated!.annotations?.['cluster.io/removed-release'], '1.29');

    wh.handle.set('/label', () => ({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }])).toString('base64') }));
    assert.equal((await c.request('POST', '/apis/admissionregistration.cluster.io/v1/mutatingwebhookconfigurations', { body: { metadata: { name: 'labeller' }, webhooks: [{
      name: 'label.example.com', clientConfig: { url: `${wh.url}/label`, caBundle: wh.caBundle }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }] } })).status, 201);
    let meta!: Awaited<ReturnType<Client['request']>>;
    await waitFor(async () => (meta = await c.request('POST', '/api/v1/namespaces/lvl-meta/configmaps', { body: configMap(`m-${Date.now()}`) })).json.metadata.labels?.touched, Boolean);
    const [m] = await waitFor(() => eventsOf(meta.headers['audit-id']), es => es.length > 0);
    assert.deepEqual(JSON.parse(m!.annotations!['mutation.webhook.admission.cluster.io/round_0_index_0']!), { configuration: 'labeller', webhook: 'label.example.com', mutated: true });
    assert.equal(m!.annotations!['patch.webhook.admission.cluster.io/round_0_index_0'], undefined);
    const req = await c.request('POST', '/api/v1/namespaces/lvl-req/configmaps', { body: configMap('patched') });
    const [r] = await waitFor(() => eventsOf(req.headers['audit-id']), es => es.length > 0);
    assert.deepEqual(JSON.parse(r!.annotations!['patch.webhook.admission.cluster.io/round_0_index_0']!),
      { configuration: 'labeller', webhook: 'label.example.com', patch: [{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }], patchType: 'JSONPatch' });
    assert.equal((await c.request('DELETE', '/apis/admissionregistration.cluster.io/v1/mutatingwebhookconfigurations/labeller')).status, 200);
  });

  test('pod security records the policy it enforced and what an audited level would refuse', async () => {
    assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'psa', labels: { 'pod-security.cluster.io/audit': 'restricted' } } } })).status, 201);
    const p = await c.request('POST', '/api/v1/namespaces/psa/pods', { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } });
    assert.equal(p.status, 201, p.body);
    const [e] = await waitFor(() => eventsOf(p.headers['audit-id']), es => es.length > 0);
    assert.equal(e!.annotations!['pod-security.cluster.io/enforce-policy'], 'privileged:latest');
    assert.match(e!.annotations!['pod-security.cluster.io/audit-violations']!, /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
  });

  test('a Status answer is recorded by its own fields; a long user agent is cut; a Table\'s rows lose their managed fields where the rule omits them', async () => {
    const missing = await c.get('/api/v1/namespaces/lvl-meta/configmaps/none-such');
    assert.equal(missing.status, 404);
    const [nf] = await waitFor(() => eventsOf(missing.headers['audit-id']), es => es.length > 0);
    assert.deepEqual(nf!.responseStatus, { metadata: {}, status: 'Failure', message: 'configmaps "none-such" not found', reason: 'NotFound',
      details: { name: 'none-such', kind: 'configmaps' }, code: 404 });
    assert.equal((await c.request('POST', '/api/v1/namespaces/lvl-rr/configmaps', { body: configMap('gone') })).status, 201);
    const deleted = await c.request('DELETE', '/api/v1/namespaces/lvl-rr/configmaps/gone', { headers: { 'user-agent': `tool/${'x'.repeat(2000)}` } });
    assert.equal(deleted.status, 200);
    const [del] = await waitFor(() => eventsOf(deleted.headers['audit-id']), es => es.length > 0);
    assert.deepEqual(del!.responseStatus, { metadata: {}, status: 'Success', details: deleted.json.details, code: 200 });
    assert.equal((del as { userAgent?: string }).userAgent, `tool/${'x'.repeat(1019)}...TRUNCATED`);
    const table = await c.get('/api/v1/namespaces/lvl-rr/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.cluster.io' });
    assert.equal(table.json.kind, 'Table', table.body.slice(0, 200));
    const [t] = await waitFor(() => eventsOf(table.headers['audit-id']), es => es.length > 0);
    assert.ok(t!.responseObject.rows.length > 0);
    assert.ok(table.json.rows.some((r: any) => r.object.metadata.managedFields), 'the client gets them');
    assert.ok(t!.responseObject.rows.every((r: any) => r.object.metadata.name && !r.object.metadata.managedFields));
  });

  test('a refusal found past the handler\'s own checks (an apply conflict, a bad patch) is recorded with the answer the client got, not as a failure', async () => {
    const apply = (manager: string, value: string) => c.request('PATCH', `/api/v1/namespaces/lvl-meta/configmaps/owned?fieldManager=${manager}`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned' }, data: { k: value } }, contentType: 'application/apply-patch+yaml' });
    assert.equal((await apply('first', 'a')).status, 201);
    const conflict = await apply('second', 'b');
    assert.equal(conflict.status, 409, conflict.body);
    const badPatch = await c.request('PATCH', '/api/v1/namespaces/lvl-meta/configmaps/owned', { body: [{ op: 'test', path: '/data/k', value: 'z' }],
      contentType: 'application/json-patch+json' });
    assert.equal(badPatch.status, 422, badPatch.body);
    for (const r of [conflict, badPatch]) {
      const es = await waitFor(() => eventsOf(r.headers['audit-id']), x => x.length > 0);
      assert.deepEqual(es.map(e => [e.stage, e.responseStatus?.code]), [['ResponseComplete', r.status]]);
      assert.equal((es[0]!.responseStatus as { reason?: string }).reason, r.json.reason);
    }
  });

  test('a protobuf request and answer are recorded in their JSON form', async () => {
    const protobuf = server.names.protobufMediaType;
    const body = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-protobuf' }, data: { p: 'b' } });
    const created = await c.request('POST', '/api/v1/namespaces/lvl-rr/configmaps', { body, contentType: protobuf, headers: { accept: protobuf } });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers['content-type'], protobuf);
    const [e] = await waitFor(() => eventsOf(created.headers['audit-id']), es => es.length > 0);
    assert.deepEqual(e!.requestObject, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-protobuf' }, data: { p: 'b' } });
    assert.equal(e!.responseObject.kind, 'ConfigMap');
    assert.deepEqual([e!.responseObject.metadata.name, e!.responseObject.data], ['in-protobuf', { p: 'b' }]);
    assert.equal(e!.responseObject.metadata.managedFields, undefined, 'the rule omits managed fields');
    const listed = await c.get('/api/v1/namespaces/lvl-rr/configmaps', { accept: protobuf });
    assert.equal(listed.status, 200);
    const [l] = await waitFor(() => eventsOf(listed.headers['audit-id']), es => es.length > 0);
    assert.equal(l!.responseObject.kind, 'ConfigMapList');
    assert.ok(l!.responseObject.items.some((i: any) => i.metadata.name === 'in-protobuf'));
  });

  test('a request\'s own Audit-ID header names its events and is echoed back; forwarded addresses are its sourceIPs', async () => {
    const r = await c.get('/api/v1/namespaces/lvl-meta', { 'audit-id': 'from-the-client-1' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['audit-id'], 'from-the-client-1');
    const [e] = await waitFor(() => eventsOf('from-the-client-1'), es => es.length > 0);
    assert.equal(e!.objectRef?.name, 'lvl-meta');
    const other = await c.get('/api/v1/namespaces/lvl-meta');
    assert.match(String(other.headers['audit-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-/);
    // the addresses a proxy forwarded, as the reference lists them: what is not an address is left out
    const proxied = await c.get('/api/v1/namespaces/lvl-meta', { 'x-forwarded-for': '10.0.0.1, unknown, 10.0.0.2', 'x-real-ip': '10.0.0.1' });
    const [p] = await waitFor(() => eventsOf(proxied.headers['audit-id']), es => es.length > 0);
    assert.deepEqual((p as { sourceIPs?: string[] }).sourceIPs, ['10.0.0.1', '10.0.0.2', '127.0.0.1']);
  });

  test('a request refused for its credentials is recorded', async () => {
    const r = await call(server, { token: 'nobody-knows-this' }, 'GET', '/api/v1/namespaces/lvl-meta/configmaps');
    assert.equal(r.status, 401);
    const [e] = await waitFor(() => events().filter(x => x.responseStatus?.code === 401), es => es.length > 0);
    assert.equal(e!.stage, 'ResponseStarted');
    assert.deepEqual(e!.user, {});
    // what was tried, as the reference records it, rather than the answer's Status
    assert.deepEqual(e!.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
  });
});

describe('audit of a request whose authentication takes a while', () => {
  test('is stamped received when it arrived, before its authentication, as the reference stamps it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-received-'));
    let reviewedAt = 0;
    const hook = await fakeHttpsService(dir, 'token-hook', async (_req, body) => {
      reviewedAt = Date.now();
      // the review takes a moment: the request was received before it began
      await new Promise(r => setTimeout(r, 100));
      return { apiVersion: body.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'slow-reviewed', groups: ['system:masters'] } } };
    });
    writeWebhookConfig(join(dir, 'hook.json'), hook, '/review');
    writeFileSync(join(dir, 'policy.json'), policy());
    const log = join(dir, 'audit.log');
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${log}`,
      `--authentication-token-webhook-config-file=${join(dir, 'hook.json')}`] });
    try {
      const r = await call(server, { token: 'any' }, 'GET', '/api/v1/namespaces/default');
      assert.equal(r.status, 200, r.body);
      const [e] = await waitFor(() => loggedEvents(log).filter(x => x.auditID === r.headers['audit-id']), es => es.length > 0);
      assert.equal(e!.user.username, 'slow-reviewed');
      const received = Date.parse((e as { requestReceivedTimestamp?: string }).requestReceivedTimestamp ?? '');
      assert.ok(received <= reviewedAt, `received ${received}, reviewed at ${reviewedAt}`);
    } finally {
      await server.close();
      await hook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit log file', () => {
  test('is made at start with its directory, readable by its owner only; a path that cannot be written refuses the start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-file-'));
    try {
      writeFileSync(join(dir, 'policy.json'), JSON.stringify({ apiVersion: 'audit.cluster.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] }));
      const flags = (path: string) => [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${path}`, '--controller-manager=false'];
      await assert.rejects(startTestServer({ flags: flags(dir) }), /--audit-log-path .*: EISDIR/);
      await assert.rejects(startTestServer({ flags: flags(join(dir, 'policy.json', 'audit.log')) }), /--audit-log-path .*: (ENOTDIR|EEXIST)/);
      const file = join(dir, 'logs', 'audit.log');
      const server = await startTestServer({ flags: flags(file) });
      try {
        assert.equal(statSync(file).mode & 0o777, 0o600);
        assert.equal(statSync(join(dir, 'logs')).mode & 0o777, 0o700);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit log rotation', () => {
  test('the log is rotated by size and old files are pruned past --audit-log-maxbackup', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-rotate-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ apiVersion: 'audit.cluster.io/v1', kind: 'Policy', rules: [{ level: 'RequestResponse' }] }));
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${join(dir, 'audit.log')}`,
      '--audit-log-maxsize=1', '--audit-log-maxbackup=2'] });
    const c = createClient(server);
    try {
      const big = 'x'.repeat(200_000);
      // each create is recorded twice (request and response bodies): about 800 kB a request
      for (let i = 0; i < 8; i++) assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `big-${i}` }, data: { big } } })).status, 201);
      const backups = await waitFor(() => readdirSync(dir).filter(f => /^audit-.*\.log$/.test(f)), fs => fs.length === 2);
      assert.equal(backups.length, 2);
      assert.ok(existsSync(join(dir, 'audit.log')));
    } finally {
      c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit log truncation', () => {
  test('an event over the size loses its objects, one still over it is dropped and counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-truncate-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ apiVersion: 'audit.cluster.io/v1', kind: 'Policy', omitStages: ['RequestReceived'],
      rules: [{ level: 'None', nonResourceURLs: ['/healthz*', '/readyz*', '/livez*', '/metrics'] }, { level: 'RequestResponse' }] }));
    const log = join(dir, 'audit.log');
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${log}`,
      '--audit-log-truncate-enabled', '--audit-log-truncate-max-event-size=8192', '--audit-log-truncate-max-batch-size=8192'] });
    const c = createClient(server);
    const eventsOf = (id: unknown) => loggedEvents(log).filter(e => e.auditID === id);
    try {
      const small = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'small' }, data: { a: '1' } } });
      const large = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'large' }, data: { big: 'x'.repeat(20_000) } } });
      // the request line alone (its selector) is over the size: nothing of it can be kept
      const selector = encodeURIComponent(`k in (${Array.from({ length: 1500 }, (_, i) => `v${i}`).join(',')})`);
      const huge = await c.request('GET', `/api/v1/namespaces/default/configmaps?labelSelector=${selector}`);
      assert.deepEqual([small.status, large.status, huge.status], [201, 201, 200]);
      const [kept] = await waitFor(() => eventsOf(small.headers['audit-id']), es => es.length > 0);
      assert.deepEqual(kept!.requestObject.data, { a: '1' });
      assert.equal(kept!.annotations?.['audit.cluster.io/truncated'], undefined);
      const [truncated] = await waitFor(() => eventsOf(large.headers['audit-id']), es => es.length > 0);
      assert.equal(truncated!.requestObject, undefined);
      assert.equal(truncated!.responseObject, undefined);
      assert.equal(truncated!.annotations?.['audit.cluster.io/truncated'], 'true');
      assert.equal(truncated!.objectRef?.resource, 'configmaps');
      assert.equal(truncated!.responseStatus?.code, 201);
      const metrics = await waitFor(() => c.get('/metrics').then(r => r.body), m => /apiserver_audit_error_total\{plugin="truncate"\} [1-9]/.test(m));
      assert.match(metrics, /apiserver_audit_error_total\{plugin="truncate"\} 1\b/);
      // a later request's event is written: the log is not held up behind the dropped one
      const after = await c.request('GET', '/api/v1/namespaces/default/configmaps/small');
      await waitFor(() => eventsOf(after.headers['audit-id']), es => es.length > 0);
      assert.deepEqual(eventsOf(huge.headers['audit-id']), []);
    } finally {
      c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('audit webhook backend', () => {
  let dir: string, sink: FakeService;
  let answer: 'ok' | 'never' = 'ok';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-webhook-'));
    writeFileSync(join(dir, 'policy.json'), policy());
    sink = await fakeHttpsService(dir, 'audit-sink', (_req, _body, res) => {
      if (answer === 'never') return new Promise(() => {});   // holds the connection: a backend that is stuck
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return undefined;
    });
    writeWebhookConfig(join(dir, 'sink.kubeconfig'), sink, '/events');
  });
  after(async () => { await sink?.close(); rmSync(dir, { recursive: true, force: true }); });

  test('receives the events in batches (EventList)', async () => {
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-webhook-config-file=${join(dir, 'sink.kubeconfig')}`,
      '--audit-webhook-batch-max-wait=300ms', '--audit-webhook-batch-max-size=50'] });
    const c = createClient(server);
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) ids.add(String((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody(`w${i}`) })).headers['audit-id']));
      const received = () => sink.requests.flatMap(r => r.body.items as AuditEvent[]).filter(e => ids.has(e.auditID));
      await waitFor(received, es => es.length === 20);
      const batches = sink.requests.filter(r => r.body.items.some((e: AuditEvent) => ids.has(e.auditID)));
      assert.ok(batches.length < 20, `${batches.length} batches for 20 events`);
      assert.equal(batches[0]!.body.kind, 'EventList');
      assert.equal(batches[0]!.body.apiVersion, 'audit.cluster.io/v1');
      assert.equal(batches[0]!.path, '/events');
    } finally {
      c.close();
      await server.close();
    }
  });

  test('a backend that never answers holds no request back: events past the buffer are dropped and counted', async () => {
    answer = 'never';
    // counted before the server starts: its own clients' first requests (the APIService availability controller's
    // lists and watches) may be the ones whose batch goes out first and is never answered
    const before = sink.requests.length;
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-webhook-config-file=${join(dir, 'sink.kubeconfig')}`,
      '--audit-webhook-batch-max-wait=10ms', '--audit-webhook-batch-max-size=5', '--audit-webhook-batch-buffer-size=20',
      // the embedded controller manager's own requests would fill the stuck backend's first batch before this test's
      '--controller-manager=false'] });
    const c = createClient(server);
    try {
      // the first batch goes out and is never answered: the sender is stuck from here on
      assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody('first') })).status, 201);
      await waitFor(() => sink.requests.length, n => n > before);
      for (let i = 0; i < 200; i++) assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody(`stuck-${i}`) })).status, 201);
      assert.equal(sink.requests.length, before + 1, 'the backend is still stuck on its first batch');
      const metrics = (await c.get('/metrics')).body;
      const dropped = Number(/apiserver_audit_error_total\{plugin="webhook"\} (\d+)/.exec(metrics)?.[1]);
      assert.ok(dropped >= 180, `dropped ${dropped}`);
    } finally {
      c.close();
      await server.close();
      answer = 'ok';
    }
  });
});

const configMapBody = (name: string) => ({ metadata: { name }, data: { a: '1' } });

/** every request at Metadata, each stage recorded */
const everyStage = JSON.stringify({ apiVersion: 'audit.cluster.io/v1', kind: 'Policy',
  rules: [{ level: 'None', nonResourceURLs: ['/healthz*', '/readyz*', '/livez*'] }, { level: 'Metadata' }] });

describe('audit backend modes', () => {
  let dir: string, sink: FakeService;
  let answer: 'ok' | 'fail' = 'ok';
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-modes-'));
    writeFileSync(join(dir, 'policy.json'), everyStage);
    sink = await fakeHttpsService(dir, 'audit-sink', (_req, _body, res) => {
      if (answer === 'fail') res.writeHead(500, { 'content-type': 'text/plain' }).end('sink is down');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return undefined;
    });
    writeWebhookConfig(join(dir, 'sink.kubeconfig'), sink, '/events');
  });
  after(async () => { await sink?.close(); rmSync(dir, { recursive: true, force: true }); });

  const receivedStages = (id: string) => sink.requests.flatMap(r => (r.body?.items ?? []) as AuditEvent[]).filter(e => e.auditID === id).map(e => e.stage);

  test('blocking: a request\'s first event has reached the webhook before the request is served', async () => {
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-webhook-config-file=${join(dir, 'sink.kubeconfig')}`,
      '--audit-webhook-mode=blocking', '--controller-manager=false'] });
    const c = createClient(server);
    try {
      for (let i = 0; i < 5; i++) {
        const r = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody(`blocking-${i}`) });
        assert.equal(r.status, 201);
        assert.deepEqual(receivedStages(String(r.headers['audit-id'])).slice(0, 1), ['RequestReceived']);
      }
      // blocking sends each event as it comes: one event a request to the sink
      assert.ok(sink.requests.every(r => r.body.items.length === 1));
    } finally {
      c.close();
      await server.close();
    }
  });

  test('blocking-strict: a request whose first event cannot be written fails with 500; the server serves again once the backend is back', async () => {
    const server = await startTestServer({ flags: [`--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-webhook-config-file=${join(dir, 'sink.kubeconfig')}`,
      '--audit-webhook-mode=blocking-strict', '--audit-webhook-initial-backoff=1ms', '--controller-manager=false',
      // a second backend, the log in the legacy format, in batch mode
      `--audit-log-path=${join(dir, 'strict.log')}`, '--audit-log-format=legacy', '--audit-log-mode=batch'] });
    const c = createClient(server);
    try {
      answer = 'fail';
      const refused = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody('strict-refused') });
      assert.equal(refused.status, 500);
      assert.equal(refused.json.kind, 'Status');
      assert.match(refused.json.message, /failed to store audit event/);
      assert.equal((await c.get('/api/v1/namespaces/default/configmaps/strict-refused')).status, 500, 'nothing is served while the backend fails');
      answer = 'ok';
      // the refused requests are counted
      assert.match((await c.get('/metrics')).body, /^apiserver_audit_requests_rejected_total [1-9]\d*$/m);
      const served = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody('strict-served') });
      assert.equal(served.status, 201);
      assert.equal((await c.get('/api/v1/namespaces/default/configmaps/strict-refused')).status, 404, 'the refused create was never carried out');
      const id = String(served.headers['audit-id']);
      const lines = await waitFor(() => readFileSync(join(dir, 'strict.log'), 'utf8').split('\n').filter(l => l.includes(`id="${id}"`)),
        ls => ls.some(l => l.includes('stage="ResponseComplete"')));
      assert.match(lines.find(l => l.includes('stage="ResponseComplete"'))!,
        /^\d{4}-\d\d-\d\dT[\d:.]+Z AUDIT: id="[^"]+" stage="ResponseComplete" ip="127\.0\.0\.1" method="create" user="[^"]+" groups=".*" as="<self>" asgroups="<lookup>" user-agent="[^"]*" namespace="default" uri="\/api\/v1\/namespaces\/default\/configmaps" response="201"$/);
    } finally {
      answer = 'ok';
      c.close();
      await server.close();
    }
  });
});

describe('audit of a request whose handler fails unexpectedly', () => {
  test('is recorded at the Panic stage; the client gets a 500 Status and the server goes on serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-panic-'));
    writeFileSync(join(dir, 'policy.json'), everyStage);
    const log = join(dir, 'audit.log');
    const { options } = parseApiServerOptions(['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, '--storage-backend=memory',
      '--controller-manager=false', '--scheduler=false', `--audit-policy-file=${join(dir, 'policy.json')}`, `--audit-log-path=${log}`]);
    const errors: string[] = [];
    // a storage whose create of one object fails as a programming error would: not a failure the server knows
    const server = await startApiServer(options, { info() {}, warn() {}, error: m => { errors.push(m); } }, {
      decorateStorage: kv => ({ ...kv, create: (key, value) => (key.endsWith('/panic')
        ? Promise.reject(new TypeError("Cannot read properties of undefined (reading 'revision')")) : kv.create(key, value)) }),
    });
    const c = createClient(server);
    try {
      const r = await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody('panic') });
      assert.equal(r.status, 500);
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.code, 500);
      assert.equal(r.json.reason, 'InternalError');
      const events = () => loggedEvents(log).filter(e => e.auditID === r.headers['audit-id']);
      const recorded = await waitFor(events, es => es.some(e => e.stage === 'Panic'));
      assert.deepEqual(recorded.map(e => e.stage), ['RequestReceived', 'Panic']);
      assert.equal(recorded[1]!.responseStatus?.code, 500);
      assert.ok(errors.some(m => /TypeError: Cannot read properties of undefined/.test(m)), 'the failure is logged with its stack');
      // the server goes on serving
      assert.equal((await c.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMapBody('after-panic') })).status, 201);
      assert.equal((await c.get('/api/v1/namespaces/default/configmaps/after-panic')).status, 200);
    } finally {
      c.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
