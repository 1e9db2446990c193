import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../../../api/types/core-v1.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('Service defaults without storage: types, session affinity, traffic policies', async () => {
  const svc = strategyOf('', 'services');
  const lb = await create<Service>(svc, { spec: { type: 'LoadBalancer', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 'web' }] } });
  assert.equal(lb.obj.spec?.externalTrafficPolicy, 'Cluster');
  assert.equal(lb.obj.spec?.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(lb.obj.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
  assert.equal(lb.obj.spec?.ports?.[0].targetPort, 'web');
  const local = await create(svc, { spec: { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] } });
  assert.deepEqual(local.causes, ['spec.externalTrafficPolicy: Invalid value: "Local": may only be set when `type` is \'NodePort\' or \'LoadBalancer\'']);
  const ext = await create<Service>(svc, { spec: { type: 'ExternalName' } });
  assert.deepEqual(ext.causes, ['spec.externalName: Required value']);
  assert.equal(ext.obj.spec?.internalTrafficPolicy, undefined);
});
