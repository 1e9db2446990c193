// A child process for the crash tests: opens a store and writes as fast as it can, printing one
// line per ACKNOWLEDGED write, until its parent kills it. The parent then checks that every
// acknowledged write survived.
//
//   node crash-writer.js '{"backend":"sqlite","file":"/tmp/x/store.db"}'
//   node crash-writer.js '{"backend":"etcd","endpoint":"http://127.0.0.1:2379","prefix":"/crash"}'
//
// Output lines: `ready`, then `c <i>` (key i created with createdValue(i)) and
// `h <j> <n>` (hot key j updated to hotValue(j, n)).
import { pathToFileURL } from 'node:url';
import { openEtcdKV } from '../../src/storage/etcd/kv.js';
import { openSqliteKV } from '../../src/storage/sqlite/kv.js';
import type { KV } from '../../src/storage/types.js';

export type CrashStore = { backend: 'sqlite'; file: string } | { backend: 'etcd'; endpoint: string; prefix: string };

export const CREATORS = 28;
export const HOT_KEYS = 4;
export const createdKey = (i: number) => `/crash/keys/${String(i).padStart(8, '0')}`;
export const hotKey = (j: number) => `/crash/hot/${j}`;
/** a value derived from the index, of varying length, so a torn or mixed-up value shows */
export const createdValue = (i: number) => `created ${i} ${'x'.repeat(i % 300)} end ${i}`;
export const hotValue = (j: number, n: number) => `hot ${j} update ${n}`;

export function openCrashStore(store: CrashStore): Promise<KV> {
  return store.backend === 'sqlite'
    ? openSqliteKV({ file: store.file })
    : openEtcdKV({ endpoints: [store.endpoint], prefix: store.prefix });
}

async function main() {
  const kv = await openCrashStore(JSON.parse(process.argv[2]) as CrashStore);
  const encode = (s: string) => new TextEncoder().encode(s);
  const ack = (line: string) => process.stdout.write(line + '\n');

  const hot = await Promise.all(Array.from({ length: HOT_KEYS }, (_, j) => kv.create(hotKey(j), encode(hotValue(j, 0)))));
  ack('ready');

  let nextIndex = 0;
  const creator = async () => {
    for (;;) {
      const i = nextIndex++;
      await kv.create(createdKey(i), encode(createdValue(i)));
      ack(`c ${i}`);
    }
  };
  // One updater per hot key: its updates are sequential, so the stored n can only be >= the last acknowledged.
  const updater = async (j: number) => {
    let modRevision = hot[j].revision;
    for (let n = 1; ; n++) {
      modRevision = (await kv.update(hotKey(j), encode(hotValue(j, n)), modRevision)).revision;
      ack(`h ${j} ${n}`);
    }
  };
  await Promise.all([
    ...Array.from({ length: CREATORS }, creator),
    ...Array.from({ length: HOT_KEYS }, (_, j) => updater(j)),
  ]);
}

// Run only as a program; the crash test imports the key and value scheme from here.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch(err => {
    process.stderr.write(`crash-writer: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
