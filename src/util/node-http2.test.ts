import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { connect, createServer, type ClientHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openStream, releaseTimer, scopedBind } from './node-http2.js';

async function withServer(run: (url: string) => Promise<void>) {
  const server = createServer();
  server.on('stream', (stream, headers) => {
    stream.respond({ ':status': 200 });
    stream.end(`${headers[':method']} ${headers[':path']}`);
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    await new Promise(resolve => server.close(resolve));
  }
}

const context = new AsyncLocalStorage<string>();

/** the answer, and the context the stream's events ran in */
function answer(session: ClientHttp2Session, open: typeof openStream, path: string): Promise<{ text: string; seen: string | undefined }> {
  return new Promise((resolve, reject) => {
    // opened before the session has connected: the stream starts later, from the connect event
    const stream = open(session, { ':method': 'GET', ':path': path });
    let text = '', seen: string | undefined;
    stream.on('response', () => { seen = context.getStore(); });
    stream.setEncoding('utf8').on('data', (d: string) => { text += d; });
    stream.on('end', () => resolve({ text, seen })).on('error', reject);
  });
}

test('a stream opened with the cheap bind answers as one opened by request(), in the async context it was opened in', () =>
  withServer(async url => {
    const nodeRequest: typeof openStream = (s, h, o) => s.request(h, o);
    for (const [name, open] of [['request()', nodeRequest], ['openStream', openStream]] as const) {
      const session = connect(url);
      try {
        const got = await context.run(name, () => answer(session, open, `/${name}`));
        assert.deepEqual(got, { text: `GET /${name}`, seen: name });
      } finally {
        session.close();
      }
    }
  }));

test("Node's own bind is back after the call, also when request() throws", () =>
  withServer(async url => {
    const nodeBind = AsyncResource.prototype.bind;
    const session = connect(url);
    await answer(session, openStream, '/');
    assert.equal(AsyncResource.prototype.bind, nodeBind);
    session.destroy();
    assert.throws(() => openStream(session, { ':path': '/' }), { code: 'ERR_HTTP2_INVALID_SESSION' });
    assert.equal(AsyncResource.prototype.bind, nodeBind);
    // and a function bound elsewhere still carries what Node's bind gives it
    assert.ok('asyncResource' in new AsyncResource('T').bind(() => 0));
  }));

test("the cheap bind keeps what Node's bind does: the resource's async scope, `this`, the arguments and the result", () => {
  const resource = context.run('opened', () => new AsyncResource('T'));
  function probe(this: unknown, ...args: unknown[]) { return { store: context.getStore(), self: this, args }; }
  const receiver = { name: 'receiver' }, fixed = { name: 'fixed' };
  for (const bind of [AsyncResource.prototype.bind, scopedBind]) {
    const free = bind.call(resource, probe) as (...args: unknown[]) => unknown;
    const pinned = bind.call(resource, probe, fixed) as (...args: unknown[]) => unknown;
    const calls = context.run('called', () => [free.call(receiver, 1, 2), pinned.call(receiver, 3)]);
    assert.deepEqual(calls, [{ store: 'opened', self: receiver, args: [1, 2] }, { store: 'opened', self: fixed, args: [3] }]);
  }
});

test('a stream with a timeout that went down with its session, and that session, are let go once released', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const server = createServer();
  server.on('stream', () => { /* never answers */ });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  /** a session and a stream, both with timers, the session destroyed under the stream; only weak references kept */
  const goneDown = async (release: boolean) => {
    const session = connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    session.setTimeout(60_000, () => {});
    const stream = openStream(session, { ':path': '/' });
    stream.setTimeout(60_000, () => {});
    stream.on('error', () => {});
    if (release) {
      stream.once('close', () => releaseTimer(stream));
      session.once('close', () => releaseTimer(session));
    }
    await new Promise(resolve => session.once('connect', resolve));
    const closed = new Promise(resolve => stream.once('close', resolve));
    session.destroy();
    await closed;
    return [new WeakRef(stream), new WeakRef(session)];
  };
  const collected = async (release: boolean) => {
    const refs = await goneDown(release);
    for (let i = 0; i < 5; i++) {
      await new Promise(resolve => setTimeout(resolve, 20));
      gc();
    }
    return refs.map(r => r.deref() === undefined);
  };
  try {
    // Node's own timers hold both (until they fire, a minute on); released, neither is held
    assert.deepEqual(await collected(false), [false, false]);
    assert.deepEqual(await collected(true), [true, true]);
  } finally {
    await new Promise(resolve => server.close(resolve));
  }
});
