// Watches: event order, start semantics, bookmarks, initial events, timeouts, selectors, expiry, many watchers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend, configMap, serverOn } from './servers.js';
import { createClient, type Client } from './client.js';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { waitFor } from '../support/wait.js';

const bookmarkIntervalMs = 200;

eachBackend('watch', h => {
  const c = () => h.client();
  const merge = (path: string, body: unknown) => c().request('PATCH', path, { body, contentType: 'application/merge-patch+json' });

  test('ADDED, MODIFIED, DELETED in order, from an exact version', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const before = await c().request('POST', base, { body: configMap('old') });
    const w = await c().watch(`${base}?watch=true&resourceVersion=${before.json.metadata.resourceVersion}`);
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    const created = await c().request('POST', base, { body: configMap('x', { a: '1' }) });
    const modified = await merge(`${base}/x`, { data: { a: '2' } });
    assert.equal((await c().request('DELETE', `${base}/x`)).status, 200);
    const events = [await w.next(), await w.next(), await w.next()];
    assert.deepEqual(events.map(e => e?.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.ok(events.every(e => e!.object.metadata.name === 'x' && e!.object.kind === 'ConfigMap' && e!.object.apiVersion === 'v1'));
    assert.equal(events[0]!.object.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.equal(events[1]!.object.metadata.resourceVersion, modified.json.metadata.resourceVersion);
    assert.deepEqual(events[1]!.object.data, { a: '2' });
    assert.ok(Number(events[2]!.object.metadata.resourceVersion) > Number(modified.json.metadata.resourceVersion));
    // no synthetic event for the object that existed before the version
    assert.equal(await w.next(150), undefined);
    w.close();
  });

  test('over HTTP/1.1 each event is one chunk of the response, as the reference sends it', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const server = h.server();
    const url = new URL(server.url);
    const chunks: string[] = [];
    const from = (await c().get(base)).json.metadata.resourceVersion;
    let req!: ReturnType<typeof httpsRequest>;
    // live events only: the ones a watch starts with go out as the client reads them, several to a write
    await new Promise<void>((resolve, reject) => {
      req = httpsRequest({ host: url.hostname, port: url.port, path: `${base}?watch=1&resourceVersion=${from}`, ca: server.caCertPem,
        cert: server.adminCertPem, key: server.adminKeyPem, agent: false }, res => { res.on('data', (d: Buffer) => chunks.push(d.toString())); resolve(); });
      req.on('error', reject).end();
    });
    try {
      for (const n of ['one', 'two', 'three']) await c().request('POST', base, { body: configMap(n) });
      await waitFor('three events', () => chunks.length >= 3 || undefined);
      // a whole event in each: a client that reads events by chunk sees each one whole
      assert.deepEqual(chunks.map(ch => JSON.parse(ch).object.metadata.name), ['one', 'two', 'three']);
    } finally { req.destroy(); }
  });

  test('a large object goes out in HTTP/1.1 chunks of at most 64 KiB (a watcher holds no more unsent), and multi-byte text stays whole', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await c().request('POST', base, { body: configMap('big', { k: 'x'.repeat(900_000) }) })).status, 201);
    const accent = 'é'.repeat(100_000);
    const uni = { ...configMap('uni'), metadata: { name: 'uni', annotations: { a: accent } } };
    assert.equal((await c().request('POST', base, { body: uni })).status, 201);
    const server = h.server();
    const url = new URL(server.url);
    /** the watch's chunk sizes and its first two events, read off the wire */
    const readWatch = (accept: string) => new Promise<{ sizes: number[]; events: any[] }>((resolve, reject) => {
      const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem,
        servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => socket.write(`GET ${base}?watch=1&resourceVersion=0 HTTP/1.1\r\nHost: ${url.host}\r\nAccept: ${accept}\r\n\r\n`));
      let raw = Buffer.alloc(0), at = -1;
      const sizes: number[] = [], body: Buffer[] = [];
      socket.on('data', (d: Buffer) => {
        raw = Buffer.concat([raw, d]);
        if (at < 0) { at = raw.indexOf('\r\n\r\n'); if (at < 0) return; at += 4; }
        for (;;) {
          const lineEnd = raw.indexOf('\r\n', at);
          if (lineEnd < 0) break;
          const size = parseInt(raw.subarray(at, lineEnd).toString(), 16);
          if (raw.length < lineEnd + 2 + size + 2) break;
          sizes.push(size);
          body.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
          at = lineEnd + 2 + size + 2;
        }
        // whole lines only: the last piece is an event still on its way
        const lines = Buffer.concat(body).toString('utf8').split('\n').slice(0, -1);
        if (lines.length >= 2) { socket.destroy(); resolve({ sizes, events: lines.map(l => JSON.parse(l)) }); }
      });
      socket.on('error', reject);
    });
    const json = await readWatch('application/json');
    assert.deepEqual(json.events.map(e => e.object.metadata.name).sort(), ['big', 'uni']);
    assert.equal(json.events.find(e => e.object.metadata.name === 'uni').object.metadata.annotations.a, accent);
    assert.ok(Math.max(...json.sizes) <= 64 * 1024, `chunks of ${Math.max(...json.sizes)} bytes`);
    // Table events are made as text: cut and joined by their bytes, the accents arrive whole
    const table = await readWatch(`application/json;as=Table;v=v1;g=${server.names.metaGroup}`);
    const row = table.events.find(e => e.object.rows[0].cells[0] === 'uni').object.rows[0];
    assert.equal(row.object.metadata.annotations.a, accent);
    assert.ok(Math.max(...table.sizes) <= 64 * 1024, `chunks of ${Math.max(...table.sizes)} bytes`);
  });

  test('start semantics: unset and "0" send existing objects as ADDED first', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (const n of ['a', 'b']) await c().request('POST', base, { body: configMap(n) });
    for (const rv of ['', '&resourceVersion=0']) {
      const w = await c().watch(`${base}?watch=1${rv}`);
      const initial = [await w.next(), await w.next()];
      assert.deepEqual(initial.map(e => `${e?.type} ${e?.object.metadata.name}`), ['ADDED a', 'ADDED b']);
      await c().request('POST', base, { body: configMap(`c${rv ? 0 : 1}`) });
      const live = await w.next();
      assert.equal(live?.type, 'ADDED');
      assert.match(live?.object.metadata.name, /^c/);
      w.close();
    }
  });

  test('a Table watch gives the column definitions with its first event only, as the reference does', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().request('POST', base, { body: configMap('a') })).json.metadata.resourceVersion;
    const table = `application/json;as=Table;v=v1;g=${h.server().names.metaGroup}`;
    // the first events are initial ones (encoded as the client reads them), the last a live one
    const w = await c().watch(`${base}?watch=1&fieldSelector=metadata.name%21%3Dkube-root-ca.crt&resourceVersion=0`, { accept: table });
    assert.equal(w.status, 200);
    const first = await w.next();
    for (const n of ['b', 'c']) await c().request('POST', base, { body: configMap(n) });
    const tables = [first, await w.next(), await w.next()].map(e => e!.object);
    w.close();
    assert.ok(Number(tables[0].metadata.resourceVersion) <= Number(rv));
    assert.deepEqual(tables.map(t => [t.kind, t.rows.length, t.rows[0].cells[0]]), [['Table', 1, 'a'], ['Table', 1, 'b'], ['Table', 1, 'c']]);
    assert.equal(tables[0].columnDefinitions[0].name, 'Name');
    assert.deepEqual(tables.slice(1).map(t => t.columnDefinitions), [null, null]);
  });

  test('initial events larger than a watcher may leave unread all arrive, sent as the client reads them', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const n = 20;   // of 900 KiB each: 18 MiB, past the 16 MiB a watcher may leave unread before it is cut off
    const big = 'x'.repeat(900 * 1024);
    for (let i = 0; i < n; i++) assert.equal((await c().request('POST', base, { body: configMap(`big-${i}`, { v: big }) })).status, 201);
    const w = await c().watch(`${base}?watch=1&resourceVersion=0`);
    const names = new Set<string>();
    for (let e = await w.next(60_000); e && names.size < n; e = names.size < n ? await w.next(60_000) : undefined) names.add(e.object.metadata.name);
    w.close();
    assert.equal(names.size, n);
  });

  test('BOOKMARK with allowWatchBookmarks carries only the resourceVersion', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const r = await c().request('POST', base, { body: configMap('a') });
    const w = await c().watch(`${base}?watch=true&allowWatchBookmarks=true&resourceVersion=${r.json.metadata.resourceVersion}`);
    const ev = await w.next(bookmarkIntervalMs * 5);
    assert.equal(ev?.type, 'BOOKMARK');
    assert.equal(ev!.object.kind, 'ConfigMap');
    assert.equal(ev!.object.apiVersion, 'v1');
    assert.deepEqual(Object.keys(ev!.object.metadata), ['resourceVersion']);
    assert.ok(Number(ev!.object.metadata.resourceVersion) >= Number(r.json.metadata.resourceVersion));
    w.close();
    // without allowWatchBookmarks: none
    const quiet = await c().watch(`${base}?watch=true&resourceVersion=${r.json.metadata.resourceVersion}`);
    assert.equal(await quiet.next(bookmarkIntervalMs * 2), undefined);
    quiet.close();
  });

  test('a metadata watch sends its bookmarks as PartialObjectMetadata, the kinds a metadata client decodes', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const r = await c().request('POST', base, { body: configMap('a') });
    const meta = h.server().names.metaGroup;
    const w = await c().watch(`${base}?watch=true&allowWatchBookmarks=true&resourceVersion=${r.json.metadata.resourceVersion}`,
      { accept: `application/json;as=PartialObjectMetadata;g=${meta};v=v1,application/json` });
    const ev = await w.next(bookmarkIntervalMs * 5);
    w.close();
    assert.equal(ev?.type, 'BOOKMARK');
    assert.deepEqual([ev!.object.kind, ev!.object.apiVersion], ['PartialObjectMetadata', `${meta}/v1`]);
    assert.ok(Number(ev!.object.metadata.resourceVersion) >= Number(r.json.metadata.resourceVersion));
  });

  test('sendInitialEvents with NotOlderThan ends the initial events with an annotated bookmark', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (const n of ['a', 'b']) await c().request('POST', base, { body: configMap(n) });
    const w = await c().watch(`${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    assert.equal(w.status, 200);
    const events = [await w.next(), await w.next(), await w.next()];
    assert.deepEqual(events.map(e => e?.type), ['ADDED', 'ADDED', 'BOOKMARK']);
    const bm = events[2]!.object;
    assert.equal(bm.metadata.annotations?.[`${h.server().names.domain}/initial-events-end`], 'true');
    assert.ok(Number(bm.metadata.resourceVersion) >= Number(events[1]!.object.metadata.resourceVersion));
    await c().request('POST', base, { body: configMap('c') });
    let next = await w.next();
    while (next?.type === 'BOOKMARK') next = await w.next();
    assert.equal(next?.type, 'ADDED');
    assert.equal(next?.object.metadata.name, 'c');
    w.close();
    // sendInitialEvents needs resourceVersionMatch=NotOlderThan; resourceVersionMatch alone is refused on a watch (a 422
    // on ListOptions, as the reference answers)
    const without = await c().watch(`${base}?watch=true&sendInitialEvents=true`);
    assert.equal(without.status, 422);
    const matchOnly = await c().watch(`${base}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=0`);
    assert.equal(matchOnly.status, 422);
  });

  test('sendInitialEvents from a version not reached: the stream\'s one event is the 504 (Too large resource version), whatever timeoutSeconds', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const current = Number((await c().get(base)).json.metadata.resourceVersion);
    // a timeout shorter than the server's wait for the version, and a longer one
    for (const timeoutSeconds of [1, 30]) {
      const w = await c().watch(`${base}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`
        + `&resourceVersion=${current + 1_000_000}&timeoutSeconds=${timeoutSeconds}`);
      assert.equal(w.status, 200, JSON.stringify(w.errorBody));
      assert.equal(w.headers['content-type'], 'application/json');
      const events = await w.collect(30_000);
      assert.deepEqual(events.map(e => [e.type, e.object.kind, e.object.code, e.object.reason, e.object.details?.causes?.[0]?.reason]),
        [['ERROR', 'Status', 504, 'Timeout', 'ResourceVersionTooLarge']], `timeoutSeconds=${timeoutSeconds}`);
    }
  });

  test('timeoutSeconds ends the stream cleanly; headers arrive at once with no events', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().get(base)).json.metadata.resourceVersion;
    const started = Date.now();
    const w = await c().watch(`${base}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
    assert.equal(w.status, 200);
    // unflushed headers would come only with the stream's end, a second later
    assert.ok(w.headersAfterMs < 500, `headers after ${w.headersAfterMs} ms`);
    assert.deepEqual(await w.collect(3000), []);
    await w.ended;
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 2500, `ended after ${took} ms`);
  });

  test('a watch from a version not reached yet begins at once (200, no 504) and sends only the changes after that version', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = Number((await c().request('POST', base, { body: configMap('first') })).json.metadata.resourceVersion);
    // each create takes at least one version: the third one of these is past rv + 2
    const w = await c().watch(`${base}?watch=true&resourceVersion=${rv + 2}&timeoutSeconds=30`);
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    const made = [];
    for (const name of ['a', 'b', 'c', 'd']) made.push((await c().request('POST', base, { body: configMap(name) })).json);
    const ev = await w.next();
    const after = made.filter((m) => Number(m.metadata.resourceVersion) > rv + 2);
    assert.equal(ev?.object.metadata.name, after[0].metadata.name);
    assert.ok(Number(ev!.object.metadata.resourceVersion) > rv + 2);
    w.close();
    // one far in the future: the watch stays open with no events until its timeout ends it cleanly
    const far = await c().watch(`${base}?watch=true&resourceVersion=${rv + 1_000_000}&timeoutSeconds=1`);
    assert.equal(far.status, 200);
    assert.equal(far.headers['content-type'], 'application/json');
    assert.deepEqual(await far.collect(3000), []);
    await far.ended;
  });

  test('timeoutSeconds=0 is no timeout of the client\'s: the watch stays open, as the reference serves it', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().get(base)).json.metadata.resourceVersion;
    const w = await c().watch(`${base}?watch=true&resourceVersion=${rv}&timeoutSeconds=0`);
    assert.equal(w.status, 200);
    await c().request('POST', base, { body: configMap('later') });
    const ev = await w.next();
    assert.equal(ev?.type, 'ADDED');
    assert.equal(ev!.object.metadata.name, 'later');
    w.close();
  });

  test('a watch has no YAML form: YAML alone is 406, YAML then JSON is JSON', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().request('POST', base, { body: configMap('y') })).json.metadata.resourceVersion;
    const refused = await c().watch(`${base}?watch=true&resourceVersion=${rv}`, { accept: 'application/yaml' });
    assert.equal(refused.status, 406);
    const w = await c().watch(`${base}?watch=true&resourceVersion=${rv}`, { accept: 'application/yaml, application/json' });
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    await merge(`${base}/y`, { data: { a: '1' } });
    assert.equal((await w.next())?.type, 'MODIFIED');
    w.close();
  });

  test('watch of one object by fieldSelector=metadata.name', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().request('POST', base, { body: configMap('other') })).json.metadata.resourceVersion;
    const w = await c().watch(`${base}?watch=true&fieldSelector=metadata.name%3Dme&resourceVersion=${rv}`);
    await c().request('POST', base, { body: configMap('me') });
    await merge(`${base}/other`, { data: { x: '1' } });
    await merge(`${base}/me`, { data: { x: '1' } });
    const events = [await w.next(), await w.next()];
    assert.deepEqual(events.map(e => `${e?.type} ${e?.object.metadata.name}`), ['ADDED me', 'MODIFIED me']);
    assert.equal(await w.next(150), undefined);
    w.close();
  });

  test('selector transitions: leaving the selector arrives as DELETED with the last matching state, entering as ADDED', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().request('POST', base, { body: configMap('s', { v: 'old' }, { app: 'x' }) })).json.metadata.resourceVersion;
    const w = await c().watch(`${base}?watch=true&labelSelector=app%3Dx&resourceVersion=${rv}`);
    const left = await merge(`${base}/s`, { metadata: { labels: { app: 'y' } }, data: { v: 'new' } });
    await merge(`${base}/s`, { metadata: { labels: { app: 'x' } } });
    const events = [await w.next(), await w.next()];
    assert.deepEqual(events.map(e => e?.type), ['DELETED', 'ADDED']);
    // as the reference: the state the watcher last saw (it never saw app=y), at the version of the change that removed it
    assert.equal(events[0]!.object.metadata.labels.app, 'x');
    assert.deepEqual(events[0]!.object.data, { v: 'old' });
    assert.equal(events[0]!.object.metadata.resourceVersion, left.json.metadata.resourceVersion);
    assert.equal(events[1]!.object.metadata.labels.app, 'x');
    assert.deepEqual(events[1]!.object.data, { v: 'new' });
    w.close();
  });

  test('a pod leaving a field selector arrives as DELETED with the state that matched', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    const created = await c().request('POST', base, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }] } } });
    assert.equal(created.status, 201, created.body);
    const w = await c().watch(`${base}?watch=true&fieldSelector=status.phase%21%3DSucceeded&resourceVersion=${created.json.metadata.resourceVersion}`);
    const done = await merge(`${base}/p/status`, { status: { phase: 'Succeeded' } });
    assert.equal(done.status, 200, done.body);
    const ev = await w.next();
    assert.equal(ev?.type, 'DELETED');
    assert.equal(ev!.object.status.phase, 'Pending');
    assert.equal(ev!.object.metadata.resourceVersion, done.json.metadata.resourceVersion);
    w.close();
  });

  test('a watch from a compacted version ends with an ERROR event carrying 410 Expired', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    // make sure the watch cache exists and has moved on, then compact storage below it
    await c().get(`${base}?resourceVersion=0`);
    for (let i = 0; i < 3; i++) await c().request('POST', base, { body: configMap(`x${i}`) });
    const kv = h.server().kv;
    await kv.compact(await kv.currentRevision());
    const w = await c().watch(`${base}?watch=true&resourceVersion=2`);
    assert.equal(w.status, 200);
    const ev = await w.next();
    assert.equal(ev?.type, 'ERROR');
    assert.equal(ev!.object.kind, 'Status');
    assert.equal(ev!.object.code, 410);
    assert.equal(ev!.object.reason, 'Expired');
    await w.ended;
  });

  test('many concurrent watchers each get every event', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().get(base)).json.metadata.resourceVersion;
    const watchers = await Promise.all(Array.from({ length: 60 }, () => c().watch(`${base}?watch=true&resourceVersion=${rv}`)));
    for (let i = 0; i < 3; i++) await c().request('POST', base, { body: configMap(`m${i}`) });
    const got = await Promise.all(watchers.map(async w => [await w.next(), await w.next(), await w.next()].map(e => e?.object.metadata.name)));
    for (const names of got) assert.deepEqual(names, ['m0', 'm1', 'm2']);
    for (const w of watchers) w.close();
  });

  test('watch of a single object path and the /watch/ prefix', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await c().request('POST', base, { body: configMap('one') })).json.metadata.resourceVersion;
    const w = await c().watch(`/api/v1/watch/namespaces/${ns}/configmaps?resourceVersion=${rv}`);
    assert.equal(w.status, 200);
    await merge(`${base}/one`, { data: { b: '1' } });
    assert.equal((await w.next())?.type, 'MODIFIED');
    w.close();
  });
}, { bookmarkIntervalMs, flags: ['--feature-gates=WatchList=true'] });

// the reference sends a bookmark 2 s before a watch's timeout, so the client resumes from the latest revision
describe('bookmark before the timeout', () => {
  let running: Awaited<ReturnType<typeof serverOn>>;
  let client: Client;
  before(async () => { running = await serverOn('memory'); client = createClient(running.server); });
  after(async () => { client.close(); await running.close(); });

  test('a watch with timeoutSeconds gets a bookmark with the latest version before it ends, not before', async () => {
    const base = '/api/v1/namespaces/default/configmaps';
    const first = await client.request('POST', base, { body: configMap('deadline-a') });
    const w = await client.watch(`${base}?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=${first.json.metadata.resourceVersion}`);
    const later = await client.request('POST', base, { body: configMap('deadline-b') });
    assert.equal((await w.next())?.type, 'ADDED');
    // the server's periodic bookmarks come every 60 s: the one that comes is the one before the deadline
    const bookmark = await w.next(10_000);
    assert.equal(bookmark?.type, 'BOOKMARK');
    // the latest version the server has: the controllers' own writes may have come after ours
    assert.ok(Number(bookmark!.object.metadata.resourceVersion) >= Number(later.json.metadata.resourceVersion), bookmark!.object.metadata.resourceVersion);
    await w.ended;
    // without allowWatchBookmarks: none, and the stream still ends on time
    const quiet = await client.watch(`${base}?watch=true&timeoutSeconds=3&resourceVersion=${later.json.metadata.resourceVersion}`);
    assert.equal(await quiet.next(10_000), undefined);
    await quiet.ended;
  });
});
