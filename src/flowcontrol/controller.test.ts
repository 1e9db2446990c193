// The flow controller over a configuration: levels' shares of the server's seats, classification with the
// mandatory objects standing in for missing ones, exempt requests and probes, list seats, and a new configuration
// taking effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import type { FlowControlSource, FlowRequest, FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import type { UserInfo } from '../api/auth.js';
import { requestInfo } from '../http/request-info.js';
import { concurrencyLimits, createFlowControl } from './controller.js';
import { defaultObjects } from './defaults.js';

const names = naming('k8s.io');
const defaults = defaultObjects(names);
const withUid = <T extends FlowSchema | PriorityLevelConfiguration>(o: T): T => ({ ...o, metadata: { ...o.metadata, uid: `uid-${o.metadata!.name}` } });

function source(flowSchemas: FlowSchema[], priorityLevels: PriorityLevelConfiguration[], counts: Record<string, number> = {}) {
  let generation = 1;
  let cfg = { generation, flowSchemas, priorityLevels };
  const s: FlowControlSource & { set(fs: FlowSchema[], pl: PriorityLevelConfiguration[]): void } = {
    ready: Promise.resolve(),
    config: () => cfg,
    onChange: () => () => {},
    objectCount: (_g, r) => counts[r],
    set(fs, pl) { cfg = { generation: ++generation, flowSchemas: fs, priorityLevels: pl }; },
  };
  return s;
}
const all = () => source([...defaults.mandatorySchemas, ...defaults.suggestedSchemas].map(withUid),
  [...defaults.mandatoryLevels, ...defaults.suggestedLevels].map(withUid), { pods: 5000, configmaps: 30 });

const req = (user: UserInfo, method: string, url: string): FlowRequest => {
  const [path, q = ''] = url.split('?');
  const query = new URLSearchParams(q);
  return { user, info: requestInfo(method, path, query), query };
};
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
const admin: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };
const options = { names, serverConcurrencyLimit: 600, requestWaitLimitMs: 15_000 };

test('the server seats are shared by nominal concurrency shares', () => {
  const limits = concurrencyLimits([...defaults.mandatoryLevels, ...defaults.suggestedLevels], 600);
  assert.equal(limits.get('global-default'), Math.ceil(600 * 20 / 245));
  assert.equal(limits.get('workload-low'), Math.ceil(600 * 100 / 245));
  assert.equal(limits.get('catch-all'), Math.ceil(600 * 5 / 245));
  assert.equal(limits.has('exempt'), false);
});

test('requests are classified and named by uid; lists cost seats by the objects they go through', async () => {
  const fc = createFlowControl(all(), options);
  const d = await fc.admit(req(alice, 'GET', '/api/v1/pods'));
  assert.deepEqual([d.flowSchema, d.priorityLevel], [{ name: 'global-default', uid: 'uid-global-default' }, { name: 'global-default', uid: 'uid-global-default' }]);
  assert.equal(d.seats, 10, '5,000 pods: the most a request takes');
  assert.ok(d.outcome.admitted);
  assert.equal((await fc.admit(req(alice, 'GET', '/api/v1/configmaps?resourceVersion=0'))).seats, 1);
  assert.equal((await fc.admit(req(alice, 'GET', '/api/v1/pods?resourceVersion=0&limit=500'))).seats, 10, 'the cache goes through everything');
  assert.equal((await fc.admit(req(alice, 'GET', '/api/v1/pods?limit=150'))).seats, 3, 'two pages of 150 from storage');
  assert.equal((await fc.admit(req(alice, 'GET', '/api/v1/pods?watch=1&resourceVersion=10'))).seats, 1, 'a watch from a version sends no state');
  assert.equal((await fc.admit(req(alice, 'GET', '/api/v1/pods?watch=1'))).seats, 10, 'a watch from now starts with the state');
  assert.equal((await fc.admit(req(alice, 'POST', '/api/v1/namespaces/a/pods'))).seats, 1);
  const levels = Object.fromEntries(fc.levels().map(l => [l.name, l]));
  assert.equal(levels['global-default'].executingSeats, 10 + 1 + 10 + 3 + 1 + 10 + 1);
});

test('system:masters and health probes are exempt and never wait', async () => {
  const fc = createFlowControl(all(), { ...options, serverConcurrencyLimit: 1 });
  for (let i = 0; i < 50; i++) {
    const d = await fc.admit(req(admin, 'GET', '/api/v1/pods'));
    assert.equal(d.priorityLevel.name, 'exempt');
    assert.ok(d.outcome.admitted);
  }
  const anonymous: UserInfo = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
  for (const path of ['/livez', '/readyz', '/healthz', '/readyz/etcd', '/livez/ping']) {
    for (let i = 0; i < 20; i++) assert.ok((await fc.admit(req(anonymous, 'GET', path))).outcome.admitted, path);
  }
});

test('the mandatory objects stand in for missing ones; a schema naming no level is passed over', async () => {
  const dangling: FlowSchema = { metadata: { name: 'dangling', uid: 'u' }, spec: { priorityLevelConfiguration: { name: 'nowhere' }, matchingPrecedence: 5, rules: defaults.mandatorySchemas[1].spec!.rules } };
  const fc = createFlowControl(source([dangling], []), options);
  const d = await fc.admit(req(alice, 'GET', '/api/v1/pods'));
  assert.equal(d.flowSchema.name, 'catch-all');
  assert.equal(d.priorityLevel.name, 'catch-all');
  assert.equal((await fc.admit(req(admin, 'GET', '/api/v1/pods'))).priorityLevel.name, 'exempt');
});

test('a changed configuration takes effect on the next request', async () => {
  const src = all();
  const fc = createFlowControl(src, { ...options, serverConcurrencyLimit: 10 });
  const mine: FlowSchema = { metadata: { name: 'alice-first', uid: 'a1' }, spec: { priorityLevelConfiguration: { name: 'tiny' }, matchingPrecedence: 3, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] } };
  const tiny: PriorityLevelConfiguration = { metadata: { name: 'tiny', uid: 't1' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } } };
  src.set([...src.config().flowSchemas, mine], [...src.config().priorityLevels, tiny]);
  const first = await fc.admit(req(alice, 'GET', '/version'));
  assert.equal(first.priorityLevel.name, 'tiny');
  assert.ok(first.outcome.admitted);
  const second = await fc.admit(req(alice, 'GET', '/version'));
  assert.deepEqual(second.outcome, { admitted: false, reason: 'concurrency-limit' });
  assert.equal(fc.levels().find(l => l.name === 'tiny')!.rejected['concurrency-limit'], 1);
});
