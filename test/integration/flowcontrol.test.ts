// API priority and fairness against a real server: the default objects served and kept in place, the response
// headers in both domains, Dangling conditions, a flood from one user that does not starve another, a list whose
// client went away giving its seat back, and the simple in-flight limits when priority and fairness is off.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createClient, type Client, type Reply } from './client.js';
import { until } from '../support/wait.js';

const as = (user: string) => ({ 'Impersonate-User': user });

async function grantAdmin(c: Client, server: TestServer, users: string[]) {
  const rbac = server.names.group('rbac.authorization');
  const r = await c.request('POST', `/apis/${rbac}/v1/clusterrolebindings`, {
    body: {
      apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: `flood-${users.join('-')}` },
      roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: users.map(name => ({ apiGroup: rbac, kind: 'User', name })),
    },
  });
  assert.equal(r.status, 201, r.body);
}

async function fillNamespace(c: Client, ns: string, count: number, bytesEach: number) {
  assert.equal((await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status, 201);
  const data = { blob: 'x'.repeat(bytesEach) };
  for (let i = 0; i < count; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
      const r = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}` }, data } });
      assert.equal(r.status, 201, r.body);
    }));
  }
}

/** the row of one level in dump_priority_levels, by column name */
async function levelRow(c: Client, level: string): Promise<Record<string, string>> {
  const text = (await c.get('/debug/api_priority_and_fairness/dump_priority_levels')).body;
  const [head, ...rows] = text.trim().split('\n').map(l => l.split(',').map(x => x.trim()));
  const row = rows.find(r => r[0] === level);
  assert.ok(row, `no level ${level} in\n${text}`);
  return Object.fromEntries(head.map((h, i) => [h, row[i]]));
}

for (const domain of ['k8s.io', 'cluster.io'] as const) {
  describe(`the default configuration [${domain}]`, () => {
    let server: TestServer, c: Client;
    before(async () => { server = await startTestServer({ apiDomain: domain }); c = createClient(server); });
    after(async () => { c.close(); await server.close(); });
    const base = () => `/apis/${server.names.group('flowcontrol.apiserver')}/v1beta3`;
    const names = (r: Reply) => (r.json.items as Array<{ metadata: { name: string } }>).map(i => i.metadata.name).sort();

    test('the mandatory and suggested objects are served, and responses name the schema and level by uid', async () => {
      const schemas = ['catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler',
        'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election'];
      const levels = ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low'];
      await until(async () => names(await c.get(`${base()}/flowschemas`)).join() === schemas.join()
        && names(await c.get(`${base()}/prioritylevelconfigurations`)).join() === levels.join(), 'the default objects');
      const exempt = (await c.get(`${base()}/flowschemas/exempt`)).json;
      assert.equal(exempt.metadata.annotations[`apf.${server.names.labelDomain}/autoupdate-spec`], 'true');
      // written under the reference's manager names: the spec by the producer, the Dangling condition by the consumer
      await until(async () => ((await c.get(`${base()}/flowschemas/exempt`)).json.metadata.managedFields ?? []).length === 2, 'the status writer in managedFields');
      const managers = (await c.get(`${base()}/flowschemas/exempt`)).json.metadata.managedFields
        .map((f: { manager: string; subresource?: string; fieldsV1: object }) => [f.manager, f.subresource ?? '', Object.keys(f.fieldsV1).sort().join()]).sort();
      assert.deepEqual(managers, [['api-priority-and-fairness-config-consumer-v1', 'status', 'f:status'],
        ['api-priority-and-fairness-config-producer-v1', '', 'f:metadata,f:spec']]);
      const exemptLevel = (await c.get(`${base()}/prioritylevelconfigurations/exempt`)).json;
      const header = domain === 'k8s.io' ? 'x-kubernetes-pf' : 'x-cluster-pf';
      const r = await c.get('/api/v1/namespaces');
      assert.equal(r.headers[`${header}-flowschema-uid`], exempt.metadata.uid);
      assert.equal(r.headers[`${header}-prioritylevel-uid`], exemptLevel.metadata.uid);
      const global = (await c.get(`${base()}/flowschemas/global-default`)).json;
      await grantAdmin(c, server, ['carol']);
      assert.equal((await c.get('/api/v1/namespaces', as('carol'))).headers[`${header}-flowschema-uid`], global.metadata.uid);
    });

    test('the debug dumps list levels, queues and waiting requests, and /metrics has the apiserver_flowcontrol_* families', async () => {
      await grantAdmin(c, server, ['dave']);
      assert.equal((await c.get('/api/v1/namespaces', as('dave'))).status, 200);
      const levels = await c.get('/debug/api_priority_and_fairness/dump_priority_levels');
      assert.match(levels.body, /^PriorityLevelName, ActiveQueues, IsIdle/);
      const queues = await c.get('/debug/api_priority_and_fairness/dump_queues');
      assert.equal(queues.status, 200);
      assert.match(queues.body, /^PriorityLevelName, +Index, +PendingRequests, +ExecutingRequests, +SeatsInUse, +NextDispatchR, +InitialSeatsSum, +MaxSeatsSum, +TotalWorkSum$/m);
      assert.match(queues.body, /^global-default, +127, +0, /m, 'a row per queue (128 for global-default)');
      assert.match(queues.body, /^exempt, +<none>, /m);
      assert.doesNotMatch(queues.body, /^catch-all,/m, 'a level that rejects rather than queues has no queues');
      assert.match(levels.body, /^exempt, +<none>, +<none>, /m, 'an exempt level has no queues to tell of');
      const requests = await c.get('/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1');
      assert.match(requests.body, /^PriorityLevelName, +FlowSchemaName, +QueueIndex, +RequestIndexInQueue, +FlowDistingsher, +ArriveTime, +InitialSeats, +FinalSeats, +AdditionalLatency, +UserName, +Verb, +APIPath, +Namespace, +Name, +APIVersion, +Resource, +SubResource$/m);
      const metrics = (await c.get('/metrics')).body;
      for (const family of ['dispatched_requests_total', 'request_wait_duration_seconds_bucket', 'request_execution_seconds_bucket', 'work_estimated_seats_bucket',
        'request_queue_length_after_enqueue_bucket', 'nominal_limit_seats', 'lower_limit_seats', 'upper_limit_seats', 'current_limit_seats', 'demand_seats_high_watermark', 'target_seats', 'current_r'])
        assert.match(metrics, new RegExp(`^apiserver_flowcontrol_${family}\\{[^}]*priority_level="global-default"`, 'm'), family);
      assert.match(metrics, /^apiserver_flowcontrol_seat_fair_frac /m);
    });

    test('a mandatory object changed or deleted comes back; a suggested one whose autoupdate is off is left alone', async () => {
      const catchAll = (await c.get(`${base()}/flowschemas/catch-all`)).json;
      assert.equal((await c.request('DELETE', `${base()}/flowschemas/catch-all`)).status, 200);
      await until(async () => { const r = await c.get(`${base()}/flowschemas/catch-all`); return r.status === 200 && r.json.metadata.uid !== catchAll.metadata.uid; },
        'catch-all to be created again');
      const catchAllLevel = (await c.get(`${base()}/prioritylevelconfigurations/catch-all`)).json;
      const changed = await c.request('PUT', `${base()}/prioritylevelconfigurations/catch-all`, {
        body: { ...catchAllLevel, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 50, limitResponse: { type: 'Reject' } } } },
      });
      assert.equal(changed.status, 200, changed.body);
      await until(async () => (await c.get(`${base()}/prioritylevelconfigurations/catch-all`)).json.spec.limited.nominalConcurrencyShares === 5,
        'the catch-all level restored');

      const annotation = `apf.${server.names.labelDomain}/autoupdate-spec`;
      const global = (await c.get(`${base()}/prioritylevelconfigurations/global-default`)).json;
      global.metadata.annotations[annotation] = 'false';
      global.spec.limited.nominalConcurrencyShares = 7;
      assert.equal((await c.request('PUT', `${base()}/prioritylevelconfigurations/global-default`, { body: global })).status, 200);
      // a change that is restored shows the keeper has run since
      const ref = (await c.get(`${base()}/flowschemas/probes`)).json;
      assert.equal((await c.request('PUT', `${base()}/flowschemas/probes`, { body: { ...ref, spec: { ...ref.spec, matchingPrecedence: 3 } } })).status, 200);
      await until(async () => (await c.get(`${base()}/flowschemas/probes`)).json.spec.matchingPrecedence === 2, 'the probes schema restored');
      assert.equal((await c.get(`${base()}/prioritylevelconfigurations/global-default`)).json.spec.limited.nominalConcurrencyShares, 7);
    });

    test('invalid objects are refused with the reference\'s reasons', async () => {
      const apiVersion = `${server.names.group('flowcontrol.apiserver')}/v1beta3`;
      const level = (name: string, spec: unknown) => c.request('POST', `${base()}/prioritylevelconfigurations`, { body: { apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name }, spec } });
      const queued = (queuing: unknown) => ({ type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Queue', queuing } } });
      const causes = (r: Reply) => (r.json.details?.causes ?? []).map((x: { field: string }) => x.field);
      let r = await level('big-hand', queued({ queues: 4, handSize: 8, queueLengthLimit: 5 }));
      assert.equal(r.status, 422, r.body);
      assert.deepEqual(causes(r), ['spec.limited.limitResponse.queuing.handSize']);
      r = await level('entropy', queued({ queues: 10000, handSize: 10, queueLengthLimit: 5 }));
      assert.match(r.json.message, /required entropy bits of deckSize 10000 and handSize 10 should not be greater than 60/);
      r = await level('not-exempt', { type: 'Exempt' });
      assert.match(r.json.message, /type must be 'Exempt' if and only if name is 'exempt'/);
      r = await level('defaulted', { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } });
      assert.equal(r.status, 201, r.body);
      assert.deepEqual(r.json.spec.limited, { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } });
      const schema = (name: string, spec: unknown) => c.request('POST', `${base()}/flowschemas`, { body: { apiVersion, kind: 'FlowSchema', metadata: { name }, spec } });
      r = await schema('bad', { priorityLevelConfiguration: { name: 'x' }, matchingPrecedence: 20000,
        rules: [{ subjects: [{ kind: 'User', user: { name: 'a' } }], resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*'], resources: ['*'] }] }] });
      assert.equal(r.status, 422, r.body);
      assert.deepEqual(causes(r).sort(), ['spec.matchingPrecedence', 'spec.rules[0].resourceRules[0].namespaces', 'spec.rules[0].resourceRules[0].verbs']);
      r = await schema('defaulted', { priorityLevelConfiguration: { name: 'global-default' } });
      assert.equal(r.status, 201, r.body);
      assert.equal(r.json.spec.matchingPrecedence, 1000);
    });

    test('v1beta2 names a level\'s shares assuredConcurrencyShares, in what it takes and what it returns; v1beta3 reads them as nominalConcurrencyShares', async () => {
      const v1beta2 = `/apis/${server.names.group('flowcontrol.apiserver')}/v1beta2/prioritylevelconfigurations`;
      const created = await c.request('POST', v1beta2, {
        body: { apiVersion: `${server.names.group('flowcontrol.apiserver')}/v1beta2`, kind: 'PriorityLevelConfiguration', metadata: { name: 'older' },
          spec: { type: 'Limited', limited: { assuredConcurrencyShares: 7, limitResponse: { type: 'Reject' } } } },
      });
      assert.equal(created.status, 201, created.body);
      assert.deepEqual(created.json.spec.limited, { assuredConcurrencyShares: 7, lendablePercent: 0, limitResponse: { type: 'Reject' } });
      const current = (await c.get(`${base()}/prioritylevelconfigurations/older`)).json;
      assert.deepEqual(current.spec.limited, { nominalConcurrencyShares: 7, lendablePercent: 0, limitResponse: { type: 'Reject' } });
      const suggested = (await c.get(`${v1beta2}/workload-low`)).json;
      assert.equal(suggested.spec.limited.assuredConcurrencyShares, 100);
      assert.equal(suggested.spec.limited.nominalConcurrencyShares, undefined);
      const listed = (await c.get(v1beta2)).json.items as Array<{ spec: { limited?: Record<string, unknown> } }>;
      assert.ok(listed.every(l => !l.spec.limited || ('assuredConcurrencyShares' in l.spec.limited && !('nominalConcurrencyShares' in l.spec.limited))));
    });

    test('a FlowSchema naming a missing level is Dangling', async () => {
      const created = await c.request('POST', `${base()}/flowschemas`, {
        body: { apiVersion: `${server.names.group('flowcontrol.apiserver')}/v1beta3`, kind: 'FlowSchema', metadata: { name: 'orphan' },
          spec: { priorityLevelConfiguration: { name: 'missing' }, matchingPrecedence: 5000, rules: [] } },
      });
      assert.equal(created.status, 201, created.body);
      const dangling = async () => ((await c.get(`${base()}/flowschemas/orphan`)).json.status?.conditions ?? [])
        .find((x: { type: string }) => x.type === 'Dangling');
      await until(async () => (await dangling())?.status === 'True', 'the Dangling condition');
      assert.equal((await dangling()).reason, 'NotFound');
      assert.equal((await dangling()).status, 'True');
      const exempt = (await c.get(`${base()}/flowschemas/exempt`)).json;
      assert.equal(exempt.status.conditions.find((x: { type: string }) => x.type === 'Dangling').status, 'False');
    });
  });
}

describe('fair queuing under a flood', () => {
  let server: TestServer, c: Client;
  const group = () => server.names.group('flowcontrol.apiserver');
  before(async () => {
    // two seats in all: the test level gets both, and alice's lists take the whole level each
    // no controllers: the root-CA publisher would add a ConfigMap to the namespace the lists count
    server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--max-requests-inflight=1', '--max-mutating-requests-inflight=1', '--controller-manager=false'] });
    c = createClient(server);
    await grantAdmin(c, server, ['alice', 'bob']);
    const apiVersion = `${group()}/v1beta3`;
    assert.equal((await c.request('POST', `/apis/${apiVersion}/prioritylevelconfigurations`, {
      body: { apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name: 'flood-test' },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1000, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 2, queueLengthLimit: 20 } } } } },
    })).status, 201);
    const fs = await c.request('POST', `/apis/${apiVersion}/flowschemas`, {
      body: { apiVersion, kind: 'FlowSchema', metadata: { name: 'flood-test' },
        spec: { priorityLevelConfiguration: { name: 'flood-test' }, matchingPrecedence: 50, distinguisherMethod: { type: 'ByUser' },
          rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }, { kind: 'User', user: { name: 'bob' } }],
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }] } },
    });
    assert.equal(fs.status, 201, fs.body);
    await until(async () => (await c.get('/api/v1/namespaces', as('alice'))).headers['x-kubernetes-pf-flowschema-uid'] === fs.json.metadata.uid,
      'the test schema in effect');
    // lists of 1.2 MB: more than a response is written ahead of its client, so each holds its seats while it is read
    await fillNamespace(c, 'small', 300, 4000);
  });
  after(async () => { c.close(); await server.close(); });

  test('a flood from one user is refused with 429 past its queues while another user is served', async () => {
    const alice = createClient(server), bob = createClient(server);
    try {
      let aliceServed = 0, aliceRefused = 0;
      let firstRefusal: Reply | undefined;
      const flood = Array.from({ length: 150 }, async () => {
        const r = await alice.get('/api/v1/namespaces/small/configmaps', as('alice'));
        if (r.status === 200) aliceServed++;
        else { assert.equal(r.status, 429, r.body); aliceRefused++; firstRefusal ??= r; }
      });
      await until(() => aliceRefused > 0, 'alice to be refused');
      assert.equal(firstRefusal!.headers['retry-after'], '1');
      assert.equal(firstRefusal!.json.reason, 'TooManyRequests');
      // alice's queues are full; bob's requests go to queues of their own and are served among hers
      // (whether her queued lists are then served or time out waiting depends on the machine's speed)
      const alicePending: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await bob.get('/api/v1/namespaces/small/configmaps', as('bob'));
        assert.equal(r.status, 200, r.body);
        assert.equal(r.json.items.length, 300);
        alicePending.push(150 - aliceServed - aliceRefused);
      }
      await Promise.all(flood);
      assert.equal(aliceServed + aliceRefused, 150);
      assert.ok(alicePending[0] > 0, `bob's list waited for all of alice's to end (alice's lists still pending after each of bob's: ${alicePending})`);
      const metrics = (await c.get('/metrics')).body;
      assert.match(metrics, /apiserver_flowcontrol_rejected_requests_total\{flow_schema="flood-test",priority_level="flood-test",reason="(queue-full|time-out)"\} \d+/);
      assert.match(metrics, /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="flood-test",priority_level="flood-test"\} \d+/);
      const row = await levelRow(c, 'flood-test');
      // refused at once (full queues) or after the wait limit, on a busy machine
      assert.equal(Number(row.RejectedRequests) + Number(row.TimedoutRequests), aliceRefused, JSON.stringify(row));
    } finally {
      alice.close(); bob.close();
    }
  });

  test('a list whose client goes away stops and gives its seats back', async () => {
    await fillNamespace(c, 'big', 100, 200_000);
    const gone = await new Promise<() => void>((resolve, reject) => {
      const base = new URL(server.url);
      const req = httpsRequest({
        host: base.hostname, port: base.port, path: '/api/v1/namespaces/big/configmaps', ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem,
        headers: as('alice'),
      }, res => { res.pause(); resolve(() => req.destroy()); });
      req.on('error', e => { if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e); });
      req.end();
    });
    // the 20 MB list waits on a client that does not read
    await until(async () => (await levelRow(c, 'flood-test')).ExecutingRequests === '1', 'the list to hold its seats');
    gone();
    await until(async () => (await levelRow(c, 'flood-test')).ExecutingRequests === '0', 'the seats given back');
    const r = await c.get('/api/v1/namespaces/big/configmaps?limit=1', as('bob'));
    assert.equal(r.status, 200);
  });
});

test('with priority and fairness off, requests over --max-requests-inflight get 429 and system:masters still get answers', async () => {
  const server = await startTestServer({ flags: ['--enable-priority-and-fairness=false', '--max-requests-inflight=1'] });
  const c = createClient(server);
  try {
    await grantAdmin(c, server, ['alice']);
    await fillNamespace(c, 'small', 300, 1000);
    const replies = await Promise.all(Array.from({ length: 40 }, () => c.get('/api/v1/namespaces/small/configmaps', as('alice'))));
    const refused = replies.filter(r => r.status === 429);
    assert.ok(refused.length > 0, 'some were refused');
    assert.ok(replies.every(r => r.status === 200 || r.status === 429));
    assert.equal(refused[0].headers['retry-after'], '1');
    assert.equal(replies[0].headers['x-cluster-pf-flowschema-uid'], undefined);
    const admin = await Promise.all(Array.from({ length: 20 }, () => c.get('/api/v1/namespaces/small/configmaps')));
    assert.deepEqual([...new Set(admin.map(r => r.status))], [200]);
    assert.equal((await c.get(`/apis/${server.names.group('flowcontrol.apiserver')}/v1beta3/flowschemas`)).json.items.length, 0, 'no objects are made');
  } finally {
    c.close();
    await server.close();
  }
});
