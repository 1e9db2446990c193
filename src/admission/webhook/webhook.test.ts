// Admission webhooks against real HTTPS webhook servers on loopback: configuration validation, mutation by
// JSONPatch, denial with the webhook's code and message, timeouts under each failurePolicy, rules and
// selectors, dry run, reinvocation, warnings and audit annotations; and kubectl showing a denial.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../testing.js';
import { clientFromFile, ApiError, type Client } from '../../client/rest-client.js';
import { apiDomains, defaultApiDomain, naming } from '../../api/naming.js';
import type { ApiObject, StatusCause } from '../../api/meta.js';
import type { Pod } from '../../api/types/core-v1.js';
import { dispatchMutating, dispatchValidating } from './dispatch.js';
import type { ApiError as ServerError } from '../../api/status.js';
import { kubectlPath, startKubectlEnv } from '../../../test/e2e/support.js';
import { startWebhookServer, type WebhookServer } from '../../../test/support/admission-webhook.js';
import type { AdmissionAttributes, WebhookSource } from '../../api/admission.js';
import { ensurePki, issueClientCertificate } from '../../pki/pki.js';
import { until } from '../../../test/support/wait.js';

const lastCall = (wh: WebhookServer, path: string) => wh.calls.get(path)!.at(-1)!;
const jsonPatch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
const cm = (name: string, labels?: Record<string, string>, namespace = 'default') =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...(labels ? { labels } : {}) }, data: { a: '1' } });

function hook(wh: WebhookServer, name: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    name, clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
  };
}

describe('admission webhooks', () => {
  let server: TestServer;
  let client: Client;
  let wh: WebhookServer;
  let group: string;
  const mutating = () => client.resource({ group, version: 'v1', resource: 'mutatingwebhookconfigurations' });
  const validating = () => client.resource({ group, version: 'v1', resource: 'validatingwebhookconfigurations' });
  const configMaps = (ns = 'default') => client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true }, ns);
  const failure = async (p: Promise<unknown>) => {
    try { await p; } catch (e) { if (e instanceof ApiError) return e; throw e; }
    assert.fail('the request succeeded');
  };

  /** waits until the webhook plugins' cache holds the configuration (or no longer holds it) */
  async function settled(kind: 'mutating' | 'validating', name: string, present = true) {
    const r = kind === 'mutating' ? mutating() : validating();
    for (let i = 0; i < 200; i++) {
      const { items } = await r.list({ resourceVersion: '0' });
      if (items.some((o: ApiObject) => o.metadata.name === name) === present) return;
      await new Promise(res => setTimeout(res, 10));
    }
    assert.fail(`configuration ${name} never ${present ? 'appeared' : 'went'}`);
  }
  async function withConfig(kind: 'mutating' | 'validating', name: string, webhooks: unknown[], body: () => Promise<void>) {
    await (kind === 'mutating' ? mutating() : validating()).create({ metadata: { name }, webhooks });
    await settled(kind, name);
    try { await body(); } finally {
      await (kind === 'mutating' ? mutating() : validating()).delete(name);
      await settled(kind, name, false);
    }
  }

  before(async () => {
    server = await startTestServer();
    client = await clientFromFile(server.kubeconfig);
    wh = await startWebhookServer();
    group = server.names.group('admissionregistration');
  });
  after(async () => { client?.close(); await server?.close(); await wh?.close(); });

  test('configurations: defaults applied, the reference rules enforced', async () => {
    const created = await mutating().create({ metadata: { name: 'defaults' }, webhooks: [{
      name: 'a.example.com', clientConfig: { service: { namespace: 'default', name: 'svc' } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
    }] });
    const w = created.webhooks[0];
    assert.equal(w.failurePolicy, 'Fail');
    assert.equal(w.matchPolicy, 'Equivalent');
    assert.equal(w.timeoutSeconds, 10);
    assert.equal(w.reinvocationPolicy, 'Never');
    assert.deepEqual(w.namespaceSelector, {});
    assert.deepEqual(w.objectSelector, {});
    assert.equal(w.rules[0].scope, '*');
    assert.equal(w.clientConfig.service.port, 443);
    await mutating().delete('defaults');

    const bad = await failure(validating().create({ metadata: { name: 'bad' }, webhooks: [
      { name: 'short', clientConfig: { url: 'http://u:p@example.com/x?q=1#f' }, sideEffects: 'Some', admissionReviewVersions: ['v2'], timeoutSeconds: 31,
        rules: [{ operations: ['GET'], apiGroups: ['*', 'apps'], apiVersions: ['v1'], resources: ['pods/*', 'pods/status'], scope: 'Everywhere' }] },
      { name: 'dup.example.com', clientConfig: {}, sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Maybe' },
      { name: 'dup.example.com', clientConfig: { url: 'https://example.com' }, admissionReviewVersions: [] },
    ] }));
    assert.equal(bad.code, 422);
    const fields = bad.status.details.causes.map((c: StatusCause) => `${c.field}: ${c.message}`);
    const expected = [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      'webhooks[0].rules[0].operations[0]: Unsupported value: "GET": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiGroups: Invalid value: ["*","apps"]: if \'*\' is present, must not specify other API groups',
      'webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if \'pods/*\' is present, must not specify pods/status',
      'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      'webhooks[1].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[1].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[2].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[2].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
      'webhooks[2].name: Duplicate value: "dup.example.com"',
    ];
    assert.deepEqual(fields.sort(), expected.sort());
  });

  test('a mutating webhook adds a label by JSONPatch; the review carries the request', async () => {
    wh.handle.set('/label', () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]) }));
    await withConfig('mutating', 'label', [hook(wh, 'label.example.com', '/label', { timeoutSeconds: 5 })], async () => {
      const created = await configMaps().create(cm('labelled'));
      assert.deepEqual(created.metadata.labels, { mutated: 'yes' });
      assert.deepEqual((await configMaps().get('labelled')).metadata.labels, { mutated: 'yes' });
      const call = lastCall(wh, '/label');
      assert.equal(call.apiVersion, `${server.names.group('admission')}/v1`);
      assert.equal(call.query, '?timeout=5s');
      assert.equal(call.operation, 'CREATE');
      assert.deepEqual(call.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
      assert.deepEqual(call.resource, { group: '', version: 'v1', resource: 'configmaps' });
      assert.deepEqual(call.requestResource, call.resource);
      assert.equal(call.namespace, 'default');
      assert.equal(call.name, 'labelled');
      assert.equal(call.userInfo.username, 'admin');
      assert.equal(call.object!.metadata.name, 'labelled');
      assert.equal(call.oldObject, null);
      assert.equal(call.dryRun, false);
      assert.equal(call.options!.kind, 'CreateOptions');
      await configMaps().delete('labelled');
    });
  });

  test('what a mutating webhook returns is defaulted, and the strategy prepares the mutated object', async () => {
    const limits = { cpu: '1', memory: '1Gi' };
    wh.handle.set('/sidecar', () => ({ allowed: true, ...jsonPatch([
      { op: 'add', path: '/spec/containers/0/resources', value: { limits } },
      { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'sidecar:1', resources: { limits } } },
    ]) }));
    const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];
    await withConfig('mutating', 'sidecar', [hook(wh, 'sidecar.example.com', '/sidecar', { rules })], async () => {
      const pods = client.resource({ group: '', version: 'v1', resource: 'pods', namespaced: true }, 'default');
      const created = await pods.create({ metadata: { name: 'with-sidecar' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } });
      // the webhook was sent the object as decoding defaults it
      const sent = wh.calls.get('/sidecar')!.at(-1)!.object as Pod;
      assert.deepEqual([sent.spec?.dnsPolicy, sent.spec?.containers[0].imagePullPolicy], ['ClusterFirst', 'IfNotPresent']);
      // the container the webhook added got the defaults too, requests from its limits among them
      const sidecar = created.spec.containers[1];
      assert.deepEqual([sidecar.name, sidecar.imagePullPolicy, sidecar.terminationMessagePath, sidecar.resources.requests],
        ['sidecar', 'IfNotPresent', '/dev/termination-log', limits]);
      // prepare ran after the webhook: the QoS class counts the limits the webhook set
      assert.equal(created.status.qosClass, 'Guaranteed');
      await pods.delete('with-sidecar');
    });
  });

  test('managedFields a mutating webhook leaves unreadable are put back as they were, with a warning; readable ones are kept', async () => {
    wh.handle.set('/fields', r => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/managedFields',
      value: [{ manager: 'webhook', operation: 'Update', apiVersion: 'v1', fieldsType: r.object!.metadata.name === 'garbled' ? 'FieldsV9' : 'FieldsV1', fieldsV1: {} }] }]) }));
    await withConfig('mutating', 'fields', [hook(wh, 'fields.example.com', '/fields')], async () => {
      const res = await client.stream({ method: 'POST', path: '/api/v1/namespaces/default/configmaps?fieldManager=maker', body: cm('garbled') });
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      assert.equal(res.statusCode, 201);
      assert.equal(String(res.headers.warning), '299 - ".metadata.managedFields was in an invalid state after admission; this could be caused by an outdated mutating admission controller; please fix your requests: invalid fieldsType \\"FieldsV9\\" in managed fields entry 0"');
      assert.deepEqual((await configMaps().get('garbled')).metadata.managedFields!.map((e: { manager?: string }) => e.manager), ['maker']);
      const kept = await configMaps().create(cm('readable'), { fieldManager: 'maker' });
      assert.deepEqual(kept.metadata.managedFields!.map((e: { manager?: string }) => e.manager), ['webhook']);
      await configMaps().delete('garbled');
      await configMaps().delete('readable');
    });
  });

  test('a validating webhook denies with its code and message; warnings reach the client', async () => {
    wh.handle.set('/deny', r => r.object!.metadata.name!.startsWith('bad')
      ? { allowed: false, status: { code: 409, message: 'names starting with bad are refused' } }
      : { allowed: true, warnings: ['this object is watched'] });
    await withConfig('validating', 'deny', [hook(wh, 'deny.example.com', '/deny')], async () => {
      const e = await failure(configMaps().create(cm('bad-one')));
      assert.equal(e.code, 409);
      assert.equal(e.status.message, 'admission webhook "deny.example.com" denied the request: names starting with bad are refused');
      const res = await client.stream({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: cm('good-one') });
      for await (const _ of res) { /* drain */ }
      assert.equal(res.statusCode, 201);
      assert.match(String(res.headers.warning), /^299 - "this object is watched"$/);
      await configMaps().delete('good-one');
    });
  });

  test('a webhook that times out: Ignore lets the request through, Fail refuses it', async () => {
    wh.handle.set('/slow', () => 'hang');
    await withConfig('validating', 'slow', [
      hook(wh, 'ignore.example.com', '/slow', { timeoutSeconds: 1, failurePolicy: 'Ignore', objectSelector: { matchLabels: { policy: 'ignore' } } }),
      hook(wh, 'fail.example.com', '/slow', { timeoutSeconds: 1, failurePolicy: 'Fail', objectSelector: { matchLabels: { policy: 'fail' } } }),
    ], async () => {
      const [ignored, failed] = await Promise.all([
        configMaps().create(cm('slow-ignore', { policy: 'ignore' })),
        failure(configMaps().create(cm('slow-fail', { policy: 'fail' }))),
      ]);
      assert.equal(ignored.metadata.name, 'slow-ignore');
      assert.equal(failed.code, 500);
      assert.match(failed.status.message, /^Internal error occurred: failed calling webhook "fail\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=1s": context deadline exceeded$/);
      await configMaps().delete('slow-ignore');
    });
  });

  test('a webhook that offers HTTP/2 is called over it, on one connection; one that does not, over HTTP/1.1', async () => {
    const h2 = await startWebhookServer({ http2: true });
    try {
      h2.handle.set('/check', r => ({ allowed: !r.object!.metadata.name!.startsWith('bad'), status: { message: 'bad name' } }));
      h2.handle.set('/slow', () => 'hang');
      wh.handle.set('/check', () => ({ allowed: true }));
      await withConfig('validating', 'protocols', [
        hook(h2, 'h2.example.com', '/check'), hook(wh, 'h1.example.com', '/check'),
        hook(h2, 'h2-slow.example.com', '/slow', { timeoutSeconds: 1, failurePolicy: 'Fail', objectSelector: { matchLabels: { slow: 'yes' } } }),
      ], async () => {
        await Promise.all(['p-1', 'p-2', 'p-3'].map(name => configMaps().create(cm(name))));
        assert.deepEqual(h2.calls.get('/check')!.map(c => c.httpVersion), ['2.0', '2.0', '2.0']);
        assert.deepEqual(wh.calls.get('/check')!.map(c => c.httpVersion), ['1.1', '1.1', '1.1']);
        const denied = await failure(configMaps().create(cm('bad-p')));
        assert.match(denied.status.message, /admission webhook "h2.example.com" denied the request: bad name/);
        const slow = await failure(configMaps().create(cm('slow-p', { slow: 'yes' })));
        assert.match(slow.status.message, /failed calling webhook "h2-slow.example.com": .*context deadline exceeded$/);
        for (const name of ['p-1', 'p-2', 'p-3']) await configMaps().delete(name);
      });
      assert.equal(h2.connections(), 1);
    } finally {
      await h2.close();
    }
  });

  test('rules, namespaceSelector and objectSelector decide which requests a webhook sees', async () => {
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: 'team-a', labels: { team: 'a' } } });
    wh.handle.set('/sel', () => ({ allowed: false, status: { message: 'seen' } }));
    await withConfig('validating', 'sel', [hook(wh, 'sel.example.com', '/sel', {
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: 'Namespaced' }],
      namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] },
      objectSelector: { matchLabels: { check: 'yes' } },
    })], async () => {
      const denied = await failure(configMaps('team-a').create(cm('x1', { check: 'yes' }, 'team-a')));
      assert.match(denied.message, /denied the request: seen/);
      await configMaps('team-a').create(cm('x2', { check: 'no' }, 'team-a'));           // object selector
      await configMaps().create(cm('x3', { check: 'yes' }));                             // namespace selector
      await configMaps('team-a').update({ ...cm('x2', { check: 'no' }, 'team-a'), data: { b: '2' } });   // UPDATE is not in the rule
      await client.resource({ group: '', version: 'v1', resource: 'secrets', namespaced: true }, 'team-a')
        .create({ metadata: { name: 's', labels: { check: 'yes' } } });                  // another resource
      await configMaps().delete('x3');
    });
  });

  test('DELETE reaches validating and mutating webhooks with the old object only', async () => {
    await configMaps().create(cm('keep'));
    wh.handle.set('/keep', () => ({ allowed: false, status: { code: 403, message: 'kept' } }));
    const deleteRule = { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    for (const kind of ['validating', 'mutating'] as const) {
      await withConfig(kind, 'keep', [hook(wh, `keep-${kind}.example.com`, '/keep', deleteRule)], async () => {
        const e = await failure(configMaps().delete('keep'));
        assert.equal(e.code, 403);
        assert.equal(e.status.message, `admission webhook "keep-${kind}.example.com" denied the request: kept`);
        const call = lastCall(wh, '/keep');
        assert.equal(call.operation, 'DELETE');
        assert.equal(call.object, null);
        assert.equal(call.oldObject!.metadata.name, 'keep');
        assert.equal(call.options!.kind, 'DeleteOptions');
      });
    }
    await configMaps().delete('keep');
  });

  test('the review carries the options the client gave: a write\'s field manager and validation, a delete\'s', async () => {
    const rules = { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] };
    await withConfig('validating', 'options', [hook(wh, 'options.example.com', '/options', rules)], async () => {
      const meta = `${server.names.metaGroup}/v1`;
      await configMaps().create(cm('opts'), { fieldManager: 'maker', fieldValidation: 'Strict' });
      assert.deepEqual(lastCall(wh, '/options').options, { kind: 'CreateOptions', apiVersion: meta, fieldManager: 'maker', fieldValidation: 'Strict' });
      await configMaps().patch('opts', { data: { b: '2' } }, 'merge', { fieldManager: 'patcher' });
      assert.deepEqual(lastCall(wh, '/options').options, { kind: 'UpdateOptions', apiVersion: meta, fieldManager: 'patcher' });
      await configMaps().apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'opts' }, data: { c: '3' } }, { fieldManager: 'applier', dryRun: true });
      assert.deepEqual(lastCall(wh, '/options').options, { kind: 'UpdateOptions', apiVersion: meta, dryRun: ['All'], fieldManager: 'applier' });
      await configMaps().delete('opts', { gracePeriodSeconds: 0, propagationPolicy: 'Foreground' });
      assert.deepEqual(lastCall(wh, '/options').options, { kind: 'DeleteOptions', apiVersion: meta, gracePeriodSeconds: 0, propagationPolicy: 'Foreground' });
    });
  });

  test('dry run: the webhook is told, and sees the request', async () => {
    await withConfig('validating', 'dry', [hook(wh, 'dry.example.com', '/dry', { sideEffects: 'NoneOnDryRun' })], async () => {
      await configMaps().create(cm('dry-one'), { dryRun: true });
      assert.equal(lastCall(wh, '/dry').dryRun, true);
      assert.deepEqual(lastCall(wh, '/dry').options!.dryRun, ['All']);
      await assert.rejects(configMaps().get('dry-one'), (e: ApiError) => e.code === 404);
    });
  });

  test('a service reference is called at an endpoint of the Service, its certificate checked against the Service name', async () => {
    const behind = await startWebhookServer({ hosts: ['hooks.default.svc'] });
    const services = client.resource({ group: '', version: 'v1', resource: 'services', namespaced: true }, 'default');
    const endpoints = client.resource({ group: '', version: 'v1', resource: 'endpoints', namespaced: true }, 'default');
    const serviceHook = (name: string, service: Record<string, unknown>, failurePolicy = 'Fail') => ({
      ...hook(wh, name, '/', { objectSelector: { matchLabels: { svc: name } }, failurePolicy }),
      clientConfig: { service: { namespace: 'default', path: '/check', ...service }, caBundle: behind.caBundle } });
    try {
      await withConfig('validating', 'services', [
        serviceHook('hooks.example.com', { name: 'hooks' }),
        serviceHook('absent.example.com', { name: 'absent' }),
        serviceHook('wrong-name.example.com', { name: 'other', port: 8443 }),
      ], async () => {
        // no Service yet: a clear reason, under Fail a 500
        let e = await failure(configMaps().create(cm('svc-zero', { svc: 'hooks.example.com' })));
        assert.equal(e.code, 500);
        assert.match(e.message, /failed calling webhook "hooks\.example\.com": failed to call webhook: Post "https:\/\/hooks\.default\.svc:443\/check\?timeout=10s": service\/hooks in "default" is not present/);

        const port = Number(new URL(behind.url).port);
        await services.create({ metadata: { name: 'hooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } });
        await endpoints.create({ metadata: { name: 'hooks' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }] });
        behind.handle.set('/check', r => (r.object?.metadata?.name === 'svc-denied' ? { allowed: false, status: { code: 403, message: 'not this one' } } : { allowed: true }));
        await configMaps().create(cm('svc-one', { svc: 'hooks.example.com' }));
        assert.equal(lastCall(behind, '/check').name, 'svc-one');
        assert.equal(lastCall(behind, '/check').query, '?timeout=10s');
        e = await failure(configMaps().create(cm('svc-denied', { svc: 'hooks.example.com' })));
        assert.equal(e.code, 403);
        assert.match(e.message, /admission webhook "hooks\.example\.com" denied the request: not this one/);

        e = await failure(configMaps().create(cm('svc-absent', { svc: 'absent.example.com' })));
        assert.match(e.message, /service\/absent in "default" is not present/);

        // the same endpoint under another Service's name: its certificate does not name other.default.svc
        await services.create({ metadata: { name: 'other' }, spec: { ports: [{ port: 8443, targetPort: port }] } });
        await endpoints.create({ metadata: { name: 'other' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] });
        e = await failure(configMaps().create(cm('svc-other', { svc: 'wrong-name.example.com' })));
        assert.equal(e.code, 500);
        assert.match(e.message, /Post "https:\/\/other\.default\.svc:8443\/check\?timeout=10s": tls: failed to verify certificate: x509: .*other\.default\.svc/);
      });
    } finally {
      for (const name of ['hooks', 'other']) {
        await services.delete(name).catch(() => {});
        await endpoints.delete(name).catch(() => {});
      }
      await behind.close();
    }
  });
});

/** the webhook plugins' kubeConfigFile: what this server presents to each webhook */
describe('credentials presented to webhooks', () => {
  test('each webhook gets its own: a token by host and port, a client certificate for the rest; the mutating plugin has its own file', async () => {
    const tokenHook = await startWebhookServer();
    const certHook = await startWebhookServer({ http2: true });
    const dir = mkdtempSync(join(tmpdir(), 'webhook-credentials-'));
    const ca = await ensurePki(join(dir, 'pki'), { hosts: ['127.0.0.1'] });
    const caller = issueClientCertificate({ certPem: ca.caCertPem, keyPem: ca.caKeyPem }, 'webhook-caller');
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    writeFileSync(join(dir, 'validating.kubeconfig'), JSON.stringify({ apiVersion: 'v1', kind: 'Config', users: [
      { name: new URL(tokenHook.url).host, user: { token: 'validating-token' } },
      { name: '*', user: { 'client-certificate-data': b64(caller.certPem), 'client-key-data': b64(caller.keyPem) } },
    ] }));
    writeFileSync(join(dir, 'mutating.kubeconfig'), JSON.stringify({ apiVersion: 'v1', kind: 'Config', users: [{ name: '*', user: { username: 'mutator', password: 'secret' } }] }));
    const group = naming(defaultApiDomain).group('apiserver.config');
    writeFileSync(join(dir, 'admission.json'), JSON.stringify({ apiVersion: `${group}/v1`, kind: 'AdmissionConfiguration', plugins: [
      { name: 'ValidatingAdmissionWebhook', configuration: { apiVersion: `${group}/v1`, kind: 'WebhookAdmissionConfiguration', kubeConfigFile: 'validating.kubeconfig' } },
      { name: 'MutatingAdmissionWebhook', configuration: { apiVersion: `${group}/v1alpha1`, kind: 'WebhookAdmission', kubeConfigFile: join(dir, 'mutating.kubeconfig') } },
    ] }));
    const server = await startTestServer({ flags: [`--admission-control-config-file=${join(dir, 'admission.json')}`] });
    const client = await clientFromFile(server.kubeconfig);
    try {
      const admissionGroup = server.names.group('admissionregistration');
      await client.resource({ group: admissionGroup, version: 'v1', resource: 'validatingwebhookconfigurations' })
        .create({ metadata: { name: 'checks' }, webhooks: [hook(tokenHook, 'token.example.com', '/validate'), hook(certHook, 'cert.example.com', '/validate')] });
      await client.resource({ group: admissionGroup, version: 'v1', resource: 'mutatingwebhookconfigurations' })
        .create({ metadata: { name: 'defaults' }, webhooks: [hook(tokenHook, 'mutate.example.com', '/mutate')] });
      const configMaps = client.resource({ group: '', version: 'v1', resource: 'configmaps', namespaced: true }, 'default');
      // the plugins see new configurations a moment after they are stored
      let n = 0;
      await until(async () => {
        await configMaps.create(cm(`credentials-${++n}`));
        return ['/validate', '/mutate'].every(p => tokenHook.calls.has(p)) && certHook.calls.has('/validate');
      }, 'every webhook to be called');
      assert.equal(lastCall(tokenHook, '/validate').authorization, 'Bearer validating-token');
      assert.equal(lastCall(tokenHook, '/validate').clientCommonName, undefined);
      assert.equal(lastCall(certHook, '/validate').clientCommonName, 'webhook-caller');
      assert.equal(lastCall(certHook, '/validate').authorization, undefined);
      assert.equal(lastCall(tokenHook, '/mutate').authorization, `Basic ${b64('mutator:secret')}`);
    } finally {
      client.close();
      await server.close();
      await tokenHook.close();
      await certHook.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** the dispatcher alone, with configurations handed to it directly: what the API cannot store, and audit annotations */
describe('webhook dispatch', () => {
  let wh: WebhookServer;
  before(async () => { wh = await startWebhookServer(); });
  after(async () => { await wh?.close(); });
  const names = naming();
  const deps = (mutatingHooks: unknown[], validatingHooks: unknown[] = []) => {
    const source: WebhookSource = {
      configurations: async kind => [{ apiVersion: 'v1', kind: 'X', metadata: { name: 'cfg' },
        webhooks: kind === 'mutatingwebhookconfigurations' ? mutatingHooks : validatingHooks } as ApiObject],
      servedVersions: () => ['v1'],
      kindFor: () => ({ group: '', version: 'v1', kind: 'ConfigMap' }),
      convert: async (_g, _r, o) => o,
    };
    return { source, names, listers: { get: async () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }), list: async () => [] } };
  };
  const attrs = (object: ApiObject, dryRun = false) => {
    const annotations: Record<string, string> = {};
    const warnings: string[] = [];
    const a: AdmissionAttributes = {
      operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      namespace: 'default', name: object.metadata.name!, object, dryRun, user: { username: 'u', groups: [] },
      warn: m => warnings.push(m), annotate: (k, v) => { annotations[k] = v; },
    };
    return { a, annotations, warnings };
  };

  test('reinvocation: an IfNeeded webhook runs again after a later webhook changed the object', async () => {
    // idempotent: once its label is there it changes nothing
    wh.handle.set('/first', r => r.object!.metadata.labels?.first
      ? { allowed: true }
      : { allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels', value: { first: 'x' } }]) });
    wh.handle.set('/second', () => ({ allowed: true, ...jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'y' }]),
      auditAnnotations: { note: 'hello', 'not a key': 'dropped', 'two/parts': 'dropped' } }));
    wh.handle.set('/never', () => ({ allowed: true }));
    const { a, annotations } = attrs(cm('r') as ApiObject);
    const d = deps([hook(wh, 'first.example.com', '/first', { reinvocationPolicy: 'IfNeeded' }),
      hook(wh, 'second.example.com', '/second', { reinvocationPolicy: 'Never' }),
      hook(wh, 'never.example.com', '/never', { reinvocationPolicy: 'IfNeeded' })]);
    const before = wh.calls.get('/first')?.length ?? 0;
    await dispatchMutating(a, d);
    assert.equal((wh.calls.get('/first')?.length ?? 0) - before, 2);
    assert.deepEqual(a.object!.metadata.labels, { first: 'x', second: 'y' });
    assert.deepEqual(lastCall(wh, '/first').object!.metadata.labels, { first: 'x', second: 'y' });
    const key = (r: number, i: number) => `mutation.webhook.admission.${names.domain}/round_${r}_index_${i}`;
    assert.deepEqual(JSON.parse(annotations[key(0, 0)]), { configuration: 'cfg', webhook: 'first.example.com', mutated: true });
    assert.deepEqual(JSON.parse(annotations[key(0, 1)]), { configuration: 'cfg', webhook: 'second.example.com', mutated: true });
    assert.deepEqual(JSON.parse(annotations[key(0, 2)]), { configuration: 'cfg', webhook: 'never.example.com', mutated: false });
    assert.deepEqual(JSON.parse(annotations[key(1, 0)]), { configuration: 'cfg', webhook: 'first.example.com', mutated: false });
    assert.equal(annotations[key(1, 1)], undefined);   // Never
    assert.equal(annotations[key(1, 2)], undefined);   // called after the last change: not again
    assert.equal(annotations['second.example.com/note'], 'hello');
    // keys that are no qualified names are left out
    assert.deepEqual(Object.keys(annotations).filter(k => k.startsWith('second.example.com/')), ['second.example.com/note']);
  });

  test('a denial without a code, or with one under 400, is a 400 with the webhook\'s message', async () => {
    wh.handle.set('/no-code', () => ({ allowed: false, status: { message: 'no' } }));
    wh.handle.set('/ok-code', () => ({ allowed: false, status: { code: 200, reason: 'Because' } }));
    const { a } = attrs(cm('n') as ApiObject);
    await assert.rejects(dispatchValidating(a, deps([], [hook(wh, 'plain.example.com', '/no-code')])),
      (e: ServerError) => e.code === 400 && e.message === 'admission webhook "plain.example.com" denied the request: no' && e.status.reason === undefined);
    await assert.rejects(dispatchMutating(a, deps([hook(wh, 'odd.example.com', '/ok-code')])),
      (e: ServerError) => e.code === 400 && e.message === 'admission webhook "odd.example.com" denied the request: Because' && e.status.status === 'Failure');
  });

  test('patches: a validating webhook may not answer with one (v1); v1beta1 patches are JSON patches whatever their type says', async () => {
    const labelled = jsonPatch([{ op: 'add', path: '/metadata/labels', value: { patched: 'yes' } }]);
    wh.handle.set('/patching', () => ({ allowed: true, ...labelled }));
    wh.handle.set('/untyped', () => ({ allowed: true, patch: labelled.patch }));
    wh.handle.set('/merge', () => ({ allowed: true, patch: labelled.patch, patchType: 'MergePatch' }));
    const { a } = attrs(cm('q') as ApiObject);
    await assert.rejects(dispatchValidating(a, deps([], [hook(wh, 'v.example.com', '/patching')])),
      (e: ServerError) => e.code === 500 && e.message === 'Internal error occurred: failed calling webhook "v.example.com": received invalid webhook response: validating webhook may not return response.patch');
    await dispatchValidating(a, deps([], [hook(wh, 'v-old.example.com', '/patching', { admissionReviewVersions: ['v1beta1'] })]));
    await assert.rejects(dispatchMutating(a, deps([hook(wh, 'm.example.com', '/merge')])),
      (e: ServerError) => e.code === 500 && e.message === 'Internal error occurred: failed calling webhook "m.example.com": unsupported patch type "MergePatch"');
    assert.equal(a.object!.metadata.labels, undefined);
    await dispatchMutating(a, deps([hook(wh, 'm-old.example.com', '/untyped', { admissionReviewVersions: ['v1beta1'] })]));
    assert.deepEqual(a.object!.metadata.labels, { patched: 'yes' });
  });

  test('a patch that nests the object deeper than a request body may be is refused; the object is left as it was', async () => {
    const nested = (n: number) => `${'{"a":'.repeat(n)}"x"${'}'.repeat(n)}`;
    const patchOf = (n: number) => ({ patchType: 'JSONPatch', patch: Buffer.from(`[{"op":"add","path":"/data","value":${nested(n)}}]`).toString('base64') });
    wh.handle.set('/deep', () => ({ allowed: true, ...patchOf(3000) }));
    wh.handle.set('/shallow', () => ({ allowed: true, ...patchOf(50) }));
    const { a } = attrs(cm('deep') as ApiObject);
    await assert.rejects(dispatchMutating(a, deps([hook(wh, 'deep.example.com', '/deep')])),
      (e: ServerError) => e.code === 500 && e.message === 'Internal error occurred: admission webhook "deep.example.com" returned an object nested more than 1000 levels deep');
    assert.deepEqual(a.object!.data, { a: '1' });
    await dispatchMutating(a, deps([hook(wh, 'shallow.example.com', '/shallow')]));
    assert.equal(JSON.stringify(a.object!.data).length, nested(50).length);
  });

  test('a webhook answering with an HTTP failure is told of as the reference\'s client tells of it', async () => {
    wh.handle.set('/missing', () => ({ httpStatus: 404, body: '404 page not found' }));
    wh.handle.set('/broken-server', () => ({ httpStatus: 500, body: 'boom' }));
    wh.handle.set('/moved', () => ({ httpStatus: 302 }));
    const { a } = attrs(cm('h') as ApiObject);
    const failure = (path: string, words: string) => assert.rejects(dispatchValidating(a, deps([], [hook(wh, 'h.example.com', path)])),
      (e: ServerError) => e.code === 500 && e.message === `Internal error occurred: failed calling webhook "h.example.com": failed to call webhook: ${words}`);
    await failure('/missing', 'the server could not find the requested resource');
    await failure('/broken-server', 'an error on the server ("boom") has prevented the request from succeeding');
    await failure('/moved', 'the server responded with the status code 302 but did not return more information');
  });

  test('a webhook passed over under failurePolicy Ignore is named in the audit event, by its place as the reference counts it', async () => {
    wh.handle.set('/broken', () => ({ allowed: true, uid: 'not-the-request' }));
    const unmatched = { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] };
    const { a, annotations } = attrs(cm('o') as ApiObject);
    await dispatchMutating(a, deps([hook(wh, 'm-other.example.com', '/fine', unmatched),
      hook(wh, 'm-broken.example.com', '/broken', { failurePolicy: 'Ignore' })]));
    // validating webhooks are numbered among those whose rules matched the request
    await dispatchValidating(a, deps([], [hook(wh, 'v-other.example.com', '/fine', unmatched), hook(wh, 'v-fine.example.com', '/fine'),
      hook(wh, 'v-broken.example.com', '/broken', { failurePolicy: 'Ignore' })]));
    assert.equal(annotations[`failed-open.mutation.webhook.admission.${names.domain}/round_0_index_1`], 'm-broken.example.com');
    assert.equal(annotations[`failed-open.validating.webhook.admission.${names.domain}/round_0_index_1`], 'v-broken.example.com');
    assert.deepEqual(Object.keys(annotations).filter(k => k.startsWith('failed-open.')).length, 2);
    // under Fail the request is refused, and nothing says it failed open
    const { a: b, annotations: none } = attrs(cm('p') as ApiObject);
    await assert.rejects(dispatchValidating(b, deps([], [hook(wh, 'v-broken.example.com', '/broken', { failurePolicy: 'Fail' })])),
      (e: ServerError) => e.code === 500 && /received invalid webhook response: expected response\.uid=/.test(e.message));
    assert.deepEqual(Object.keys(none).filter(k => k.startsWith('failed-open.')), []);
  });

  test('dry run refuses a webhook with side effects; v1beta1 is sent when it is the only version', async () => {
    const { a } = attrs(cm('d') as ApiObject, true);
    await assert.rejects(dispatchValidating(a, deps([], [hook(wh, 'side.example.com', '/side', { sideEffects: 'Some' })])),
      (e: ServerError) => e.code === 400 && e.message === 'admission webhook "side.example.com" does not support dry run');
    assert.equal(wh.calls.get('/side'), undefined);
    const { a: b } = attrs(cm('e') as ApiObject);
    await dispatchValidating(b, deps([], [hook(wh, 'old.example.com', '/old', { admissionReviewVersions: ['v1beta1'] })]));
    assert.equal(lastCall(wh, '/old').apiVersion, `${names.group('admission')}/v1beta1`);
    await assert.rejects(dispatchValidating(b, deps([], [hook(wh, 'new.example.com', '/old', { admissionReviewVersions: ['v2'] })])),
      (e: ServerError) => e.code === 500 && /does not accept known AdmissionReview versions/.test(e.message));
  });
});

/** the reference's names, so unmodified kubectl works */
const referenceDomain = apiDomains.find(d => d !== defaultApiDomain)!;

describe('kubectl 1.32 (reference names) and a denying webhook', { skip: !existsSync(kubectlPath('1.32')) }, () => {
  test('kubectl create shows the webhook message', async () => {
    const wh = await startWebhookServer();
    const k = await startKubectlEnv('1.32', referenceDomain);
    try {
      wh.handle.set('/deny', () => ({ allowed: false, status: { message: 'no config maps today' } }));
      await k.ok(['create', '-f', k.manifest('vwc.yaml', [{
        apiVersion: `${k.server.names.group('admissionregistration')}/v1`, kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'deny' }, webhooks: [hook(wh, 'deny.example.com', '/deny')],
      }])]);
      let r = await k.run(['create', 'configmap', 'refused', '--from-literal=a=1']);
      for (let i = 0; i < 50 && r.code === 0; i++) {   // the configuration reaches the plugin's cache shortly after it is stored
        await k.run(['delete', 'configmap', 'refused']);
        await new Promise(res => setTimeout(res, 20));
        r = await k.run(['create', 'configmap', 'refused', '--from-literal=a=1']);
      }
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /admission webhook "deny\.example\.com" denied the request: no config maps today/);
    } finally {
      await k.close();
      await wh.close();
    }
  });
});
