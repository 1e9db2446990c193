// Turning the watch cache off, as the reference's flags do: --watch-cache-sizes=<resource>[.group]#0 for one
// resource, --default-watch-cache-size=0 for those without a size of their own, --watch-cache=false for all. A
// resource with its cache off still lists and watches correctly, and its reads really go to storage: every list
// (resourceVersion "" or "0") and every watch that starts from the current state shows in etcd_requests_total,
// where a cached resource answers resourceVersion="0" from memory.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../src/testing.js';
import { createClient, type Client } from './client.js';

const configurations: Array<{ flags: string[]; off: string[]; on: string[] }> = [
  { flags: ['--watch-cache-sizes=configmaps#0'], off: ['configmaps'], on: ['secrets'] },
  { flags: ['--default-watch-cache-size=0', '--watch-cache-sizes=secrets#100'], off: ['configmaps'], on: ['secrets'] },
  { flags: ['--watch-cache=false'], off: ['configmaps', 'secrets'], on: [] },
];

/** storage lists of a resource so far */
async function storageLists(c: Client, resource: string): Promise<number> {
  const metrics = (await c.get('/metrics')).body;
  const line = metrics.split('\n').find((l) => l.startsWith('etcd_requests_total{') && l.includes('operation="listWithCount"') && l.includes(`type="${resource}"`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const body = (resource: string, name: string) => resource === 'configmaps'
  ? { metadata: { name }, data: { a: 'b' } }
  : { metadata: { name }, stringData: { a: 'b' } };

for (const storage of ['memory', 'sqlite'] as const) {
  for (const { flags, off, on } of configurations) {
    describe(`${storage}, ${flags.join(' ')}`, () => {
      test('resources with the cache off list and watch from storage; the others from the cache', async () => {
        const server = await startTestServer({ storage, flags: ['--controller-manager=false', ...flags] });
        const c = createClient(server);
        try {
          for (const resource of [...off, ...on]) {
            const base = `/api/v1/namespaces/default/${resource}`;
            const created = await c.request('POST', base, { body: body(resource, 'first') });
            assert.equal(created.status, 201, created.body);
            // a first read builds the cache of a cached resource (one storage list); what follows is measured
            await c.get(`${base}?resourceVersion=0`);
            const list = async (rv: string) => {
              const reply = await c.get(`${base}?resourceVersion=${rv}`);
              assert.equal(reply.status, 200, reply.body);
              assert.deepEqual(reply.json.items.map((o: any) => o.metadata.name), ['first'], `${resource} listed with resourceVersion="${rv}"`);
              assert.ok(Number(reply.json.metadata.resourceVersion) >= Number(created.json.metadata.resourceVersion));
            };
            // a consistent list: from storage when the cache is off (a cached resource may answer it either way)
            const atFirst = await storageLists(c, resource);
            await list('');
            if (off.includes(resource)) assert.ok((await storageLists(c, resource)) > atFirst, `${resource}: a consistent list reads storage`);
            // from here on, what the reference's cache serves itself: resourceVersion="0" lists and watches
            const before = await storageLists(c, resource);
            await list('0');

            // a watch from the current state: the object as ADDED, then a change made after it started
            const w = await c.watch(`${base}?watch=1&resourceVersion=0`);
            assert.equal(w.status, 200);
            const initial = await w.next(10_000);
            assert.equal(initial?.type, 'ADDED');
            assert.equal(initial?.object.metadata.name, 'first');
            const second = await c.request('POST', base, { body: body(resource, 'second') });
            assert.equal(second.status, 201, second.body);
            const added = await w.next(10_000);
            assert.deepEqual([added?.type, added?.object.metadata.name, added?.object.metadata.resourceVersion], ['ADDED', 'second', second.json.metadata.resourceVersion]);
            w.close();

            // a watch from a resourceVersion sees the changes after it
            const from = await c.watch(`${base}?watch=1&resourceVersion=${created.json.metadata.resourceVersion}`);
            const next = await from.next(10_000);
            assert.deepEqual([next?.type, next?.object.metadata.name], ['ADDED', 'second']);
            from.close();

            const reads = (await storageLists(c, resource)) - before;
            if (off.includes(resource)) assert.ok(reads >= 2, `${resource}: the list and the watch read storage (${reads} storage lists)`);
            else assert.equal(reads, 0, `${resource}: served from the watch cache`);
          }
        } finally {
          c.close();
          await server.close();
        }
      });
    });
  }
}
