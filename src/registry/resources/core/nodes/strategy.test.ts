import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from '../../../../api/types/core-v1.js';
import { create, strategyOf, update } from '../../testing/strategy.js';
import { cidrFamily } from './strategy.js';

const nodes = () => strategyOf('', 'nodes');

test('CIDRs: the IP family, or none for what is not one', () => {
  assert.equal(cidrFamily('10.244.0.0/24'), 4);
  assert.equal(cidrFamily('fd00:10:244::/64'), 6);
  for (const bad of ['10.244.0.0', '10.244.0.0/33', '10.244.0.0/x', 'fd00::/129', 'a/8', '10.0.0.0/24/1', ''])
    assert.equal(cidrFamily(bad), undefined, bad);
});

test('a Node: podCIDR and podCIDRs agree, one CIDR per family, taints as the reference checks them', async () => {
  const alone = await create<Node>(nodes(), { spec: { podCIDR: '10.244.1.0/24' } });
  assert.deepEqual(alone.obj.spec?.podCIDRs, ['10.244.1.0/24']);
  assert.deepEqual(alone.causes, []);
  const dual = await create<Node>(nodes(), { spec: { podCIDR: 'ignored', podCIDRs: ['10.244.1.0/24', 'fd00::/64'] } });
  assert.equal(dual.obj.spec?.podCIDR, '10.244.1.0/24');
  assert.deepEqual(dual.causes, []);

  assert.deepEqual((await create(nodes(), { spec: { podCIDRs: ['10.244.1.0/24', '10.244.2.0/24'] } })).causes,
    ['spec.podCIDRs: Invalid value: ["10.244.1.0/24","10.244.2.0/24"]: may specify no more than one CIDR for each IP family']);
  assert.deepEqual((await create(nodes(), { spec: { podCIDR: '10.244.1.0' } })).causes,
    ['spec.podCIDRs[0]: Invalid value: "10.244.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);

  const { causes } = await create(nodes(), { spec: { taints: [
    { key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoExecute' }, { key: 'a', value: 'other', effect: 'NoSchedule' },
    { key: 'b', effect: 'Sometimes' }, { key: 'c' }, { key: 'bad key', value: '-x', effect: 'NoSchedule' },
  ] } });
  assert.deepEqual(causes, [
    'spec.taints[2]: Duplicate value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair',
    'spec.taints[3].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    'spec.taints[4].effect: Required value',
    ...causes.filter(c => c.startsWith('spec.taints[5].key: Invalid value: "bad key"')),
    ...causes.filter(c => c.startsWith('spec.taints[5].value: Invalid value: "-x"')),
  ]);
  assert.equal(causes.length, 5);
});

test('a Node update keeps its pod CIDRs and provider ID once set, and its status no duplicate address nor negative capacity', async () => {
  const { obj } = await create<Node>(nodes(), { spec: {} });
  assert.deepEqual(await update<Node>(nodes(), obj, n => { n.spec!.podCIDR = '10.244.1.0/24'; n.spec!.providerID = 'cloud://a'; }), []);
  const set = (await create<Node>(nodes(), { spec: { podCIDR: '10.244.1.0/24', providerID: 'cloud://a' } })).obj;
  assert.deepEqual(await update<Node>(nodes(), set, n => { n.spec!.podCIDRs = ['10.244.2.0/24']; n.spec!.providerID = 'cloud://b'; }), [
    'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
  ]);
  assert.deepEqual(await update<Node>(nodes(), set, n => {
    n.status = { capacity: { cpu: '-1', pods: '110' }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] };
  }), [
    'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
    'status.addresses[1]: Duplicate value: {"type":"InternalIP","address":"10.0.0.1"}',
  ]);
});
