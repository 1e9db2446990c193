import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../../../api/naming.js';
import type { StoredObject } from '../../../api/cache.js';
import type { WatchCache } from '../../../watch/cache.js';
import type { ApiResources, ResourceInfo } from '../../resources.js';
import { webhookSource } from './webhook-source.js';

const names = naming();
const group = names.group('admissionregistration');

/** a watch cache holding the given stored objects, and resources that serve the webhook configurations */
function fixture() {
  let stored: StoredObject[] = [];
  const cache = { ready: Promise.resolve(), snapshot: () => [...stored] };
  const watchCache = { cache: () => cache } as unknown as WatchCache;
  const info = (resource: string, version: string) => ({ group, version, resource, keyPrefix: `/registry/${group}/${resource}/`, def: {} }) as ResourceInfo;
  const served = [info('mutatingwebhookconfigurations', 'v1'), info('validatingwebhookconfigurations', 'v1')];
  const changed: Array<() => void> = [];
  let lookups = 0;
  const resources = {
    preferred: (g: string, r: string) => { lookups++; return served.find(i => i.group === g && i.resource === r); },
    all: () => served, lookup: () => undefined, onChange: (f: () => void) => { changed.push(f); },
  } as unknown as ApiResources;
  const stored1 = (name: string, rev: number): StoredObject => ({ key: `/registry/${group}/mutatingwebhookconfigurations/${name}`, rev, obj: { metadata: { name } } });
  return { source: webhookSource(watchCache, resources, names), set: (s: StoredObject[]) => { stored = s; }, stored1, changed, lookups: () => lookups };
}

test('the same list while no configuration changed, a new one after a change; the resource looked up once', async () => {
  const f = fixture();
  const a = f.stored1('a', 1), b = f.stored1('b', 2);
  f.set([a, b]);
  const first = await f.source.configurations('mutatingwebhookconfigurations');
  assert.deepEqual(first.map(o => o.metadata.name), ['a', 'b']);
  assert.equal(await f.source.configurations('mutatingwebhookconfigurations'), first, 'unchanged: the very same list');
  f.set([a, f.stored1('b', 3)]);
  const second = await f.source.configurations('mutatingwebhookconfigurations');
  assert.notEqual(second, first);
  f.set([a]);
  assert.deepEqual((await f.source.configurations('mutatingwebhookconfigurations')).map(o => o.metadata.name), ['a']);
  assert.equal(f.lookups(), 1);
  for (const c of f.changed) c();
  await f.source.configurations('mutatingwebhookconfigurations');
  assert.equal(f.lookups(), 2, 'looked up again once the served resources changed');
});
