// Placing endpoints in slices: the ones already placed stay where they are, new ones fill slices with room
// before a new slice is made, emptied slices go, and a Service with no endpoints keeps one empty slice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { planSlices, podGroups } from './endpointslice.js';
import type { ControllerContext } from './context.js';
import type { EndpointSlice, Pod, Service } from './types.js';

const ctx = { names: naming() } as ControllerContext;
const service: Service = { metadata: { name: 's', namespace: 'n', uid: 'svc' }, spec: { selector: { a: 'b' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } };
const pod = (i: number, ready = true): Pod => ({
  metadata: { name: `p${i}`, namespace: 'n', uid: `u${i}`, labels: { a: 'b' } },
  spec: { containers: [{ name: 'c' }], nodeName: 'node' },
  status: { phase: 'Running', podIP: `10.0.0.${i}`, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const slice = (name: string, uids: number[]): EndpointSlice => ({
  metadata: { name, namespace: 'n' }, addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  endpoints: uids.map((i) => ({ addresses: [`10.0.0.${i}`], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node',
    targetRef: { kind: 'Pod', namespace: 'n', name: `p${i}`, uid: `u${i}` } })),
});
const plan = (pods: Pod[], existing: EndpointSlice[], max = 2) => planSlices(podGroups(service, pods, () => undefined, ctx).groups, existing, { labels: {} }, max, ctx, 'IPv4');
const uidsOf = (s: EndpointSlice) => s.endpoints.map((e) => e.targetRef?.uid);

test('endpoints stay in their slice; a change to one pod rewrites only its slice', () => {
  const existing = [slice('a', [1, 2]), slice('b', [3])];
  assert.deepEqual(plan([pod(1), pod(2), pod(3)], existing), { create: [], update: [], remove: [] }, 'nothing to do');
  const p = plan([pod(1), pod(2, false), pod(3)], existing);
  assert.deepEqual(p.update.map((s) => s.metadata.name), ['a']);
  assert.equal(p.update[0]!.endpoints[1]!.conditions!.ready, false);
});

test('new endpoints fill slices with room first; emptied slices go', () => {
  const p = plan([pod(1), pod(2), pod(3), pod(4), pod(5)], [slice('a', [1, 2]), slice('b', [3])]);
  assert.deepEqual(p.update.map((s) => [s.metadata.name, uidsOf(s)]), [['b', ['u3', 'u4']]]);
  assert.deepEqual(p.create.map(uidsOf), [['u5']]);
  const gone = plan([pod(3)], [slice('a', [1, 2]), slice('b', [3])]);
  assert.deepEqual(gone.remove.map((s) => s.metadata.name), ['a']);
});

test('no endpoints: one empty slice', () => {
  const p = plan([], [slice('a', [1])]);
  assert.deepEqual(p.remove.map((s) => s.metadata.name), ['a']);
  assert.equal(p.create.length, 1);
  assert.deepEqual(p.create[0]!.endpoints, []);
});

test('a pod whose named targetPort resolves to no port is placed in a slice with no ports, apart from the others', () => {
  const named: Service = { ...service, spec: { ...service.spec, ports: [{ name: 'http', port: 80, targetPort: 'web' }] } };
  const withPort = (i: number): Pod => ({ ...pod(i), spec: { ...pod(i).spec, containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 8080 }] }] } });
  const { groups } = podGroups(named, [withPort(1), pod(2)], () => undefined, ctx);
  const byPorts = new Map([...groups.values()].map((g) => [JSON.stringify(g.ports), [...g.endpoints.values()].map((e) => e.targetRef?.uid)]));
  assert.deepEqual(byPorts, new Map([['[{"name":"http","port":8080,"protocol":"TCP"}]', ['u1']], ['[]', ['u2']]]));
  const p = planSlices(groups, [], { labels: {} }, 10, ctx, 'IPv4');
  assert.deepEqual(p.create.map((s) => [s.ports, uidsOf(s)]), [[[{ name: 'http', port: 8080, protocol: 'TCP' }], ['u1']], [[], ['u2']]]);
});

test("a slice lists its ports in the Service's order, as the reference's do", () => {
  const two: Service = { ...service, spec: { ...service.spec, ports: [{ name: 'web', port: 80 }, { name: 'admin', port: 9000 }] } };
  const { groups } = podGroups(two, [pod(1)], () => undefined, ctx);
  const p = planSlices(groups, [], { labels: {} }, 10, ctx, 'IPv4');
  assert.deepEqual(p.create.map((s) => (s.ports ?? []).map((q) => q.name)), [['web', 'admin']]);
  // a slice stored with the same ports in another order fits the group: nothing to rewrite
  const stored = { ...p.create[0]!, metadata: { name: 'a', namespace: 'n' }, ports: [...(p.create[0]!.ports ?? [])].reverse() };
  assert.deepEqual(planSlices(groups, [stored], { labels: {} }, 10, ctx, 'IPv4'), { create: [], update: [], remove: [] });
});
