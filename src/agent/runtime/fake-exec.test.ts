import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { fakeExec, fakeFiles, knownCommand, parseScript, type FakeExecContext } from './fake-exec.js';

function collect() {
  const chunks: Buffer[] = [];
  return { stream: new Writable({ write(c: Buffer, _e, cb) { chunks.push(Buffer.from(c)); cb(); } }), text: () => Buffer.concat(chunks).toString(), bytes: () => Buffer.concat(chunks) };
}

async function run(c: FakeExecContext, argv: string[], stdin?: Buffer | string) {
  const out = collect();
  const err = collect();
  const code = await fakeExec(c, argv, {
    stdin: stdin === undefined ? undefined : Readable.from([Buffer.from(stdin)]), stdout: out.stream, stderr: err.stream,
    tty: false, resizes: new EventEmitter(), signal: new AbortController().signal,
  });
  return { code, out: out.text(), err: err.text(), bytes: out.bytes() };
}

test('scripts split on ; && || with quotes kept together', () => {
  assert.deepEqual([...parseScript(`echo 'a b'; false && echo no || echo "c;d"`)], [
    { words: ['echo', 'a b'], then: ';' }, { words: ['false'], then: '&&' }, { words: ['echo', 'no'], then: '||' }, { words: ['echo', 'c;d'], then: ';' },
  ]);
});

test('exit codes, redirections, unknown commands', async () => {
  const c = { files: fakeFiles('pod-a'), hostname: 'pod-a', env: {} };
  assert.deepEqual(await run(c, ['sh', '-c', 'echo out; echo err >&2; exit 3']).then(r => [r.code, r.out, r.err]), [3, 'out\n', 'err\n']);
  assert.equal((await run(c, ['sh', '-c', 'echo saved > /tmp/f && echo more >> /tmp/f'])).code, 0);
  assert.equal((await run(c, ['cat', '/tmp/f'])).out, 'saved\nmore\n');
  assert.equal((await run(c, ['cat'], 'from stdin')).out, 'from stdin');
  assert.equal((await run(c, ['hostname'])).out, 'pod-a\n');
  assert.deepEqual(await run(c, ['nope']).then(r => [r.code, r.err]), [127, 'sh: nope: not found\n']);
  assert.equal((await run(c, ['test', '-d', '/tmp'])).code, 0);
  assert.equal((await run(c, ['test', '-d', '/tmp/f'])).code, 1);
});

test('tar carries files out and in, as kubectl cp uses it', async () => {
  const a = { files: fakeFiles('a'), hostname: 'a', env: {} };
  const b = { files: fakeFiles('b'), hostname: 'b', env: {} };
  const data = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
  a.files.set('/tmp/d', { dir: true, data: Buffer.alloc(0), mode: 0o755, mtime: new Date() });
  a.files.set('/tmp/d/bin', { dir: false, data, mode: 0o600, mtime: new Date() });
  const archive = await run(a, ['tar', 'cf', '-', '/tmp/d']);
  assert.equal(archive.code, 0);
  assert.equal((await run(b, ['tar', '-xmf', '-', '-C', '/root'], archive.bytes)).code, 0);
  assert.ok(b.files.get('/root/tmp/d/bin')?.data.equals(data));
  assert.equal((await run(a, ['tar', 'cf', '-', '/missing'])).code, 1);
});

test('a container\'s own command: unknown programs are taken as done; sleep takes units, refuses garbage, and ends when stopped', async () => {
  const c = { files: fakeFiles('job-a'), hostname: 'job-a', env: {}, unknownSucceeds: true };
  assert.deepEqual(await run(c, ['sh', '-c', 'train --epochs=3 && echo trained']).then(r => [r.code, r.out, r.err]), [0, 'trained\n', '']);
  assert.deepEqual(await run(c, ['sleep', 'soon']).then(r => [r.code, r.err]), [1, "sleep: invalid number 'soon'\n"]);
  const stop = new AbortController();
  const out = collect();
  const running = fakeExec(c, ['sh', '-c', 'sleep 1h; echo never'], { stdout: out.stream, tty: false, resizes: new EventEmitter(), signal: stop.signal });
  stop.abort();
  assert.equal(await running, 0);
  assert.equal(out.text(), '');
});

test('sh -c expands variables from the container\'s environment and its own assignments, not inside single quotes', async () => {
  const c = { files: fakeFiles('web-0'), hostname: 'web-0', env: { GREETING: 'hello world', EMPTY: '' } };
  const out = async (script: string) => (await run(c, ['sh', '-c', script])).out;
  assert.equal(await out('echo $GREETING'), 'hello world\n');
  assert.equal(await out('echo "${GREETING}!" $HOSTNAME'), 'hello world! web-0\n');
  assert.equal(await out(`echo '$GREETING' "\\$GREETING"`), '$GREETING $GREETING\n');
  assert.equal(await out('echo a $EMPTY $UNSET b "$UNSET"'), 'a b \n');
  assert.equal(await out('X=1; export Y=two; echo $X-$Y; false; echo $?'), '1-two\n1\n');
  assert.equal(await out('echo $ 5$ $1x ${constructor}'), '$ 5$ x\n');
  assert.equal((await run(c, ['sh', '-c', 'echo $0 $2', 'name', 'one', 'two'])).out, 'name two\n');
  assert.equal(await out('echo $GREETING > /tmp/g; cat /tmp/g'), 'hello world\n');
});

test('a command the shell can run as it is: programs it knows, and sh -c scripts of them only', () => {
  assert.equal(knownCommand(['sh']), true);
  assert.equal(knownCommand(['/bin/sh', '-c', 'echo hi; A=1 B=$A; export C=2; exit 3']), true);
  assert.equal(knownCommand(['cat']), true);
  // a loop, or a program it does not know, would end far sooner than the real one
  assert.equal(knownCommand(['sh', '-c', 'while true; do sleep 1; done']), false);
  assert.equal(knownCommand(['sh', '-c', 'echo start && nginx -g "daemon off;"']), false);
  assert.equal(knownCommand(['nginx']), false);
  assert.equal(knownCommand([]), false);
});

test('ls of several paths: what is missing said, files, then each directory under its name', async () => {
  const c = { files: fakeFiles('pod-a'), hostname: 'pod-a', env: {} };
  await run(c, ['sh', '-c', 'mkdir -p /d/sub; echo a > /d/a.txt; echo b > /d/sub/b.txt']);
  assert.deepEqual(await run(c, ['ls', '/d']).then(r => [r.code, r.out]), [0, 'a.txt\nsub\n']);
  assert.deepEqual(await run(c, ['ls', '/d', '/nope', '/d/a.txt', '/d/sub']).then(r => [r.code, r.out, r.err]),
    [1, '/d/a.txt\n\n/d:\na.txt\nsub\n\n/d/sub:\nb.txt\n', 'ls: /nope: No such file or directory\n']);
});
