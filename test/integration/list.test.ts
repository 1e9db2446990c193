// Lists: selectors, paging with continue tokens, and every cell of the resourceVersion / resourceVersionMatch table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend, configMap } from './servers.js';

eachBackend('list', h => {
  const c = () => h.client();
  const names = (r: { json: any }) => r.json.items.map((i: any) => i.metadata.name);

  /** a namespace with ConfigMaps a..e, returning the resourceVersion after each create */
  async function seeded(count = 5) {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rvs: string[] = [];
    for (let i = 0; i < count; i++) {
      const name = String.fromCharCode(97 + i);
      const r = await c().request('POST', base, { body: configMap(name, {}, { tier: i % 2 ? 'odd' : 'even', idx: String(i) }) });
      assert.equal(r.status, 201, r.body);
      rvs.push(r.json.metadata.resourceVersion);
    }
    return { ns, base, rvs };
  }

  test('label selectors: =, ==, !=, in, notin, exists, !', async () => {
    const { base } = await seeded();
    const sel = async (s: string) => {
      const r = await c().get(`${base}?labelSelector=${encodeURIComponent(s)}`);
      assert.equal(r.status, 200, r.body);
      assert.equal(r.json.kind, 'ConfigMapList');
      return names(r);
    };
    assert.deepEqual(await sel('tier=odd'), ['b', 'd']);
    assert.deepEqual(await sel('tier==even'), ['a', 'c', 'e']);
    assert.deepEqual(await sel('tier!=even'), ['b', 'd']);
    assert.deepEqual(await sel('idx in (0,4)'), ['a', 'e']);
    assert.deepEqual(await sel('idx notin (0,4)'), ['b', 'c', 'd']);
    assert.deepEqual(await sel('tier,idx'), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(await sel('!tier'), []);
    assert.deepEqual(await sel('tier=even,idx!=2'), ['a', 'e']);
    const bad = await c().get(`${base}?labelSelector=${encodeURIComponent('tier in odd')}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.reason, 'BadRequest');
  });

  test('a built-in list names its kind once: its items carry no kind or apiVersion, in every form of the list, as the reference\'s', async () => {
    const { base } = await seeded(2);
    const typeMeta = (items: any[]) => items.map((i: any) => [i.kind, i.apiVersion, i.metadata.name]);
    const none = [[undefined, undefined, 'a'], [undefined, undefined, 'b']];
    for (const query of ['', '?resourceVersion=0', '?limit=1', '?pretty=true']) {
      const r = await c().get(`${base}${query}`);
      assert.equal(r.status, 200, r.body);
      assert.deepEqual([r.json.kind, r.json.apiVersion], ['ConfigMapList', 'v1']);
      assert.deepEqual(typeMeta(r.json.items), query === '?limit=1' ? none.slice(0, 1) : none, query);
    }
    const yaml = await c().get(base, { accept: 'application/yaml' });
    assert.match(yaml.body, /^kind: ConfigMapList$/m);
    assert.doesNotMatch(yaml.body, /^ {2,}kind: ConfigMap$/m);
    // the objects deleted by a collection delete, likewise
    const deleted = await c().request('DELETE', base);
    assert.equal(deleted.status, 200, deleted.body);
    assert.deepEqual([deleted.json.kind, ...typeMeta(deleted.json.items).map(t => t.slice(0, 2))], ['ConfigMapList', [undefined, undefined], [undefined, undefined]]);
  });

  test('field selectors: metadata.name, metadata.namespace, unsupported field 400', async () => {
    const { ns, base } = await seeded(3);
    assert.deepEqual(names(await c().get(`${base}?fieldSelector=metadata.name%3Db`)), ['b']);
    assert.deepEqual(names(await c().get(`${base}?fieldSelector=metadata.name!%3Db`)), ['a', 'c']);
    const across = await c().get(`/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns}`);
    assert.deepEqual(names(across), ['a', 'b', 'c']);
    const nsList = await c().get(`/api/v1/namespaces?fieldSelector=metadata.name%3D${ns}`);
    assert.deepEqual(names(nsList), [ns]);
    const bad = await c().get(`${base}?fieldSelector=data.a%3Db`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.reason, 'BadRequest');
    assert.match(bad.json.message, /field label not supported: data\.a/);
  });

  test('field selectors of replication controllers: status.replicas, as the reference selects them', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/replicationcontrollers`;
    const labels = { app: 'rc' };
    const rc = { metadata: { name: 'rc' }, spec: { replicas: 0, selector: labels, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    assert.equal((await c().request('POST', base, { body: rc })).status, 201);
    assert.deepEqual(names(await c().get(`${base}?fieldSelector=status.replicas%3D0`)), ['rc']);
    assert.deepEqual(names(await c().get(`${base}?fieldSelector=status.replicas%3D1`)), []);
    assert.deepEqual(names(await c().get(`${base}?fieldSelector=status.replicas!%3D1,metadata.name%3Drc`)), ['rc']);
    const bad = await c().get(`${base}?fieldSelector=spec.replicas%3D0`);
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /field label not supported: spec\.replicas/);
  });

  test('limit and continue: pages consistent while writes go on; remainingItemCount', async () => {
    const { base } = await seeded();
    const first = await c().get(`${base}?limit=2`);
    assert.equal(first.status, 200);
    assert.deepEqual(names(first), ['a', 'b']);
    assert.equal(first.json.metadata.remainingItemCount, 3);
    assert.ok(first.json.metadata.continue);
    // writes between pages do not show in later pages
    assert.equal((await c().request('DELETE', `${base}/c`)).status, 200);
    assert.equal((await c().request('POST', base, { body: configMap('bb') })).status, 201);
    const second = await c().get(`${base}?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(second.status, 200, second.body);
    assert.deepEqual(names(second), ['c', 'd']);
    assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.equal(second.json.metadata.remainingItemCount, 1);
    const third = await c().get(`${base}?limit=2&continue=${encodeURIComponent(second.json.metadata.continue)}`);
    assert.deepEqual(names(third), ['e']);
    assert.equal(third.json.metadata.remainingItemCount, undefined);
    assert.ok(!third.json.metadata.continue);

    // with a selector: pages fill up, no remainingItemCount
    const sel = await c().get(`${base}?limit=1&labelSelector=tier%3Deven`);
    assert.deepEqual(names(sel), ['a']);
    assert.equal(sel.json.metadata.remainingItemCount, undefined);
    assert.ok(sel.json.metadata.continue);
    const sel2 = await c().get(`${base}?limit=5&labelSelector=tier%3Deven&continue=${encodeURIComponent(sel.json.metadata.continue)}`);
    assert.deepEqual(names(sel2), ['e']);

    // exactly a full last page: no continue
    const all = await c().get(`${base}?limit=5`);
    assert.deepEqual(names(all), ['a', 'b', 'bb', 'd', 'e']);
    assert.ok(!all.json.metadata.continue);
    assert.equal(all.json.metadata.remainingItemCount, undefined);
  });

  test('continue: an invalid token 400, a token after compaction 410', async () => {
    const { base } = await seeded(3);
    const bad = await c().get(`${base}?limit=1&continue=garbage`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.reason, 'BadRequest');
    const first = await c().get(`${base}?limit=1`);
    for (let i = 0; i < 3; i++) assert.equal((await c().request('POST', base, { body: configMap(`z${i}`) })).status, 201);
    const kv = h.server().kv;
    await kv.compact(await kv.currentRevision());
    const expired = await c().get(`${base}?limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(expired.status, 410, expired.body);
    assert.equal(expired.json.reason, 'Expired');
    assert.equal(expired.json.kind, 'Status');
  });

  test('resourceVersion table: limit unset', async () => {
    const { base, rvs } = await seeded(3);
    const [rvA, , rvC] = rvs;
    const q = async (qs: string) => c().get(`${base}?${qs}`);
    // unset: most recent
    const recent = await q('');
    assert.deepEqual(names(recent), ['a', 'b', 'c']);
    assert.ok(Number(recent.json.metadata.resourceVersion) >= Number(rvC));
    // 0: any (the cache), still every object
    assert.deepEqual(names(await q('resourceVersion=0')), ['a', 'b', 'c']);
    // value: not older than
    const notOlder = await q(`resourceVersion=${rvA}`);
    assert.equal(notOlder.status, 200);
    assert.ok(Number(notOlder.json.metadata.resourceVersion) >= Number(rvA));
    assert.deepEqual(names(notOlder), ['a', 'b', 'c']);
    // Exact: unset and 0 invalid, value exact
    assert.equal((await q('resourceVersionMatch=Exact')).status, 422);
    assert.equal((await q('resourceVersionMatch=Exact&resourceVersion=0')).status, 422);
    const exact = await q(`resourceVersionMatch=Exact&resourceVersion=${rvA}`);
    assert.equal(exact.status, 200, exact.body);
    assert.equal(exact.json.metadata.resourceVersion, rvA);
    assert.deepEqual(names(exact), ['a']);
    // NotOlderThan: unset invalid, 0 any, value not older than
    const nu = await q('resourceVersionMatch=NotOlderThan');
    // the options are checked as a whole, a 422 on ListOptions as the reference answers
    assert.equal(nu.status, 422);
    assert.equal(nu.json.reason, 'Invalid');
    assert.match(nu.json.message, /^ListOptions\.meta\.\S+ "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided$/);
    assert.deepEqual(nu.json.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' }]);
    const list = await q('sendInitialEvents=false');
    assert.equal(list.status, 422);
    assert.match(list.json.message, /sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list/);
    assert.deepEqual(names(await q('resourceVersionMatch=NotOlderThan&resourceVersion=0')), ['a', 'b', 'c']);
    const nv = await q(`resourceVersionMatch=NotOlderThan&resourceVersion=${rvA}`);
    assert.ok(Number(nv.json.metadata.resourceVersion) >= Number(rvC));
    assert.deepEqual(names(nv), ['a', 'b', 'c']);
    // an unknown match value, and a version that is not a number
    const sometime = await q(`resourceVersionMatch=Sometime&resourceVersion=${rvA}`);
    assert.equal(sometime.status, 422);
    assert.match(sometime.json.message, /resourceVersionMatch: Unsupported value: "Sometime": supported values: "Exact", "NotOlderThan", ""/);
    assert.equal((await q('resourceVersion=abc')).status, 400);
  });

  test('resourceVersion table: limit=n', async () => {
    const { base, rvs } = await seeded(3);
    const [rvA, rvB, rvC] = rvs;
    const q = async (qs: string) => c().get(`${base}?limit=1&${qs}`);
    const recent = await q('');
    assert.deepEqual(names(recent), ['a']);
    assert.ok(Number(recent.json.metadata.resourceVersion) >= Number(rvC));
    assert.ok(recent.json.metadata.continue);
    // 0: any; served from the cache, which ignores the limit
    const any = await q('resourceVersion=0');
    assert.equal(any.status, 200);
    assert.ok(names(any).includes('a'));
    // value: exact
    const exact = await c().get(`${base}?limit=5&resourceVersion=${rvB}`);
    assert.equal(exact.status, 200, exact.body);
    assert.equal(exact.json.metadata.resourceVersion, rvB);
    assert.deepEqual(names(exact), ['a', 'b']);
    // Exact
    assert.equal((await q('resourceVersionMatch=Exact')).status, 422);
    assert.equal((await q('resourceVersionMatch=Exact&resourceVersion=0')).status, 422);
    const ex = await c().get(`${base}?limit=5&resourceVersionMatch=Exact&resourceVersion=${rvA}`);
    assert.equal(ex.json.metadata.resourceVersion, rvA);
    assert.deepEqual(names(ex), ['a']);
    // NotOlderThan
    assert.equal((await q('resourceVersionMatch=NotOlderThan')).status, 422);
    assert.equal((await q('resourceVersionMatch=NotOlderThan&resourceVersion=0')).status, 200);
    const nv = await q(`resourceVersionMatch=NotOlderThan&resourceVersion=${rvA}`);
    assert.equal(nv.status, 200, nv.body);
    assert.ok(Number(nv.json.metadata.resourceVersion) >= Number(rvC));
    assert.deepEqual(names(nv), ['a']);
    assert.ok(nv.json.metadata.continue);
  });

  test('resourceVersion table: limit=n with continue', async () => {
    const { base, rvs } = await seeded(3);
    const first = await c().get(`${base}?limit=1`);
    const token = encodeURIComponent(first.json.metadata.continue);
    // unset: continue at the first page's version
    const next = await c().get(`${base}?limit=1&continue=${token}`);
    assert.deepEqual(names(next), ['b']);
    assert.equal(next.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    // 0: treated as the continue token
    const zero = await c().get(`${base}?limit=1&resourceVersion=0&continue=${token}`);
    assert.equal(zero.status, 200, zero.body);
    assert.deepEqual(names(zero), ['b']);
    // a value: 400
    const val = await c().get(`${base}?limit=1&resourceVersion=${rvs[0]}&continue=${token}`);
    assert.equal(val.status, 400);
    assert.equal(val.json.reason, 'BadRequest');
    // resourceVersionMatch with continue: 422
    assert.equal((await c().get(`${base}?limit=1&resourceVersionMatch=NotOlderThan&resourceVersion=${rvs[0]}&continue=${token}`)).status, 422);
    assert.equal((await c().get(`${base}?limit=1&resourceVersionMatch=Exact&resourceVersion=${rvs[0]}&continue=${token}`)).status, 422);
  });

  test('Exact at a compacted version 410; a too-large NotOlderThan version 504 with Retry-After', async () => {
    const { base, rvs } = await seeded(2);
    const kv = h.server().kv;
    assert.equal((await c().request('POST', base, { body: configMap('later') })).status, 201);
    await kv.compact(await kv.currentRevision());
    const exact = await c().get(`${base}?resourceVersionMatch=Exact&resourceVersion=${rvs[0]}`);
    assert.equal(exact.status, 410, exact.body);
    assert.equal(exact.json.reason, 'Expired');
    assert.equal(exact.json.message, 'The resourceVersion for the provided list is too old.');
    const future = String((await kv.currentRevision()) + 1000);
    const started = Date.now();
    const tooLarge = await c().get(`${base}?resourceVersionMatch=NotOlderThan&resourceVersion=${future}`);
    assert.equal(tooLarge.status, 504, tooLarge.body);
    assert.equal(tooLarge.json.reason, 'Timeout');
    assert.match(tooLarge.json.message, /Too large resource version/);
    assert.ok(Number(tooLarge.headers['retry-after']) >= 1);
    assert.ok(Date.now() - started < 10_000);
  });

  test('get: resourceVersion unset, 0 and a value', async () => {
    const { base, rvs } = await seeded(1);
    assert.equal((await c().get(`${base}/a`)).status, 200);
    assert.equal((await c().get(`${base}/a?resourceVersion=0`)).status, 200);
    assert.equal((await c().get(`${base}/a?resourceVersion=${rvs[0]}`)).status, 200);
    const future = (await h.server().kv.currentRevision()) + 1000;
    const tooLarge = await c().get(`${base}/a?resourceVersion=${future}`);
    assert.equal(tooLarge.status, 504, tooLarge.body);
    assert.match(tooLarge.json.message, /Too large resource version/);
  });
}, { freshnessTimeoutMs: 300 });
