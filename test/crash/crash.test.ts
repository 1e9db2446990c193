// Crash tests: a writer process is SIGKILLed mid-stream (and for etcd, the etcd server too);
// after reopening, every write the writer saw acknowledged must be there, intact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '../support/etcd.js';
import {
  createdKey, createdValue, HOT_KEYS, hotKey, hotValue, openCrashStore, type CrashStore,
} from '../support/crash-writer.js';

const WRITER = fileURLToPath(new URL('../support/crash-writer.js', import.meta.url));
/** kill this long after the writer is ready, or at this many acknowledgements, whichever comes first */
const KILL_AFTER_MS = 1000;
const KILL_AFTER_ACKS = 5000;
const READY_TIMEOUT_MS = 20_000;

interface Acks {
  /** indexes of acknowledged creates */
  created: number[];
  /** per hot key, the last acknowledged update number */
  hot: number[];
}

/** runs the writer until it has written for a while, SIGKILLs it (and runs onKill), and returns what it acknowledged */
function writeUntilKilled(store: CrashStore, onKill: () => void = () => {}): Promise<Acks> {
  const child = spawn(process.execPath, [WRITER, JSON.stringify(store)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks: Acks = { created: [], hot: Array.from({ length: HOT_KEYS }, () => 0) };
  let killed = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    child.kill('SIGKILL');
    onKill();
  };
  const notReady = setTimeout(kill, READY_TIMEOUT_MS);
  let ready = false;
  // the kill comes mid-stream: after a while, but never before enough writes were acknowledged (a busy machine is slow)
  let timeUp = false;
  const killWhenDue = () => {
    const total = acks.created.length + acks.hot.reduce((a, b) => a + b, 0);
    if (acks.created.length >= KILL_AFTER_ACKS || (timeUp && total >= 100)) kill();
  };
  let partial = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!; // an incomplete last line is not an acknowledgement
    for (const line of lines) {
      const [kind, a, b] = line.split(' ');
      if (kind === 'ready') {
        ready = true;
        clearTimeout(notReady);
        setTimeout(() => { timeUp = true; killWhenDue(); }, KILL_AFTER_MS);
      } else if (kind === 'c') {
        acks.created.push(Number(a));
      } else if (kind === 'h') {
        acks.hot[Number(a)] = Math.max(acks.hot[Number(a)], Number(b));
      }
    }
    killWhenDue();
  });
  // 'close' comes after stdout is drained: every acknowledgement written before the kill is counted.
  return new Promise((resolve, reject) => {
    child.once('close', (code, signal) => {
      if (killed && ready && signal === 'SIGKILL') resolve(acks);
      else reject(new Error(`the writer ${ready ? 'exited' : 'never became ready'} (${signal ?? code}): ${stderr.trim()}`));
    });
  });
}

/** checks the reopened store against the acknowledgements; returns figures for the report */
async function verify(store: CrashStore, acks: Acks) {
  const kv = await openCrashStore(store);
  try {
    const text = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
    const stored = new Map((await kv.list('/crash/keys/')).kvs.map(x => [x.key, text(x.value)]));
    const lost = acks.created.filter(i => stored.get(createdKey(i)) !== createdValue(i));
    // Writes in flight at the kill may or may not have landed, but what landed must be whole.
    const torn = [...stored].filter(([key, value]) => value !== createdValue(Number(key.split('/').pop())));
    const hotLost: string[] = [];
    for (let j = 0; j < HOT_KEYS; j++) {
      const value = text((await kv.get(hotKey(j))).kv!.value);
      const n = Number(value.split(' ').pop());
      if (value !== hotValue(j, n) || n < acks.hot[j]) hotLost.push(`${hotKey(j)}: stored "${value}", acknowledged ${acks.hot[j]}`);
    }
    assert.deepEqual(lost.slice(0, 10), [], `${lost.length} acknowledged creates lost`);
    assert.deepEqual(torn.slice(0, 10), [], 'stored values are intact');
    assert.deepEqual(hotLost, [], 'acknowledged hot-key updates are present');
    const hotAcks = acks.hot.reduce((a, b) => a + b, 0);
    assert.ok(acks.created.length + hotAcks >= 100, `the writer was killed mid-stream, not at the start (${acks.created.length} acks)`);
    return `${acks.created.length} creates and ${hotAcks} hot-key updates acknowledged, `
      + `${stored.size} keys found after restart (${stored.size - acks.created.length} unacknowledged writes landed), 0 lost`;
  } finally {
    await kv.close();
  }
}

test('sqlite: killing the writer loses no acknowledged write', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'crash-sqlite-'));
  try {
    const store: CrashStore = { backend: 'sqlite', file: join(dir, 'store.db') };
    const acks = await writeUntilKilled(store);
    const report = await verify(store, acks);
    t.diagnostic(`sqlite: ${report}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('etcd: killing the writer and the etcd server loses no acknowledged write', async t => {
  const etcd = await startEtcd();
  try {
    const store: CrashStore = { backend: 'etcd', endpoint: etcd.endpoint, prefix: '/crash-test' };
    const acks = await writeUntilKilled(store, () => etcd.kill());
    await etcd.restart();
    const report = await verify(store, acks);
    t.diagnostic(`etcd: ${report}`);
  } finally {
    await etcd.stop();
  }
});
