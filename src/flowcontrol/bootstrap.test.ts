// Keeping the default objects: created when missing, mandatory ones restored, suggested ones left alone once their
// autoupdate annotation is off, fields the server added never mistaken for a change, and the Dangling condition.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import type { FlowControlResource, FlowControlSource, FlowControlWriter, FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import { covers, ensureDefaults } from './bootstrap.js';
import { autoupdateAnnotation } from './defaults.js';

const names = naming('cluster.io');
type Obj = FlowSchema | PriorityLevelConfiguration;

function memoryStore() {
  const objects: Record<FlowControlResource, Map<string, Obj>> = { flowschemas: new Map(), prioritylevelconfigurations: new Map() };
  const writes: string[] = [];
  let generation = 0;
  const source: FlowControlSource = {
    ready: Promise.resolve(),
    config: () => ({ generation, flowSchemas: [...objects.flowschemas.values()] as FlowSchema[],
      priorityLevels: [...objects.prioritylevelconfigurations.values()] as PriorityLevelConfiguration[] }),
    onChange: () => () => {},
    objectCount: () => undefined,
  };
  const writer: FlowControlWriter = {
    async create(resource, obj) { objects[resource].set(obj.metadata!.name!, structuredClone(obj)); writes.push(`create ${resource}/${obj.metadata!.name}`); generation++; },
    async update(resource, name, subresource, change) {
      const next = change(structuredClone(objects[resource].get(name)!) as never);
      if (!next) return;
      objects[resource].set(name, next);
      writes.push(`update ${resource}/${name}${subresource ? `/${subresource}` : ''}`);
      generation++;
    },
  };
  return { objects, writes, source, writer };
}

test('covers: every wanted field is there with its value; more fields are fine', () => {
  assert.ok(covers({ a: 1, b: { c: [1, { d: 2, e: 3 }] }, x: 9 }, { a: 1, b: { c: [1, { d: 2 }] } }));
  assert.ok(!covers({ a: 1 }, { a: 2 }));
  assert.ok(!covers({ a: [1, 2] }, { a: [1] }));
  assert.ok(!covers(undefined, { a: 1 }));
});

test('a pass creates what is missing; a second pass writes nothing', async () => {
  const m = memoryStore();
  const first = await ensureDefaults(m.source, m.writer, names);
  assert.equal(first.created.length, 8 + 13);
  assert.equal(m.objects.flowschemas.get('exempt')!.metadata!.annotations![autoupdateAnnotation(names)], 'true');
  // the first pass also marks each FlowSchema as not dangling
  assert.equal(m.writes.filter(w => w.endsWith('/status')).length, 13);
  m.writes.length = 0;
  const second = await ensureDefaults(m.source, m.writer, names);
  assert.deepEqual([second.created, second.updated, m.writes], [[], [], []]);
});

test('mandatory objects are restored; suggested ones only while their annotation says "true"', async () => {
  const m = memoryStore();
  await ensureDefaults(m.source, m.writer, names);
  const exempt = m.objects.prioritylevelconfigurations.get('exempt') as PriorityLevelConfiguration;
  m.objects.prioritylevelconfigurations.set('exempt', { ...exempt, metadata: { ...exempt.metadata, annotations: {} }, spec: { type: 'Limited' } });
  const global = m.objects.prioritylevelconfigurations.get('global-default') as PriorityLevelConfiguration;
  m.objects.prioritylevelconfigurations.set('global-default', { ...global, metadata: { ...global.metadata, annotations: { [autoupdateAnnotation(names)]: 'false' } },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1 } } });
  const system = m.objects.prioritylevelconfigurations.get('system') as PriorityLevelConfiguration;
  m.objects.prioritylevelconfigurations.set('system', { ...system, spec: { ...system.spec!, limited: { ...system.spec!.limited, nominalConcurrencyShares: 2 } } });
  const withDefaults = m.objects.flowschemas.get('catch-all')!;
  m.objects.flowschemas.set('catch-all', { ...withDefaults, spec: { ...withDefaults.spec!, extra: 'added by the server' } as never });
  const r = await ensureDefaults(m.source, m.writer, names);
  assert.deepEqual(r.updated.sort(), ['prioritylevelconfigurations/exempt', 'prioritylevelconfigurations/system']);
  assert.equal((m.objects.prioritylevelconfigurations.get('exempt') as PriorityLevelConfiguration).spec!.type, 'Exempt');
  assert.equal((m.objects.prioritylevelconfigurations.get('system') as PriorityLevelConfiguration).spec!.limited!.nominalConcurrencyShares, 30);
  assert.equal((m.objects.prioritylevelconfigurations.get('global-default') as PriorityLevelConfiguration).spec!.limited!.nominalConcurrencyShares, 1);
});

test('a FlowSchema whose level is missing is Dangling, and stops being so when the level comes', async () => {
  const m = memoryStore();
  await ensureDefaults(m.source, m.writer, names);
  m.objects.flowschemas.set('orphan', { metadata: { name: 'orphan' }, spec: { priorityLevelConfiguration: { name: 'later' } } });
  await ensureDefaults(m.source, m.writer, names);
  const condition = () => (m.objects.flowschemas.get('orphan') as FlowSchema).status!.conditions!.find(c => c.type === 'Dangling')!;
  assert.deepEqual([condition().status, condition().reason], ['True', 'NotFound']);
  m.objects.prioritylevelconfigurations.set('later', { metadata: { name: 'later' }, spec: { type: 'Exempt' } });
  await ensureDefaults(m.source, m.writer, names);
  assert.deepEqual([condition().status, condition().reason], ['False', 'Found']);
});

test('a suggested object without a readable annotation is kept current until its spec was changed, then marked "false"', async () => {
  const m = memoryStore();
  await ensureDefaults(m.source, m.writer, names);
  const key = autoupdateAnnotation(names);
  const edit = (name: string, annotations: Record<string, string>, generation: number) => {
    const l = m.objects.prioritylevelconfigurations.get(name) as PriorityLevelConfiguration;
    m.objects.prioritylevelconfigurations.set(name, { ...l, metadata: { ...l.metadata, annotations, generation },
      spec: { ...l.spec!, limited: { ...l.spec!.limited, nominalConcurrencyShares: 3 } } });
  };
  edit('workload-low', {}, 1);
  edit('workload-high', { other: 'x' }, 4);
  edit('leader-election', { [key]: 'True' }, 5);
  edit('node-high', { [key]: 'FALSE' }, 6);
  const r = await ensureDefaults(m.source, m.writer, names);
  assert.deepEqual(r.updated.sort(), ['prioritylevelconfigurations/leader-election', 'prioritylevelconfigurations/node-high',
    'prioritylevelconfigurations/workload-high', 'prioritylevelconfigurations/workload-low']);
  const level = (name: string) => m.objects.prioritylevelconfigurations.get(name) as PriorityLevelConfiguration;
  const state = (name: string) => [level(name).metadata!.annotations![key], level(name).spec!.limited!.nominalConcurrencyShares];
  assert.deepEqual(state('workload-low'), ['true', 100]);
  assert.deepEqual(state('workload-high'), ['false', 3]);
  assert.equal(level('workload-high').metadata!.annotations!.other, 'x');
  assert.deepEqual(state('leader-election'), ['true', 10]);
  assert.deepEqual(state('node-high'), ['false', 3]);
  const again = await ensureDefaults(m.source, m.writer, names);
  assert.deepEqual(again.updated, []);
});
