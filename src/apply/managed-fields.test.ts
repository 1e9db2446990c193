// The field manager against spec 4.6 (rules 1–9) and 2.7 (markers, topology changes). Expected
// managedFields are the reference's: entry field order, entry order, fieldsV1 key order and "." placement.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { naming } from '../api/naming.js';
import type { Schema } from '../api/schema.js';
import {
  apply, ApplyError, ConflictError, fieldManagerProblems, managerFromUserAgent, updateManagedFields, type ApplyOptions,
} from './managed-fields.js';
import type { ManagedFieldsEntry } from '../api/types/meta-v1.js';
import type { Obj } from './typed.js';
import * as S from './test-schemas.js';

const T = (s: number) => new Date(Date.UTC(2023, 0, 1, 0, 0, s)).toISOString().replace('.000Z', 'Z');
type F = Record<string, unknown>;
const entry = (manager: string, operation: 'Apply' | 'Update', time: string, fieldsV1: F, apiVersion = 'v1', subresource?: string): ManagedFieldsEntry =>
  ({ manager, operation, apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: fieldsV1 as ManagedFieldsEntry['fieldsV1'], ...(subresource ? { subresource } : {}) });
/** exact comparison, key order included */
const same = (actual: unknown, expected: unknown) => assert.equal(JSON.stringify(actual, null, 1), JSON.stringify(expected, null, 1));
const mf = (o: Obj) => (o.metadata as Obj).managedFields;

const cm = (data?: Record<string, string>, meta: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', ...meta }, ...(data ? { data } : {}) });
const applyCM = (live: Obj | undefined, config: Obj, manager: string, t: number, more: Partial<ApplyOptions> = {}) =>
  apply(live, config, { manager, apiVersion: 'v1', time: T(t), ...more }, S.configMap).object;
const updateCM = (live: Obj | undefined, next: Obj, manager: string, t: number) =>
  updateManagedFields(live, next, { manager, apiVersion: 'v1', time: T(t) }, S.configMap).object;

const deploy = (spec: Obj): Obj => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec });
const applyD = (live: Obj | undefined, spec: Obj, manager: string, t: number, more: Partial<ApplyOptions> = {}, schema: Schema = S.deployment) =>
  apply(live, deploy(spec), { manager, apiVersion: 'apps/v1', time: T(t), ...more }, schema).object;
const conflictOf = (f: () => unknown): ConflictError => {
  try { f(); } catch (e) { if (e instanceof ConflictError) return e; throw e; }
  assert.fail('expected a conflict');
};

describe('managedFields of creates', () => {
  test('apply creates the object; the applier owns what it set, system fields excluded', () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } }, data: { key: 'some value' } };
    const { object, managedFields } = apply(undefined, config, { manager: 'kubectl', apiVersion: 'v1', time: T(0) }, S.configMap);
    same(managedFields, [entry('kubectl', 'Apply', T(0), { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } })]);
    same(object, { ...config, metadata: { ...config.metadata, managedFields } });
  });

  test('a create by update owns the containers it added too ("." entries)', () => {
    const object = updateCM(undefined, cm({ key: 'v' }, { labels: { app: 'x' } }), 'kubectl-create', 0);
    same(mf(object), [entry('kubectl-create', 'Update', T(0), { 'f:data': { 'f:key': {}, '.': {} }, 'f:metadata': { 'f:labels': { 'f:app': {}, '.': {} } } })]);
  });

  test('a create by update against the kind\'s zero value: non-pointer structs are not added themselves', () => {
    const zero = { metadata: { creationTimestamp: null }, spec: { selector: null, strategy: {}, template: { metadata: { creationTimestamp: null }, spec: { containers: null } } }, status: {} };
    const d = deploy({
      replicas: 1, selector: { matchLabels: { app: 'nginx' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', resources: {} }], restartPolicy: 'Always' } },
    });
    const { managedFields } = updateManagedFields(undefined, d, { manager: 'kubectl-create', apiVersion: 'apps/v1', time: T(0), zero }, S.deployment);
    same(managedFields, [entry('kubectl-create', 'Update', T(0), {
      'f:spec': {
        'f:replicas': {}, 'f:selector': {},
        'f:strategy': { 'f:rollingUpdate': { 'f:maxSurge': {}, '.': {} }, 'f:type': {} },
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {}, '.': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:image': {}, 'f:name': {}, 'f:resources': {}, '.': {} } }, 'f:restartPolicy': {} },
        },
      },
    }, 'apps/v1')]);
  });

  test('apply of a Deployment: list maps keyed by name and by (containerPort, defaulted protocol)', () => {
    const object = applyD(undefined, {
      replicas: 2, selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }] }] } },
    }, 'kubectl', 0);
    same(mf(object), [entry('kubectl', 'Apply', T(0), {
      'f:spec': {
        'f:replicas': {}, 'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { 'f:containerPort': {}, '.': {} } }, '.': {} } } },
        },
      },
    }, 'apps/v1')]);
  });
});

describe('spec 4.6 rules', () => {
  test('1: applied fields merge into the live object; the applied value wins', () => {
    const live = applyCM(undefined, cm({ a: '1', b: '2' }), 'm1', 1);
    const object = applyCM(live, cm({ b: '2', c: '3' }), 'm2', 2);
    assert.deepEqual(object.data, { a: '1', b: '2', c: '3' });
    same(mf(object), [entry('m1', 'Apply', T(1), { 'f:data': { 'f:a': {}, 'f:b': {} } }), entry('m2', 'Apply', T(2), { 'f:data': { 'f:b': {}, 'f:c': {} } })]);
  });

  test('2: a different value on a field another manager owns is a conflict, in the reference wording', () => {
    const live = updateCM(undefined, cm({ k: '1' }), 'kubectl-client-side-apply', 1);
    const e = conflictOf(() => applyCM(live, cm({ k: '2' }), 'tool', 2));
    assert.equal(e.code, 409);
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.k');
    same(e.status(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: e.message, reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using v1', field: '.data.k' }] }, code: 409,
    });
  });

  test('2: every conflicting field is listed, grouped by manager', () => {
    let live = applyCM(undefined, cm({ a: '1' }), 'm1', 1);
    live = updateCM(live, { ...live, data: { a: '1', b: '1' } }, 'm2', 2);
    const e = conflictOf(() => applyCM(live, cm({ a: '2', b: '2' }), 'm3', 3));
    assert.equal(e.message, 'Apply failed with 2 conflicts: conflicts with "m1":\n- .data.a\nconflicts with "m2" using v1:\n- .data.b');
    assert.deepEqual(e.causes.map((c) => [c.message, c.field]), [['conflict with "m1"', '.data.a'], ['conflict with "m2" using v1', '.data.b']]);
  });

  test('2: non-apply writes take the field without conflict', () => {
    const live = applyCM(undefined, cm({ k: '1' }), 'm1', 1);
    const object = updateCM(live, { ...live, data: { k: '2' } }, 'editor', 2);
    same(mf(object), [entry('editor', 'Update', T(2), { 'f:data': { 'f:k': {} } })]);
  });

  test('3: force takes the field from its owner', () => {
    const live = applyCM(undefined, cm({ k: '1', j: '1' }), 'm1', 1);
    const object = applyCM(live, cm({ k: '2' }), 'm2', 2, { force: true });
    assert.deepEqual(object.data, { k: '2', j: '1' });
    same(mf(object), [entry('m1', 'Apply', T(1), { 'f:data': { 'f:j': {} } }), entry('m2', 'Apply', T(2), { 'f:data': { 'f:k': {} } })]);
  });

  test('3: the same value is shared ownership; leaving the field out releases it and the value stays', () => {
    let live = applyCM(undefined, cm({ k: '1' }), 'm1', 1);
    live = applyCM(live, cm({ k: '1' }), 'm2', 2);
    same(mf(live), [entry('m1', 'Apply', T(1), { 'f:data': { 'f:k': {} } }), entry('m2', 'Apply', T(2), { 'f:data': { 'f:k': {} } })]);
    const object = applyCM(live, cm(), 'm1', 3);
    assert.deepEqual(object.data, { k: '1' });
    same(mf(object), [entry('m2', 'Apply', T(2), { 'f:data': { 'f:k': {} } })]);
  });

  test('4: a field the applier stops asserting is deleted when nobody else owns it', () => {
    const live = applyCM(undefined, cm({ a: '1', b: '2' }, { labels: { x: '1', y: '2' } }), 'm1', 1);
    const object = applyCM(live, cm({ a: '1' }, { labels: { y: '2' } }), 'm1', 2);
    assert.deepEqual(object.data, { a: '1' });
    assert.deepEqual((object.metadata as Obj).labels, { y: '2' });
    same(mf(object), [entry('m1', 'Apply', T(2), { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:y': {} } } })]);
  });

  test('4: ... and kept when an updater owns it', () => {
    let live = applyCM(undefined, cm({ a: '1' }), 'm1', 1);
    live = updateCM(live, { ...live, data: { a: '1', b: '2' } }, 'editor', 2);
    live = applyCM(live, cm({ a: '1', b: '2' }), 'm1', 3);
    const object = applyCM(live, cm({ a: '1' }), 'm1', 4);
    assert.deepEqual(object.data, { a: '1', b: '2' });
    same(mf(object), [entry('m1', 'Apply', T(4), { 'f:data': { 'f:a': {} } }), entry('editor', 'Update', T(2), { 'f:data': { 'f:b': {} } })]);
  });

  test('4: list entries the applier stopped asserting are removed', () => {
    const spec = (...names: string[]) => ({ template: { spec: { containers: names.map((name) => ({ name, image: `${name}:1` })) } } });
    const live = applyD(undefined, spec('a', 'b'), 'm1', 1);
    const object = applyD(live, spec('a'), 'm1', 2);
    assert.deepEqual(object.spec, spec('a'));
    same(mf(object), [entry('m1', 'Apply', T(2), { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:image': {}, 'f:name': {}, '.': {} } } } } } }, 'apps/v1')]);
  });

  test('6: a controller applies with force and without resourceVersion', () => {
    let live = applyD(undefined, { replicas: 1, minReadySeconds: 1 }, 'kubectl', 1);
    live = { ...live, metadata: { ...(live.metadata as Obj), resourceVersion: '41' } };
    const object = applyD(live, { replicas: 4 }, 'my-controller', 2, { force: true });
    assert.equal((object.metadata as Obj).resourceVersion, '41');
    assert.deepEqual(object.spec, { replicas: 4, minReadySeconds: 1 });
    same(mf(object), [
      entry('kubectl', 'Apply', T(1), { 'f:spec': { 'f:minReadySeconds': {} } }, 'apps/v1'),
      entry('my-controller', 'Apply', T(2), { 'f:spec': { 'f:replicas': {} } }, 'apps/v1'),
    ]);
  });

  test('7: ownership moves to a controller through a temporary manager, which then disappears', () => {
    let live = applyD(undefined, { replicas: 3, minReadySeconds: 5 }, 'kubectl', 1);
    live = applyD(live, { replicas: 3 }, 'handover-to-hpa', 2);
    live = applyD(live, { minReadySeconds: 5 }, 'kubectl', 3);
    assert.deepEqual(live.spec, { replicas: 3, minReadySeconds: 5 });
    same(mf(live), [
      entry('handover-to-hpa', 'Apply', T(2), { 'f:spec': { 'f:replicas': {} } }, 'apps/v1'),
      entry('kubectl', 'Apply', T(3), { 'f:spec': { 'f:minReadySeconds': {} } }, 'apps/v1'),
    ]);
    const object = updateManagedFields(live, { ...live, spec: { replicas: 7, minReadySeconds: 5 } }, { manager: 'hpa', apiVersion: 'apps/v1', time: T(4) }, S.deployment).object;
    same(mf(object), [
      entry('kubectl', 'Apply', T(3), { 'f:spec': { 'f:minReadySeconds': {} } }, 'apps/v1'),
      entry('hpa', 'Update', T(4), { 'f:spec': { 'f:replicas': {} } }, 'apps/v1'),
    ]);
  });

  describe('8: moving from client-side apply', () => {
    const annotation = `kubectl.${naming().labelDomain}/last-applied-configuration`;
    const created = () => {
      const first = cm({ k: '1' });
      const lastApplied = JSON.stringify({ apiVersion: 'v1', data: { k: '1' }, kind: 'ConfigMap', metadata: { annotations: {}, name: 'cm' } }) + '\n';
      return updateCM(undefined, { ...first, metadata: { name: 'cm', annotations: { [annotation]: lastApplied } } }, 'kubectl-client-side-apply', 1);
    };

    test('the default manager takes over without conflicts and keeps the annotation current', () => {
      const object = applyCM(created(), cm({ k: '2' }), 'kubectl', 2, { lastAppliedAnnotation: annotation });
      assert.deepEqual(object.data, { k: '2' });
      assert.equal(((object.metadata as Obj).annotations as Obj)[annotation], '{"apiVersion":"v1","data":{"k":"2"},"kind":"ConfigMap","metadata":{"name":"cm"}}\n');
      same(mf(object), [
        entry('kubectl', 'Apply', T(2), { 'f:data': { 'f:k': {} } }),
        entry('kubectl-client-side-apply', 'Update', T(1), { 'f:data': {}, 'f:metadata': { 'f:annotations': { [`f:${annotation}`]: {}, '.': {} } } }),
      ]);
    });

    test('another manager name opts out', () => {
      const e = conflictOf(() => applyCM(created(), cm({ k: '2' }), 'my-tool', 2, { lastAppliedAnnotation: annotation }));
      assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.k');
    });

    test('fields the annotation does not hold still conflict', () => {
      const live = updateCM(created(), { ...created(), data: { k: '1', other: 'x' } }, 'editor', 2);
      const e = conflictOf(() => applyCM(live, cm({ k: '2', other: 'y' }), 'kubectl', 3, { lastAppliedAnnotation: annotation }));
      assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.other');
    });
  });

  describe('9: resetting managedFields', () => {
    const live = () => applyCM(applyCM(undefined, cm({ a: '1' }), 'm1', 1), cm({ b: '1' }), 'm2', 2);

    test('one empty entry clears them', () => {
      const object = updateCM(live(), { ...live(), metadata: { name: 'cm', managedFields: [{}] } }, 'editor', 3);
      assert.equal('managedFields' in (object.metadata as Obj), false);
    });

    test('the reset happens first: the writer then owns what it changed', () => {
      const object = updateCM(live(), { ...live(), metadata: { name: 'cm', managedFields: [{}] }, data: { a: '1', b: '2' } }, 'editor', 3);
      same(mf(object), [entry('editor', 'Update', T(3), { 'f:data': { 'f:b': {} } })]);
    });

    test('an empty list or no managedFields keeps the stored ones', () => {
      const stored = mf(live());
      same(mf(updateCM(live(), { ...live(), metadata: { name: 'cm', managedFields: [] } }, 'editor', 3)), stored);
      const { managedFields: _m, ...bare } = live().metadata as Obj;
      same(mf(updateCM(live(), { ...live(), metadata: bare }, 'editor', 3)), stored);
    });

    test('managedFields sent with an update replace the stored ones', () => {
      const sent = [entry('someone', 'Apply', T(0), { 'f:data': { 'f:a': {}, 'f:b': {} } })];
      same(mf(updateCM(live(), { ...live(), metadata: { name: 'cm', managedFields: sent } }, 'editor', 3)), sent);
    });
  });
});

describe('spec 2.7 markers', () => {
  const container = (c: Obj) => ({ template: { spec: { containers: [{ name: 'c', ...c }] } } });
  const cPath = (f: F) => ({ 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { ...f, '.': {} } } } } } });

  test('atomic list: replaced whole, one owner', () => {
    const live = applyD(undefined, container({ args: ['a', 'b'] }), 'm1', 1);
    const e = conflictOf(() => applyD(live, container({ args: ['c'] }), 'm2', 2));
    assert.equal(e.causes[0].field, '.spec.template.spec.containers[name="c"].args');
    const object = applyD(live, container({ args: ['c'] }), 'm2', 2, { force: true });
    assert.deepEqual(object.spec, container({ args: ['c'] }));
    same(mf(object), [
      entry('m1', 'Apply', T(1), cPath({ 'f:name': {} }), 'apps/v1'),
      entry('m2', 'Apply', T(2), cPath({ 'f:args': {}, 'f:name': {} }), 'apps/v1'),
    ]);
  });

  test('set: entries owned separately, union of values', () => {
    const live = applyCM(undefined, cm(undefined, { finalizers: ['a', 'shared'] }), 'm1', 1);
    const object = applyCM(live, cm(undefined, { finalizers: ['b', 'shared'] }), 'm2', 2);
    assert.deepEqual((object.metadata as Obj).finalizers, ['a', 'b', 'shared']);
    same(mf(object), [
      entry('m1', 'Apply', T(1), { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"shared"': {} } } }),
      entry('m2', 'Apply', T(2), { 'f:metadata': { 'f:finalizers': { 'v:"b"': {}, 'v:"shared"': {} } } }),
    ]);
  });

  test('map list (and patch strategy merge read as map): entries owned by key', () => {
    const live = applyD(undefined, container({ env: [{ name: 'A', value: '1' }] }), 'm1', 1);
    const object = applyD(live, container({ env: [{ name: 'B', value: '2' }] }), 'm2', 2);
    assert.deepEqual(object.spec, container({ env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }));
    same(mf(object), [
      entry('m1', 'Apply', T(1), cPath({ 'f:env': { 'k:{"name":"A"}': { 'f:name': {}, 'f:value': {}, '.': {} } }, 'f:name': {} }), 'apps/v1'),
      entry('m2', 'Apply', T(2), cPath({ 'f:env': { 'k:{"name":"B"}': { 'f:name': {}, 'f:value': {}, '.': {} } }, 'f:name': {} }), 'apps/v1'),
    ]);
  });

  test('atomic map: replaced by one manager', () => {
    const ns = (sel: Obj) => ({ template: { spec: { nodeSelector: sel } } });
    const live = applyD(undefined, ns({ zone: 'a' }), 'm1', 1);
    const e = conflictOf(() => applyD(live, ns({ disk: 'ssd' }), 'm2', 2));
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "m1": .spec.template.spec.nodeSelector');
    const object = applyD(live, ns({ disk: 'ssd' }), 'm2', 2, { force: true });
    assert.deepEqual(object.spec, ns({ disk: 'ssd' }));
    same(mf(object), [entry('m2', 'Apply', T(2), { 'f:spec': { 'f:template': { 'f:spec': { 'f:nodeSelector': {} } } } }, 'apps/v1')]);
  });

  test('atomic struct: the selector is one field', () => {
    const live = applyD(undefined, { selector: { matchLabels: { a: '1' } } }, 'm1', 1);
    const e = conflictOf(() => applyD(live, { selector: { matchLabels: { a: '1', b: '2' } } }, 'm2', 2));
    assert.equal(e.causes[0].field, '.spec.selector');
  });

  test('granular map: keys owned by different managers', () => {
    const live = applyCM(undefined, cm(undefined, { labels: { a: '1' } }), 'm1', 1);
    const object = applyCM(live, cm(undefined, { labels: { b: '2' } }), 'm2', 2);
    same(mf(object), [
      entry('m1', 'Apply', T(1), { 'f:metadata': { 'f:labels': { 'f:a': {} } } }),
      entry('m2', 'Apply', T(2), { 'f:metadata': { 'f:labels': { 'f:b': {} } } }),
    ]);
  });

  test('unstructured resources: every key a field, every list atomic', () => {
    const cr = (spec: Obj): Obj => ({ apiVersion: 'example.test/v1', kind: 'Thing', metadata: { name: 't' }, spec });
    const run = (live: Obj | undefined, spec: Obj, manager: string, t: number, force = false) =>
      apply(live, cr(spec), { manager, apiVersion: 'example.test/v1', time: T(t), force }, S.unstructuredResource).object;
    const live = run(undefined, { a: { b: 1 }, list: [1, 2] }, 'm1', 1);
    assert.equal(conflictOf(() => run(live, { a: { c: 2 }, list: [3] }, 'm2', 2)).causes[0].field, '.spec.list');
    const object = run(live, { a: { c: 2 }, list: [3] }, 'm2', 2, true);
    assert.deepEqual(object.spec, { a: { b: 1, c: 2 }, list: [3] });
    same(mf(object), [
      entry('m1', 'Apply', T(1), { 'f:spec': { 'f:a': { 'f:b': {}, '.': {} } } }, 'example.test/v1'),
      entry('m2', 'Apply', T(2), { 'f:spec': { 'f:a': { 'f:c': {}, '.': {} }, 'f:list': {} } }, 'example.test/v1'),
    ]);
  });

  const thing = (map: Schema): Schema => ({ type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: S.objectMeta, spec: { type: 'object', properties: { m: map } } } });
  const granular = thing({ type: 'object', additionalProperties: { type: 'string' } });
  const atomic = thing({ type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' });
  const run = (live: Obj | undefined, m: Obj, manager: string, t: number, schema: Schema, force = false) =>
    apply(live, { apiVersion: 'example.test/v1', kind: 'Thing', metadata: { name: 't' }, spec: { m } }, { manager, apiVersion: 'example.test/v1', time: T(t), force }, schema).object;

  test('granular → atomic: the owner of any part owns the whole, later changes conflict', () => {
    let live = run(undefined, { x: '1' }, 'm1', 1, granular);
    live = run(live, { y: '2' }, 'm2', 2, granular);
    const e = conflictOf(() => run(live, { z: '3' }, 'm3', 3, atomic));
    assert.equal(e.message, 'Apply failed with 2 conflicts: conflicts with "m1":\n- .spec.m\nconflicts with "m2":\n- .spec.m');
    const object = run(live, { z: '3' }, 'm3', 3, atomic, true);
    assert.deepEqual(object.spec, { m: { z: '3' } });
    same(mf(object), [entry('m3', 'Apply', T(3), { 'f:spec': { 'f:m': {} } }, 'example.test/v1')]);
  });

  test('atomic → granular: the top-level field stays owned, its children are not, no conflict', () => {
    const live = run(undefined, { x: '1' }, 'm1', 1, atomic);
    const object = run(live, { x: '2' }, 'm2', 2, granular);
    assert.deepEqual(object.spec, { m: { x: '2' } });
    same(mf(object), [
      entry('m1', 'Apply', T(1), { 'f:spec': { 'f:m': {} } }, 'example.test/v1'),
      entry('m2', 'Apply', T(2), { 'f:spec': { 'f:m': { 'f:x': {} } } }, 'example.test/v1'),
    ]);
  });
});

describe('where a simpler reading would differ from the reference', () => {
  const containers = (...names: string[]) => ({ template: { spec: { containers: names.map((name) => ({ name, image: `${name}:1` })) } } });

  test('an apply holding only an empty list where the applier owned more keeps what it applied (rule 1)', () => {
    const live = applyD(undefined, { minReadySeconds: 5, ...containers('a') }, 'm1', 1);
    const object = applyD(live, containers(), 'm1', 2);
    assert.deepEqual(object.spec, containers());
    // an empty list under a declared field sets no field: the applier owns nothing now and its entry goes
    assert.equal(mf(object), undefined);
    // and the same with another owner below the container: its fields stay beside the applied empty list
    let shared = applyD(undefined, { minReadySeconds: 5, ...containers('a') }, 'm1', 1);
    shared = applyD(shared, { paused: true }, 'm2', 2);
    const kept = applyD(shared, containers(), 'm1', 3);
    assert.deepEqual(kept.spec, { paused: true, ...containers() });
    same(mf(kept), [entry('m2', 'Apply', T(2), { 'f:spec': { 'f:paused': {} } }, 'apps/v1')]);
  });

  test('an apply that changes nothing keeps the live order of sets and list maps, and its managedFields', () => {
    const live = applyD(undefined, containers('a', 'b'), 'm1', 1);
    const object = applyD(live, containers('b', 'a'), 'm1', 2);
    assert.deepEqual(object.spec, containers('a', 'b'));
    assert.equal(mf(object), mf(live));
    const withSet = applyCM(undefined, cm(undefined, { finalizers: ['a', 'b'] }), 'm1', 1);
    const sharedSet = applyCM(withSet, cm(undefined, { finalizers: ['b', 'a'] }), 'm2', 2);
    assert.deepEqual((sharedSet.metadata as Obj).finalizers, ['a', 'b']);
    same(mf(sharedSet), [
      entry('m1', 'Apply', T(1), { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } }),
      entry('m2', 'Apply', T(2), { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } }),
    ]);
  });

  test('an update of a stored object with no managedFields records no manager; a create and a reset do', () => {
    const stored = cm({ a: '1' }, { uid: 'u1' });
    const updated = updateCM(stored, { ...stored, data: { a: '2', b: '1' } }, 'editor', 1);
    assert.deepEqual(updated.data, { a: '2', b: '1' });
    assert.equal(mf(updated), undefined);
    same(mf(updateCM(undefined, cm({ a: '1' }), 'creator', 1)), [entry('creator', 'Update', T(1), { 'f:data': { 'f:a': {}, '.': {} } })]);
    const reset = updateCM(stored, { ...cm({ a: '3' }, { uid: 'u1', managedFields: [{}] }) }, 'resetter', 2);
    same(mf(reset), [entry('resetter', 'Update', T(2), { 'f:data': { 'f:a': {} } })]);
  });
});

describe('field manager bookkeeping', () => {
  test('an existing object nobody owns is first given to before-first-apply', () => {
    const live = cm({ k: '1', j: '1' });
    const e = conflictOf(() => applyCM(live, cm({ k: '2' }), 'm1', 2));
    assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.k');
    same(mf(applyCM(live, cm({ k: '1' }), 'm1', 2)), [
      entry('m1', 'Apply', T(2), { 'f:data': { 'f:k': {} } }),
      entry('before-first-apply', 'Update', T(2), { 'f:data': { 'f:j': {}, 'f:k': {}, '.': {} } }),
    ]);
  });

  test('one entry per manager, operation, version and subresource; the entry grows and its time moves', () => {
    let live = updateCM(undefined, cm({ a: '1' }), 'w', 1);
    live = updateCM(live, { ...live, data: { a: '1', b: '1' } }, 'w', 2);
    live = updateManagedFields(live, { ...live, data: { a: '1', b: '1', c: '1' } }, { manager: 'w', apiVersion: 'v1', time: T(3), subresource: 'status' }, S.configMap).object;
    same(mf(live), [
      entry('w', 'Update', T(2), { 'f:data': { 'f:a': {}, 'f:b': {}, '.': {} } }),
      entry('w', 'Update', T(3), { 'f:data': { 'f:c': {} } }, 'v1', 'status'),
    ]);
  });

  test('subresource writes ignore managedFields in the request; reset fields are never owned', () => {
    const live = applyD(undefined, { replicas: 1 }, 'kubectl', 1);
    const next = { ...live, metadata: { name: 'd', managedFields: [{}] }, spec: { replicas: 1 }, status: { replicas: 1 } };
    const out = updateManagedFields(live, next, { manager: 'ctrl', apiVersion: 'apps/v1', time: T(2), subresource: 'status', resetFields: [['spec'], ['metadata']] }, S.deployment);
    same(out.managedFields, [
      entry('kubectl', 'Apply', T(1), { 'f:spec': { 'f:replicas': {} } }, 'apps/v1'),
      entry('ctrl', 'Update', T(2), { 'f:status': { 'f:replicas': {}, '.': {} } }, 'apps/v1', 'status'),
    ]);
    const main = updateManagedFields(live, { ...live, spec: { replicas: 2 }, status: { replicas: 5 } }, { manager: 'u', apiVersion: 'apps/v1', time: T(3), resetFields: [['status']] }, S.deployment);
    same(main.managedFields, [entry('u', 'Update', T(3), { 'f:spec': { 'f:replicas': {} } }, 'apps/v1')]);
  });

  test('more than ten update managers: the oldest merge into ancient-changes', () => {
    let live = cm({});
    for (let i = 0; i < 12; i++) live = updateCM(live, { ...live, data: { ...(live.data as Obj), [`k${i}`]: 'v' } }, `w${String(i).padStart(2, '0')}`, i);
    const entries = mf(live) as ManagedFieldsEntry[];
    assert.equal(entries.length, 10);
    same(entries[0], entry('ancient-changes', 'Update', T(2), { 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } }));
    assert.deepEqual(entries.slice(1).map((e) => e.manager), ['w03', 'w04', 'w05', 'w06', 'w07', 'w08', 'w09', 'w10', 'w11']);
  });

  test('writes that change nothing keep the stored managedFields (no timestamp churn)', () => {
    const live = applyCM(undefined, cm({ k: '1' }), 'm1', 1);
    assert.equal(mf(applyCM(live, cm({ k: '1' }), 'm1', 9)), mf(live));
    assert.equal(mf(updateCM(live, { ...live }, 'editor', 9)), mf(live));
    same(mf(applyCM(live, cm({ k: '2' }), 'm1', 9)), [entry('m1', 'Apply', T(9), { 'f:data': { 'f:k': {} } })]);
  });

  test('managers from user agents, field manager checks', () => {
    assert.equal(managerFromUserAgent('kubectl/v1.27.3 (linux/amd64) kubernetes/25b4e43'), 'kubectl');
    assert.equal(managerFromUserAgent('kube-controller-manager/v1.27.3 (linux/amd64)/system:serviceaccount'), 'kube-controller-manager');
    assert.equal(managerFromUserAgent('a\u0000b'), 'ab');
    assert.equal(managerFromUserAgent('x'.repeat(200)).length, 128);
    assert.deepEqual(fieldManagerProblems('ok-name'), []);
    assert.equal(fieldManagerProblems('x'.repeat(129)).length, 1);
    assert.equal(fieldManagerProblems('bad\tname').length, 1);
  });

  test('refused applies', () => {
    const refuse = (config: Obj, code: number, message: RegExp, kind?: string) => assert.throws(
      () => apply(undefined, config, { manager: 'm', apiVersion: 'v1', time: T(0), kind }, S.configMap),
      (e: unknown) => e instanceof ApplyError && e.code === code && message.test(e.message),
    );
    refuse(cm({ k: '1' }, { managedFields: [] }), 400, /^metadata\.managedFields must be nil$/);
    refuse({ ...cm(), apiVersion: 'v2' }, 400, /^invalid object type: \/v2, Kind=ConfigMap$/);
    refuse({ ...cm(), kind: 'Secret' }, 400, /^invalid object type: \/v1, Kind=Secret$/, 'ConfigMap');
    refuse({ ...cm(), metadata: { name: 'cm', finalizers: [{}] } }, 500, /^failed to create typed patch object/);
  });
});
