// Property: after any sequence of applies and updates by several managers, every field of the live
// object has an owner, and nobody owns a field the object does not have.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Schema } from '../api/schema.js';
import { pathString, type Path } from './field-path.js';
import { difference, has, paths, setOf, union, type FieldSet } from './field-set.js';
import { apply, ConflictError, decodeManagedFields, updateManagedFields } from './managed-fields.js';
import { merge } from './merge.js';
import * as S from './test-schemas.js';
import { entrySchema, isObject, listElement, shapeOf, toFieldSet, type Obj } from './typed.js';

/** small deterministic generator (mulberry32) so failures replay */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const chance = (p: number) => next() < p;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const some = <T>(xs: readonly T[]): T[] => xs.filter(() => chance(0.5));
  return { chance, pick, some };
}
type Random = ReturnType<typeof random>;

const nonEmpty = <T extends object>(o: T): T | undefined => (Object.keys(o).length ? o : undefined);
const strMap = (r: Random, keys: string[]) => nonEmpty(Object.fromEntries(r.some(keys).map((k) => [k, r.pick(['1', '2'])])));

function deploymentConfig(r: Random): Obj {
  const containers = r.some(['c1', 'c2', 'c3']).map((name) => {
    const c: Obj = { name };
    if (r.chance(0.6)) c.image = r.pick(['i1', 'i2']);
    if (r.chance(0.3)) c.args = r.some(['-a', '-b', '-c']);
    const env = r.some(['E1', 'E2']).map((n) => ({ name: n, value: r.pick(['x', 'y']) }));
    if (env.length) c.env = env;
    const ports = r.some([80, 81]).map((p) => (r.chance(0.5) ? { containerPort: p } : { containerPort: p, protocol: 'TCP', name: r.pick(['http', 'web']) }));
    if (ports.length) c.ports = ports;
    return c;
  });
  const spec: Obj = {};
  if (r.chance(0.4)) spec.replicas = r.pick([1, 2, 3]);
  if (r.chance(0.3)) spec.selector = { matchLabels: { app: r.pick(['x', 'y']) } };
  const podSpec: Obj = {};
  if (containers.length) podSpec.containers = containers;
  const ns = strMap(r, ['zone', 'disk']);
  if (ns && r.chance(0.4)) podSpec.nodeSelector = ns;
  if (nonEmpty(podSpec)) spec.template = { spec: podSpec };
  const metadata: Obj = { name: 'd' };
  const labels = strMap(r, ['a', 'b', 'c']);
  if (labels) metadata.labels = labels;
  const finalizers = r.some(['f1', 'f2', 'f3']);
  if (finalizers.length) metadata.finalizers = finalizers;
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata, ...(nonEmpty(spec) ? { spec } : {}) };
}

function customConfig(r: Random): Obj {
  const spec: Obj = {};
  const a = strMap(r, ['b', 'c', 'd']);
  if (a) spec.a = a;
  if (r.chance(0.5)) spec.list = r.some([1, 2, 3]);
  if (r.chance(0.5)) spec.s = r.pick(['p', 'q']);
  return { apiVersion: 'example.test/v1', kind: 'Thing', metadata: { name: 't', ...(r.chance(0.3) ? { labels: { l: r.pick(['1', '2']) } } : {}) }, ...(nonEmpty(spec) ? { spec } : {}) };
}

/** the object with one random field removed (and containers it empties removed with it) */
function withoutRandomField(r: Random, o: Obj, schema: Schema): Obj {
  const isKeyField = (p: Path) => p.length > 1 && p[p.length - 2].startsWith('k:') && p[p.length - 1].slice(2) in JSON.parse(p[p.length - 2].slice(2));
  const leaves = paths(toFieldSet(o, schema)).filter((p) => (p[0] !== 'f:metadata' || p[1] === 'f:labels' || p[1] === 'f:finalizers') && !isKeyField(p));
  if (leaves.length === 0) return o;
  const target = r.pick(leaves);
  const drop = (v: unknown, s: Schema | undefined, rest: Path): unknown => {
    const [pe, ...more] = rest;
    const shape = shapeOf(s, v);
    if (shape.kind === 'map' && isObject(v)) {
      const key = pe.slice(2);
      const out = { ...v };
      const child = more.length ? drop(v[key], entrySchema(shape, key), more) : undefined;
      if (child === undefined) delete out[key];
      else out[key] = child;
      return Object.keys(out).length ? out : undefined;
    }
    if (shape.kind === 'list' && Array.isArray(v)) {
      const out = v.flatMap((item, i) => {
        if (listElement(shape, item, i) !== pe) return [item];
        const child = more.length ? drop(item, shape.items, more) : undefined;
        return child === undefined ? [] : [child];
      });
      return out.length ? out : undefined;
    }
    return v;
  };
  return (drop(o, schema, target) as Obj | undefined) ?? {};
}

const system = setOf(['f:apiVersion'], ['f:kind'], ['f:metadata', 'f:name'], ['f:metadata', 'f:managedFields']);

function exists(v: unknown, schema: Schema | undefined, path: Path): boolean {
  if (path.length === 0) return true;
  const [pe, ...rest] = path;
  const shape = shapeOf(schema, v);
  if (shape.kind === 'map' && isObject(v)) return pe.startsWith('f:') && v[pe.slice(2)] !== undefined && exists(v[pe.slice(2)], entrySchema(shape, pe.slice(2)), rest);
  if (shape.kind === 'list' && Array.isArray(v)) {
    const i = v.findIndex((item, j) => listElement(shape, item, j) === pe);
    return i >= 0 && exists(v[i], shape.items, rest);
  }
  return false;
}

function checkOwnership(o: Obj, schema: Schema, history: string[]) {
  const owned = [...decodeManagedFields((o.metadata as Obj).managedFields).values()].reduce<FieldSet>((u, x) => union(u, x.set), setOf());
  const present = difference(toFieldSet(o, schema), system);
  const context = () => `${history.join('\n')}\nobject: ${JSON.stringify(o)}`;
  const checkLeaves = (node: FieldSet, prefix: Path) => {
    for (const pe of node.members) if (!node.children.has(pe) && !has(owned, [...prefix, pe])) assert.fail(`unowned ${pathString([...prefix, pe])}\n${context()}`);
    for (const [pe, child] of node.children) checkLeaves(child, [...prefix, pe]);
  };
  checkLeaves(present, []);
  for (const p of paths(owned)) if (!exists(o, schema, p)) assert.fail(`owned but absent ${pathString(p)}\n${context()}`);
}

function run(seed: number, schema: Schema, apiVersion: string, config: (r: Random) => Obj) {
  const r = random(seed);
  const managers = ['m0', 'm1', 'm2', 'm3'];
  let live: Obj | undefined;
  const history: string[] = [];
  for (let step = 0; step < 14; step++) {
    const manager = r.pick(managers);
    const time = new Date(Date.UTC(2023, 0, 1, 0, 0, step));
    if (!live || r.chance(0.6)) {
      const cfg = config(r);
      const force = r.chance(0.4);
      history.push(`apply ${manager}${force ? ' force' : ''} ${JSON.stringify(cfg)}`);
      try {
        live = apply(live, cfg, { manager, apiVersion, time, force }, schema).object;
      } catch (e) {
        if (!(e instanceof ConflictError)) throw e;
        history.push('  (conflict)');
        continue;
      }
    } else {
      let next = merge(live, config(r), schema) as Obj;
      if (r.chance(0.5)) next = withoutRandomField(r, next, schema);
      next = { ...next, apiVersion, metadata: { ...(next.metadata as Obj), name: (live.metadata as Obj).name, managedFields: (live.metadata as Obj).managedFields } };
      history.push(`update ${manager} ${JSON.stringify(next)}`);
      live = updateManagedFields(live, next, { manager, apiVersion, time }, schema).object;
    }
    checkOwnership(live, schema, history);
  }
}

test('random applies and updates keep every field owned and every owned field present', () => {
  for (let seed = 1; seed <= 150; seed++) {
    run(seed, S.deployment, 'apps/v1', deploymentConfig);
    run(seed, S.unstructuredResource, 'example.test/v1', customConfig);
  }
});

