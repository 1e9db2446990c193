// The write path in the reference's order: defaults (as decoding applies them), the field manager, mutating
// admission, the strategy's prepare, validation, validating admission, then storage; on create and on update.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionHooks } from '../api/admission.js';
import type { ApiObject } from '../api/meta.js';
import { naming } from '../api/naming.js';
import { ApiError } from '../api/status.js';
import { openMemoryKV } from '../storage/memory/kv.js';
import { createObjectStore } from '../storage/objects.js';
import { createApiResources } from './resources.js';
import { createStore } from './store.js';
import { defineStrategy } from './strategy.js';
import { define, only, status } from './resources/define.js';
import { invalid } from './validation/fields.js';

type Thing = ApiObject & { spec?: { size?: number; color?: string }; status?: { seen?: string } };

function setup() {
  const log: string[] = [];
  const strategy = defineStrategy<Thing>({
    defaults(obj) { log.push('defaults'); obj.spec = { size: 1, ...obj.spec }; },
    prepareForCreate(obj) { log.push('prepare'); obj.status = { seen: `${obj.spec?.color}/${obj.spec?.size}` }; },
    prepareForUpdate(obj) { log.push('prepare'); obj.metadata.annotations = { seen: `${obj.spec?.color}/${obj.spec?.size}` }; },
    validate(obj) { log.push('validate'); return (obj.spec?.size ?? 0) > 10 ? [invalid('spec.size', obj.spec?.size, 'too big')] : []; },
    validateUpdate(obj) { log.push('validate'); return (obj.spec?.size ?? 0) > 10 ? [invalid('spec.size', obj.spec?.size, 'too big')] : []; },
  });
  const names = naming();
  const resources = createApiResources(names, () => true);
  resources.add(define<Thing>({
    group: 'example.com', resource: 'things', kind: 'Thing', namespaced: true, versions: only('v1', { type: 'object' }),
    subresources: status, strategy,
  }));
  const info = resources.lookup('example.com', 'v1', 'things')!;
  const store = createStore(info, info.def.strategy!, { objects: createObjectStore(openMemoryKV()), names });
  /** mutating admission paints the object and may grow it; validating admission records what it sees */
  const admission = (grow = 0): AdmissionHooks => ({
    async mutate(_op, obj) {
      const thing = obj as Thing;
      log.push(`mutate (size ${thing.spec?.size}, owned ${thing.metadata.managedFields?.length ?? 0})`);
      thing.spec = { ...thing.spec, color: 'red', size: (thing.spec?.size ?? 0) + grow };
    },
    async validate(_op, obj) {
      log.push(`admit (status ${JSON.stringify((obj as Thing).status ?? null)}, seen ${obj?.metadata.annotations?.seen ?? '-'})`);
    },
  });
  const opts = { dryRun: false, manager: { name: 'tester', apiVersion: 'example.com/v1' } };
  return { log, store, admission, opts };
}

describe('the write path', () => {
  test('create: defaults, field manager, mutating admission, prepare, validation, validating admission', async () => {
    const { log, store, admission, opts } = setup();
    const created = await store.create('ns', { metadata: { name: 'a' } }, admission(), opts) as Thing;
    assert.deepEqual(log, ['defaults', 'mutate (size 1, owned 1)', 'prepare', 'validate', 'admit (status {"seen":"red/1"}, seen -)']);
    // prepare saw what mutating admission set; the defaults were there before admission
    assert.deepEqual([created.spec, created.status], [{ size: 1, color: 'red' }, { seen: 'red/1' }]);
    assert.ok(Number(created.metadata.resourceVersion) > 0);
  });

  test('validation judges the object mutating admission returned', async () => {
    const { store, admission, opts } = setup();
    await assert.rejects(store.create('ns', { metadata: { name: 'b' }, spec: { size: 5 } }, admission(6), opts), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 422);
      assert.match(e.message, /spec\.size: Invalid value: 11: too big/);
      return true;
    });
  });

  test('update: the same order inside the compare-and-swap loop', async () => {
    const { log, store, admission, opts } = setup();
    await store.create('ns', { metadata: { name: 'c' } }, admission(), opts);
    log.length = 0;
    const { obj } = await store.guaranteedUpdate('ns', 'c', '', cur => ({ ...cur!, spec: { color: 'blue' } }), admission(2), opts);
    assert.deepEqual(log, ['defaults', 'mutate (size 1, owned 1)', 'prepare', 'validate', 'admit (status {"seen":"red/1"}, seen red/3)']);
    assert.deepEqual([(obj as Thing).spec, obj.metadata.annotations], [{ size: 3, color: 'red' }, { seen: 'red/3' }]);
  });

  test('mutating admission cannot change what the write path may not: status through the main resource', async () => {
    const { store, opts } = setup();
    await store.create('ns', { metadata: { name: 'd' } }, { mutate: async () => {}, validate: async () => {} }, opts);
    const sneaky: AdmissionHooks = { async mutate(_op, obj) { (obj as Thing).status = { seen: 'forged' }; }, validate: async () => {} };
    const { obj } = await store.guaranteedUpdate('ns', 'd', '', cur => cur!, sneaky, opts);
    assert.deepEqual((obj as Thing).status, { seen: 'undefined/1' });
  });
});
