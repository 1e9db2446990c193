// The flow controller over a configuration: levels' shares of the server's seats, classification with the
// mandatory objects standing in for missing ones, exempt requests and probes, list seats, and a new configuration
// taking effect; seats lent and borrowed between levels by their demand, and the debug dumps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import type { FlowControlSource, FlowRequest, FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import type { UserInfo } from '../api/auth.js';
import { requestInfo } from '../http/request-info.js';
import { allocateSeats, concurrencyLimits, createFlowControl, dumpPriorityLevels, dumpQueues, dumpRequests, lendingLimits } from './controller.js';
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

test('a level may lend lendablePercent of its seats and borrow up to borrowingLimitPercent (without a limit when unset)', () => {
  const level = (lendablePercent?: number, borrowingLimitPercent?: number): PriorityLevelConfiguration =>
    ({ metadata: { name: 'l' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent, borrowingLimitPercent, limitResponse: { type: 'Reject' } } } });
  assert.deepEqual(lendingLimits(level(50, 25), 40), { lower: 20, upper: 50 });
  assert.deepEqual(lendingLimits(level(), 40), { lower: 40, upper: Infinity });
  assert.deepEqual(lendingLimits(level(0, 0), 40), { lower: 40, upper: 40 });
});

test('seats are shared out by one fraction of every target, each level held within its limits', () => {
  // two busy levels asking for more than there is share it in proportion; the idle one keeps what it may not lend
  const { seats } = allocateSeats([{ lower: 5, upper: 100, target: 60 }, { lower: 5, upper: 100, target: 20 }, { lower: 4, upper: 20, target: 4 }], 44);
  assert.deepEqual(seats.map(n => Math.round(n)), [30, 10, 4]);
  // a borrowing limit caps a level; the rest goes to the others
  assert.deepEqual(allocateSeats([{ lower: 5, upper: 12, target: 60 }, { lower: 5, upper: 100, target: 60 }], 40).seats.map(n => Math.round(n)), [12, 28]);
  // little demand: every level gets at least its lower limit, and the seats are all handed out
  const idle = allocateSeats([{ lower: 5, upper: Infinity, target: 5 }, { lower: 10, upper: Infinity, target: 10 }], 30).seats;
  assert.deepEqual(idle.map(n => Math.round(n)), [10, 20]);
});

test('a busy level borrows the seats an idle one lends, and gives them back when that one gets busy', async () => {
  const shared = (name: string, lendablePercent: number, borrowingLimitPercent?: number): PriorityLevelConfiguration => withUid({
    metadata: { name }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 10, lendablePercent, borrowingLimitPercent, limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } } } },
  });
  const toLevel = (user: string, level: string): FlowSchema => withUid({
    metadata: { name: `${user}-schema` },
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: 100, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'User', user: { name: user } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] },
  });
  const src = source([toLevel('busy', 'busy'), toLevel('quiet', 'quiet')], [shared('busy', 0), shared('quiet', 50), ...defaults.mandatoryLevels.map(withUid)]);
  // 25 shares in all (catch-all has 5): 20 seats each for busy and quiet, 10 for catch-all
  const fc = createFlowControl(src, { ...options, serverConcurrencyLimit: 50, borrowingIntervalMs: 3_600_000, requestWaitLimitMs: 1000 });
  const limit = (name: string) => fc.levels().find(l => l.name === name)!.concurrencyLimit;
  const user = (username: string): UserInfo => ({ username, groups: ['system:authenticated'] });
  const flood = (who: string, n: number) => Array.from({ length: n }, () => fc.admit(req(user(who), 'GET', '/version')));
  const busy = flood('busy', 60);
  assert.deepEqual([limit('busy'), limit('quiet')], [20, 20]);
  fc.rebalance();
  // quiet lends half its seats (10); catch-all lends none
  assert.deepEqual([limit('busy'), limit('quiet')], [30, 10]);
  const settled = await Promise.race([Promise.all(busy.slice(0, 30)), new Promise(r => setTimeout(r, 2000, 'waiting'))]);
  assert.notEqual(settled, 'waiting', 'the borrowed seats let 30 of busy\'s requests run');
  assert.equal(fc.levels().find(l => l.name === 'busy')!.waitingRequests, 30);
  // laid out as the reference's tab writer lays them out: a comma after each cell, then spaces to the column's width
  assert.match(dumpQueues(fc), /^PriorityLevelName, Index,  +PendingRequests, ExecutingRequests, SeatsInUse, NextDispatchR, +InitialSeatsSum, MaxSeatsSum, TotalWorkSum\n/);
  assert.match(dumpQueues(fc), /^exempt, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>$/m);
  const requests = dumpRequests(fc, true).trim().split('\n');
  assert.equal(requests.length, 1 + 30, 'a row per waiting request');
  assert.match(requests[1], /^busy, +busy-schema, +\d+, +\d+, +busy, +\d{4}-\d\d-\d\dT[\d:.]+Z, +1, +0, +0s, +busy, +get, +\/version/);
  const levelsDump = dumpPriorityLevels(fc);
  assert.match(levelsDump, /^PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests\n/);
  assert.match(levelsDump, /^busy, +\d+, +false, +false, +30, +30, +\d+, +0, +0, +0$/m);
  assert.match(levelsDump, /^exempt, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>, +<none>$/m);
  // quiet gets as busy: the seats are shared by demand again, each level back at 20
  const quiet = flood('quiet', 60);
  fc.rebalance();
  assert.deepEqual([limit('busy'), limit('quiet')], [20, 20]);
  for (const d of [...await Promise.all(busy.slice(0, 30)), ...await Promise.all(quiet.slice(0, 10))]) if (d.outcome.admitted) d.outcome.release();
  assert.equal(fc.levels().find(l => l.name === 'quiet')!.executingRequests, 20, 'quiet runs on its own seats again');
  fc.stop();

  // a borrowing limit of 25% caps what busy may borrow
  const capped = createFlowControl(source([toLevel('busy', 'busy')], [shared('busy', 0, 25), shared('quiet', 50), ...defaults.mandatoryLevels.map(withUid)]),
    { ...options, serverConcurrencyLimit: 50, borrowingIntervalMs: 3_600_000, requestWaitLimitMs: 1000 });
  const waiting = Array.from({ length: 60 }, () => capped.admit(req(user('busy'), 'GET', '/version')));
  capped.rebalance();
  assert.equal(capped.levels().find(l => l.name === 'busy')!.concurrencyLimit, 25);
  capped.stop();
  await Promise.all(waiting);
});
