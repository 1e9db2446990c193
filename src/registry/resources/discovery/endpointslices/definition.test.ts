import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointSlice } from '../../../../api/types/discovery-v1.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('EndpointSlice ports are defaulted; every endpoint has an address', async () => {
  const es = await create<EndpointSlice>(strategyOf('discovery', 'endpointslices'), { addressType: 'IPv4', endpoints: [{ addresses: [] }], ports: [{ port: 80 }] });
  assert.deepEqual(es.obj.ports, [{ port: 80, protocol: 'TCP', name: '' }]);
  assert.deepEqual(es.causes, ['endpoints[0].addresses: Required value: must contain at least 1 address']);
});
