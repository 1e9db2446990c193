import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkPolicy } from '../../../../api/types/networking-v1.js';
import { create, strategyOf, update } from '../../testing/strategy.js';

test('NetworkPolicy gets Egress among its types when it has egress rules', async () => {
  const { obj, causes } = await create<NetworkPolicy>(strategyOf('networking', 'networkpolicies'),
    { spec: { podSelector: {}, egress: [{ ports: [{ port: 53, protocol: 'UDP', endPort: 52 }] }] } });
  assert.deepEqual(obj.spec?.policyTypes, ['Ingress', 'Egress']);
  assert.deepEqual(causes, ['spec.egress[0].ports[0].endPort: Invalid value: 52: must be greater than or equal to `port`']);
});

test('NetworkPolicy peers: IP blocks are CIDRs with exceptions strictly inside, and stand alone', async () => {
  const np = strategyOf('networking', 'networkpolicies');
  const from = async (...peers: object[]) => (await create(np, { spec: { podSelector: {}, ingress: [{ from: peers }] } })).causes;
  assert.deepEqual(await from({ podSelector: {}, namespaceSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }), []);
  assert.deepEqual(await from(
    {}, { ipBlock: { cidr: '10.0.0.0/33' } }, { ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16', '10.0.0.0/8', 'nope'] } },
    { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} },
  ), [
    'spec.ingress[0].from[0]: Required value: must specify a peer',
    'spec.ingress[0].from[1].ipBlock.cidr: Invalid value: "10.0.0.0/33": not a valid CIDR',
    'spec.ingress[0].from[2].ipBlock.except[0]: Invalid value: "11.0.0.0/16": must be a strict subset of `cidr`',
    'spec.ingress[0].from[2].ipBlock.except[1]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
    'spec.ingress[0].from[2].ipBlock.except[2]: Invalid value: "nope": not a valid CIDR',
    'spec.ingress[0].from[3]: Forbidden: may not specify both ipBlock and another peer',
  ]);
});

test('NetworkPolicy status (alpha, its feature gate off) is dropped on writes and reads as {}, as the reference has it', async () => {
  const np = strategyOf('networking', 'networkpolicies');
  const conditions = [{ type: 'Enforced', status: 'True' as const, reason: 'R', message: 'm', lastTransitionTime: '2024-01-01T00:00:00Z' }];
  const { obj } = await create<NetworkPolicy>(np, { spec: { podSelector: {} }, status: { conditions } });
  assert.deepEqual(obj.status, {});
  let after: NetworkPolicy | undefined;
  assert.deepEqual(await update<NetworkPolicy>(np, obj, o => { o.status = { conditions }; after = o; }), []);
  assert.deepEqual(after!.status, {});
  // conditions stored before the gate went off stay
  assert.deepEqual(await update<NetworkPolicy>(np, { ...obj, status: { conditions } }, o => { o.status = {}; after = o; }), []);
  assert.deepEqual(after!.status, { conditions });
});
