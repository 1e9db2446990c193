import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../api/meta.js';
import { reconciledDefault } from './rbac-reconcile.js';

const annotation = 'rbac.authorization.k8s.io/autoupdate';
const role = (rules: unknown[], more: Record<string, unknown> = {}, annotations: Record<string, string> = { [annotation]: 'true' }) =>
  ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', annotations }, rules, ...more }) as unknown as ApiObject;
const get = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };

test('a role that lost rules of its default gets them back after its own; a covered one is left as it is', () => {
  const want = role([{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list'] }]);
  const next = reconciledDefault(role([get, { apiGroups: ['x'], resources: ['y'], verbs: ['*'] }]), want, annotation) as unknown as { rules: unknown[] };
  assert.deepEqual(next.rules.slice(0, 2), [get, { apiGroups: ['x'], resources: ['y'], verbs: ['*'] }]);
  assert.equal(next.rules.length, 5, 'the three missing verb/resource pairs');
  assert.equal(reconciledDefault(role([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]), want, annotation), undefined);
});

test('autoupdate "false" leaves the object alone; missing labels, annotations and selectors are added', () => {
  assert.equal(reconciledDefault(role([], {}, { [annotation]: 'false' }), role([get]), annotation), undefined);
  const selectors = [{ matchLabels: { a: 'b' } }, { matchLabels: { c: 'd' } }];
  const want = { ...role([], { aggregationRule: { clusterRoleSelectors: selectors } }), metadata: { name: 'r', labels: { l: '1' }, annotations: { [annotation]: 'true' } } } as ApiObject;
  const have = role([], { aggregationRule: { clusterRoleSelectors: [selectors[1], { matchLabels: { mine: 'x' } }] } }, {});
  const next = reconciledDefault(have, want, annotation) as any;
  assert.deepEqual(next.aggregationRule.clusterRoleSelectors, [selectors[1], { matchLabels: { mine: 'x' } }, selectors[0]]);
  assert.deepEqual([next.metadata.labels, next.metadata.annotations], [{ l: '1' }, { [annotation]: 'true' }]);
});

test('a binding gets back its default subjects; one naming another role is not changed', () => {
  const subject = (name: string) => ({ kind: 'Group', name, apiGroup: 'rbac.authorization.k8s.io' });
  const binding = (roleName: string, subjects: unknown[]) =>
    ({ kind: 'ClusterRoleBinding', metadata: { name: 'b', annotations: { [annotation]: 'true' } }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName }, subjects }) as unknown as ApiObject;
  const want = binding('r', [subject('g1'), subject('g2')]);
  assert.deepEqual((reconciledDefault(binding('r', [subject('mine'), subject('g2')]), want, annotation) as any).subjects, [subject('mine'), subject('g2'), subject('g1')]);
  assert.equal(reconciledDefault(binding('r', [subject('g2'), subject('g1')]), want, annotation), undefined);
  assert.equal(reconciledDefault(binding('other', []), want, annotation), undefined);
});
