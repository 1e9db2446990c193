import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Schema } from '../api/schema.js';
import { applyStrategicMergePatch as smp, applyStrategicMergePatchInSteps } from './strategic-merge.js';
import { PatchError } from './common.js';

// A small catalog with the reference's strategic-merge markers for Pods and Deployments.
const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const bool: Schema = { type: 'boolean' };
const obj = (properties: Record<string, Schema>, extra: Schema = {}): Schema => ({ type: 'object', properties, ...extra });
const stringMap: Schema = { type: 'object', additionalProperties: str };
const list = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
const mergeList = (key: string, items: Schema, strategy = 'merge'): Schema =>
  list(items, { 'x-kubernetes-patch-merge-key': key, 'x-kubernetes-patch-strategy': strategy });

const container = obj({
  name: str, image: str, args: list(str), command: list(str),
  ports: mergeList('containerPort', obj({ containerPort: int, protocol: str, name: str })),
  env: mergeList('name', obj({ name: str, value: str, valueFrom: obj({ fieldRef: obj({ fieldPath: str }) }) })),
  volumeMounts: mergeList('mountPath', obj({ name: str, mountPath: str, readOnly: bool })),
  resources: obj({ limits: stringMap, requests: stringMap }),
});
const podSpec = obj({
  containers: mergeList('name', container),
  initContainers: mergeList('name', container),
  volumes: mergeList('name', obj({
    name: str, emptyDir: obj({ medium: str }), configMap: obj({ name: str }), secret: obj({ secretName: str }),
  }), 'merge,retainKeys'),
  tolerations: list(obj({ key: str, operator: str, value: str, effect: str })),
  nodeSelector: stringMap,
  dnsPolicy: str,
});
const objectMeta = obj({
  name: str, namespace: str, labels: stringMap, annotations: stringMap,
  finalizers: list(str, { 'x-kubernetes-patch-strategy': 'merge' }),
  ownerReferences: mergeList('uid', obj({ apiVersion: str, kind: str, name: str, uid: str, controller: bool })),
});
const podSchema = obj({ apiVersion: str, kind: str, metadata: objectMeta, spec: podSpec });
const deploymentSchema = obj({
  apiVersion: str, kind: str, metadata: objectMeta,
  spec: obj({
    replicas: int,
    selector: obj({ matchLabels: stringMap }),
    template: obj({ metadata: objectMeta, spec: podSpec }),
    strategy: obj({ type: str, rollingUpdate: obj({ maxSurge: str, maxUnavailable: str }) }, { 'x-kubernetes-patch-strategy': 'retainKeys' }),
  }),
});

type Json = Record<string, any>;

const pod = (): Json => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, finalizers: ['example.com/a', 'example.com/b'] },
  spec: {
    containers: [
      {
        name: 'app', image: 'nginx:1.24',
        ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }],
        env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
      { name: 'log', image: 'busybox', args: ['tail', '-f'] },
    ],
    volumes: [{ name: 'data', emptyDir: {} }, { name: 'cache', emptyDir: { medium: 'Memory' } }],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'team-a', effect: 'NoSchedule' }],
    nodeSelector: { disk: 'ssd' },
    dnsPolicy: 'ClusterFirst',
  },
});

const names = (l: Json[]) => l.map(e => e.name);

function fails(doc: unknown, patch: unknown, schema: Schema | undefined, reason: PatchError['reason'], message: RegExp) {
  assert.throws(() => smp(doc, patch, schema), (e: unknown) => {
    assert.ok(e instanceof PatchError, `expected a PatchError, got ${String(e)}`);
    assert.equal(e.reason, reason);
    assert.match(e.message, message);
    return true;
  });
}

describe('strategic merge patch: maps and scalars', () => {
  test('maps merge recursively, null deletes, scalars replace', () => {
    const out = smp(pod(), {
      metadata: { labels: { tier: 'frontend', app: null }, annotations: { note: 'x' } },
      spec: { dnsPolicy: 'Default', nodeSelector: null },
    }, podSchema) as Json;
    assert.deepEqual(out.metadata.labels, { tier: 'frontend' });
    assert.deepEqual(out.metadata.annotations, { note: 'x' });
    assert.equal(out.spec.dnsPolicy, 'Default');
    assert.equal('nodeSelector' in out.spec, false);
    assert.equal(out.spec.containers.length, 2);
  });

  test('nulls inside a new value are dropped', () => {
    const out = smp({ spec: {} }, { spec: { nodeSelector: { a: 'b', c: null } } }, podSchema.properties!.spec) as Json;
    assert.deepEqual(out, { spec: { nodeSelector: { a: 'b' } } });
  });

  test('a value of another type replaces the old one', () => {
    assert.deepEqual(smp({ a: { b: 1 } }, { a: [1] }, undefined), { a: [1] });
    assert.deepEqual(smp({ a: [1] }, { a: { b: null, c: 1 } }, undefined), { a: { c: 1 } });
    assert.deepEqual(smp({ a: 'x' }, { a: { b: 1 } }, undefined), { a: { b: 1 } });
  });

  test('without a schema, maps merge and lists are replaced', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'app', image: 'nginx:1.25' }] }, metadata: { labels: { x: 'y' } } }, undefined) as Json;
    assert.deepEqual(out.spec.containers, [{ name: 'app', image: 'nginx:1.25' }]);
    assert.deepEqual(out.metadata.labels, { app: 'web', x: 'y' });
  });

  test('a map field with strategy replace is replaced', () => {
    const schema = obj({ sel: { ...stringMap, 'x-kubernetes-patch-strategy': 'replace' } });
    assert.deepEqual(smp({ sel: { a: '1', b: '2' } }, { sel: { c: '3' } }, schema), { sel: { c: '3' } });
  });

  test('$patch: replace in a map replaces the map with the rest of the patch', () => {
    const out = smp(pod(), { metadata: { labels: { $patch: 'replace', only: 'this' } } }, podSchema) as Json;
    assert.deepEqual(out.metadata.labels, { only: 'this' });
    assert.equal(out.metadata.name, 'web');
  });

  test('$patch: delete in a map empties it, as the reference does', () => {
    const out = smp(pod(), { spec: { nodeSelector: { $patch: 'delete' } } }, podSchema) as Json;
    assert.deepEqual(out.spec.nodeSelector, {});
  });

  test('$patch: merge in a map is the default behaviour', () => {
    const out = smp(pod(), { spec: { nodeSelector: { $patch: 'merge', zone: 'a' } } }, podSchema) as Json;
    assert.deepEqual(out.spec.nodeSelector, { disk: 'ssd', zone: 'a' });
  });

  test('a declared property whose name starts with $ is data', () => {
    const schema = obj({ schema: obj({ $ref: str, type: str }) });
    assert.deepEqual(smp({ schema: { type: 'object' } }, { schema: { $ref: '#/x' } }, schema), { schema: { type: 'object', $ref: '#/x' } });
  });
});

describe('strategic merge patch: merging lists', () => {
  test('containers merge by name; ports by containerPort; env by name; volumeMounts by mountPath', () => {
    const out = smp(pod(), {
      spec: {
        containers: [{
          name: 'app', image: 'nginx:1.25',
          ports: [{ containerPort: 80, name: 'http' }],
          env: [{ name: 'B', value: 'two' }],
          volumeMounts: [{ mountPath: '/data', readOnly: true }],
        }],
      },
    }, podSchema) as Json;
    const [app, log] = out.spec.containers;
    assert.deepEqual(names(out.spec.containers), ['app', 'log']);
    assert.equal(app.image, 'nginx:1.25');
    assert.deepEqual(app.ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 53, protocol: 'UDP' }]);
    assert.deepEqual(app.env, [{ name: 'A', value: '1' }, { name: 'B', value: 'two' }]);
    assert.deepEqual(app.volumeMounts, [{ name: 'data', mountPath: '/data', readOnly: true }]);
    assert.deepEqual(log, pod().spec.containers[1]);
  });

  test('a new element goes before the server elements (kubectl patch adding a container)', () => {
    // the reference puts patch elements the server does not have first; its own
    // "update API objects in place" walkthrough shows the added container listed first
    const out = smp(pod(), { spec: { containers: [{ name: 'sidecar', image: 'envoy' }] } }, podSchema) as Json;
    assert.deepEqual(names(out.spec.containers), ['sidecar', 'app', 'log']);
    assert.deepEqual(out.spec.containers[0], { name: 'sidecar', image: 'envoy' });
  });

  test('elements named in the patch keep the patch order, interleaved with the server order', () => {
    const doc = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
    const out = smp(doc, { spec: { containers: [{ name: 'c', image: 'x' }, { name: 'new' }, { name: 'a', image: 'y' }] } }, podSchema) as Json;
    // c, new, a keep the patch's order; b, only on the server, goes first since it precedes c there
    assert.deepEqual(names(out.spec.containers), ['b', 'c', 'new', 'a']);
  });

  test('$patch: delete removes the element with that merge key', () => {
    const out = smp(pod(), {
      spec: { containers: [{ name: 'log', $patch: 'delete' }, { name: 'app', env: [{ name: 'A', $patch: 'delete' }] }] },
    }, podSchema) as Json;
    assert.deepEqual(names(out.spec.containers), ['app']);
    assert.deepEqual(out.spec.containers[0].env, [{ name: 'B', value: '2' }]);
  });

  test('deleting an element that is not there is harmless, and directives never reach the result', () => {
    const out = smp({ spec: {} }, { spec: { containers: [{ name: 'gone', $patch: 'delete' }, { name: 'x', env: [{ name: 'E', value: 'v', extra: null }] }] } }, podSchema) as Json;
    assert.deepEqual(out.spec.containers, [{ name: 'x', env: [{ name: 'E', value: 'v' }] }]);
  });

  test('$patch: replace as a list element replaces the list', () => {
    const out = smp(pod(), { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } }, podSchema) as Json;
    assert.deepEqual(out.spec.containers, [{ name: 'only', image: 'x' }]);
  });

  test('ports merge by containerPort alone, as in the reference', () => {
    const out = smp(pod(), { spec: { containers: [{ name: 'app', ports: [{ containerPort: 53, protocol: 'TCP' }] }] } }, podSchema) as Json;
    assert.deepEqual(out.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'TCP' }]);
  });

  test('tolerations and args have no merge strategy and are replaced', () => {
    const out = smp(pod(), {
      spec: {
        tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'log', args: ['cat'] }],
      },
    }, podSchema) as Json;
    assert.deepEqual(out.spec.tolerations, [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    assert.deepEqual(out.spec.containers[1].args, ['cat']);
  });

  test('a merging list with no elements on either side stays empty', () => {
    assert.deepEqual(smp({ spec: { containers: [] } }, { spec: { containers: [] } }, podSchema),
      { spec: { containers: [] } });
  });

  test('ownerReferences merge by uid', () => {
    const doc = { metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }] } };
    const out = smp(doc, {
      metadata: { ownerReferences: [{ uid: 'u1', controller: true }, { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' }] },
    }, podSchema) as Json;
    assert.deepEqual(out.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' },
    ]);
  });
});

describe('strategic merge patch: primitive lists', () => {
  test('finalizers are unioned without duplicates', () => {
    const out = smp(pod(), { metadata: { finalizers: ['example.com/b', 'example.com/c'] } }, podSchema) as Json;
    assert.deepEqual(out.metadata.finalizers, ['example.com/a', 'example.com/b', 'example.com/c']);
  });

  test('union order follows the reference: patch order for patch values, interleaved by server order', () => {
    const out = smp({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c', 'a'] } }, podSchema) as Json;
    assert.deepEqual(out.metadata.finalizers, ['c', 'a', 'b']);
  });

  test('$deleteFromPrimitiveList removes values', () => {
    const out = smp(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a', 'not-there'] } }, podSchema) as Json;
    assert.deepEqual(out.metadata.finalizers, ['example.com/b']);
  });

  test('kubectl apply replacing one finalizer: order, additions and deletions together', () => {
    const out = smp({ metadata: { finalizers: ['a', 'b'] } }, {
      metadata: { '$setElementOrder/finalizers': ['a', 'c'], '$deleteFromPrimitiveList/finalizers': ['b'], finalizers: ['c'] },
    }, podSchema) as Json;
    assert.deepEqual(out.metadata, { finalizers: ['a', 'c'] });
  });

  test('$setElementOrder reorders a primitive list', () => {
    const out = smp({ metadata: { finalizers: ['a', 'b', 'c'] } }, { metadata: { '$setElementOrder/finalizers': ['c', 'b', 'a'] } }, podSchema) as Json;
    assert.deepEqual(out.metadata.finalizers, ['c', 'b', 'a']);
  });
});

describe('strategic merge patch: kubectl client-side apply', () => {
  const deployment = (): Json => ({
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: {
      name: 'web', namespace: 'default', labels: { app: 'web' },
      annotations: { 'example.com/revision': '1', 'example.com/last-applied-configuration': '{"old":true}' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web', image: 'nginx:1.24',
              env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
              ports: [{ containerPort: 80, protocol: 'TCP' }],
            },
            { name: 'istio-proxy', image: 'proxyv2' }, // injected by the server, not in the applied config
          ],
          volumes: [{ name: 'data', emptyDir: {} }, { name: 'cache', emptyDir: {} }],
          dnsPolicy: 'ClusterFirst',
        },
      },
    },
  });

  test('image change, env removed and added, port added, last-applied updated', () => {
    const patch = {
      metadata: { annotations: { 'example.com/last-applied-configuration': '{"new":true}' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            containers: [{
              '$setElementOrder/env': [{ name: 'A' }, { name: 'C' }],
              '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 443 }],
              env: [{ name: 'C', value: '3' }, { $patch: 'delete', name: 'B' }],
              image: 'nginx:1.25',
              name: 'web',
              ports: [{ containerPort: 443 }],
            }],
          },
        },
      },
    };
    const out = smp(deployment(), patch, deploymentSchema) as Json;
    assert.deepEqual(out.metadata.annotations, {
      'example.com/revision': '1', 'example.com/last-applied-configuration': '{"new":true}',
    });
    const containers = out.spec.template.spec.containers;
    assert.deepEqual(names(containers), ['web', 'istio-proxy']);
    assert.deepEqual(containers[0], {
      name: 'web', image: 'nginx:1.25',
      env: [{ name: 'A', value: '1' }, { name: 'C', value: '3' }],
      ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }],
    });
    assert.equal(out.spec.template.spec.dnsPolicy, 'ClusterFirst');
  });

  test('$setElementOrder reorders containers; server-only elements are interleaved by server order', () => {
    const doc = deployment(); // containers on the server: web, istio-proxy, worker
    doc.spec.template.spec.containers.push({ name: 'worker', image: 'w' });
    const out = smp(doc, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'worker' }, { name: 'web' }] } } } },
      deploymentSchema) as Json;
    // worker, web as ordered; istio-proxy (server only) goes first because it precedes worker on the server
    assert.deepEqual(names(out.spec.template.spec.containers), ['istio-proxy', 'worker', 'web']);
    const kept = smp(doc, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }, { name: 'worker' }] } } } },
      deploymentSchema) as Json;
    assert.deepEqual(names(kept.spec.template.spec.containers), ['web', 'istio-proxy', 'worker']);
  });

  test('switching a volume source with $retainKeys drops the old source', () => {
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/volumes': [{ name: 'data' }, { name: 'cache' }],
            volumes: [{ $retainKeys: ['configMap', 'name'], configMap: { name: 'cfg' }, emptyDir: null, name: 'data' }],
          },
        },
      },
    };
    const out = smp(deployment(), patch, deploymentSchema) as Json;
    assert.deepEqual(out.spec.template.spec.volumes, [{ name: 'data', configMap: { name: 'cfg' } }, { name: 'cache', emptyDir: {} }]);
  });

  test('switching the rollout strategy with $retainKeys drops rollingUpdate', () => {
    const out = smp(deployment(), { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
      deploymentSchema) as Json;
    assert.deepEqual(out.spec.strategy, { type: 'Recreate' });
  });

  test('a field removed from the config is sent as null and deleted', () => {
    const out = smp(deployment(), { spec: { template: { spec: { dnsPolicy: null } } } }, deploymentSchema) as Json;
    assert.equal('dnsPolicy' in out.spec.template.spec, false);
  });
});

describe('strategic merge patch: inputs stay untouched', () => {
  test('never mutates the document or the patch; the result shares nothing with them', () => {
    const doc = pod();
    const patch = {
      metadata: { labels: { app: null, x: 'y' }, '$deleteFromPrimitiveList/finalizers': ['example.com/a'] },
      spec: {
        $retainKeys: ['containers', 'volumes', 'tolerations', 'nodeSelector', 'dnsPolicy'],
        containers: [{ name: 'app', env: [{ name: 'A', $patch: 'delete' }] }, { name: 'new', ports: [{ containerPort: 1 }] }],
        volumes: [{ $patch: 'replace' }, { name: 'v' }],
      },
    };
    const docBefore = structuredClone(doc), patchBefore = structuredClone(patch);
    const out = smp(doc, patch, podSchema) as Json;
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
    out.spec.containers.find((c: Json) => c.name === 'new').ports[0].containerPort = 2;
    out.spec.containers.find((c: Json) => c.name === 'log').args.push('x');
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
  });

  test('__proto__ is an ordinary key', () => {
    const patch = JSON.parse('{"metadata":{"annotations":{"__proto__":{"polluted":true}}}}');
    const out = smp(pod(), patch, podSchema) as Json;
    assert.equal(({} as Json).polluted, undefined);
    assert.equal(JSON.stringify(out.metadata.annotations), '{"__proto__":{"polluted":true}}');
  });
});

describe('strategic merge patch: errors', () => {
  test('the patch must be an object', () => {
    for (const bad of [[], 'x', null, 1]) fails(pod(), bad, podSchema, 'BadRequest', /must be a JSON object/);
  });

  test('unknown $patch values and directives', () => {
    fails(pod(), { spec: { $patch: 'explode' } }, podSchema, 'BadRequest', /unknown patch type: "explode" in map at spec/);
    fails(pod(), { spec: { containers: [{ name: 'app', $patch: 'explode' }] } }, podSchema, 'BadRequest', /unknown patch type: "explode"/);
    fails(pod(), { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }, podSchema, 'BadRequest',
      /merging lists cannot yet be specified in the patch/);
    fails(pod(), { spec: { $frobnicate: 1 } }, podSchema, 'BadRequest', /unknown directive "\$frobnicate" at spec/);
    fails(pod(), { $frobnicate: 1 }, undefined, 'BadRequest', /unknown directive/);
  });

  test('a merging list element must carry the merge key', () => {
    fails(pod(), { spec: { containers: [{ image: 'x' }] } }, podSchema, 'BadRequest', /does not contain declared merge key: name/);
    fails(pod(), { spec: { containers: [{ $patch: 'delete', image: 'x' }] } }, podSchema, 'BadRequest', /does not contain declared merge key: name/);
    fails(pod(), { spec: { '$setElementOrder/containers': ['app'] } }, podSchema, 'BadRequest', /does not contain declared merge key/);
  });

  test('a merge list of maps without a merge key', () => {
    const schema = obj({ items: list(obj({ a: str }), { 'x-kubernetes-patch-strategy': 'merge' }) });
    fails({ items: [{ a: '1' }] }, { items: [{ a: '2' }] }, schema, 'BadRequest', /cannot merge lists without merge key at items/);
  });

  test('lists of lists cannot merge (Invalid), mixed element kinds are refused', () => {
    const schema = obj({ l: list(list(str), { 'x-kubernetes-patch-strategy': 'merge' }) });
    fails({ l: [['a']] }, { l: [['b']] }, schema, 'Invalid', /lists of lists are not supported at l/);
    fails(pod(), { metadata: { finalizers: [{ name: 'x' }] } }, podSchema, 'BadRequest', /all maps or all primitives/);
  });

  test('$retainKeys must list every member the patch sets', () => {
    fails(pod(), { spec: { $retainKeys: ['containers'], dnsPolicy: 'x' } }, podSchema, 'BadRequest',
      /invalid patch format of retainKeys at spec: "dnsPolicy"/);
    fails(pod(), { spec: { $retainKeys: 'containers' } }, podSchema, 'BadRequest', /invalid patch format of retainKeys/);
  });

  test('$setElementOrder must agree with the patch list', () => {
    fails(pod(), { spec: { '$setElementOrder/containers': [{ name: 'log' }, { name: 'app' }], containers: [{ name: 'app' }, { name: 'log' }] } },
      podSchema, 'BadRequest', /doesn't match \$setElementOrder list/);
    fails(pod(), { spec: { '$setElementOrder/containers': [{ name: 'app' }], containers: [{ name: 'x' }] } },
      podSchema, 'BadRequest', /doesn't match/);
    fails(pod(), { spec: { '$setElementOrder/containers': { name: 'app' } } }, podSchema, 'BadRequest', /expected a list/);
  });

  test('$deleteFromPrimitiveList must be a list', () => {
    fails(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, podSchema, 'BadRequest', /expected a list/);
  });
});

describe('strategic merge patch: large lists', () => {
  // twenty containers of 800 variables each, every one of them patched: 16,000 elements merged by key
  const env = (c: number, tag: string) => Array.from({ length: 800 }, (_, i) => ({ name: `VAR_${c}_${i}`, value: `${tag}${i}` }));
  const containers = (tag: string) => Array.from({ length: 20 }, (_, c) => ({ name: `c${c}`, image: 'busybox', env: env(c, tag) }));
  const doc = () => ({ spec: { template: { spec: { containers: containers('a') } } } });
  const patch = { spec: { template: { spec: { containers: containers('b').map(c => ({ name: c.name, env: c.env })) } } } };

  /** the patch run step by step: the whole time, each piece's, and the result */
  function pieces() {
    const steps = applyStrategicMergePatchInSteps(doc(), patch, deploymentSchema);
    const times: number[] = [];
    let t = performance.now();
    const started = t;
    for (;;) {
      const r = steps.next();
      const now = performance.now();
      times.push(now - t);
      t = now;
      if (r.done) return { ms: now - started, times, value: r.value as ReturnType<typeof doc> };
    }
  }

  test('pauses every few dozen elements, with the same result as in one piece', () => {
    const { times, value } = pieces();
    // a pause per 64 elements of each list: hundreds of pieces, where the walk in one piece has one
    assert.ok(times.length > 16_000 / 64, `${times.length} pieces`);
    assert.deepEqual(value, smp(doc(), patch, deploymentSchema));
    assert.equal(value.spec.template.spec.containers[19]!.env[799]!.value, 'b799');
  });

  test('no piece takes more than a small part of the whole', () => {
    // the best of three runs (a busy machine may stop this process in any piece); a piece in the middle of a list
    // is a few milliseconds of a whole near a hundred, where the patch in one piece takes all of it
    const runs = [pieces(), pieces(), pieces()].map(r => ({ ms: r.ms, longest: Math.max(...r.times) }));
    const best = runs.reduce((a, b) => (b.longest / b.ms < a.longest / a.ms ? b : a));
    assert.ok(best.longest < best.ms / 4, runs.map(r => `longest ${r.longest.toFixed(1)} ms of ${r.ms.toFixed(1)} ms`).join('; '));
  });
});
