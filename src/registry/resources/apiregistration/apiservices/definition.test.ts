import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { APIService } from '../../../../api/types/apiregistration-v1.js';
import { create, strategyOf } from '../../testing/strategy.js';

test('a local APIService is available at once; a service port defaults to 443', async () => {
  const apiServices = strategyOf('apiregistration', 'apiservices');
  const spec = { group: 'example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 };
  const local = await create<APIService>(apiServices, { metadata: { name: 'v1.example.com' }, spec });
  assert.deepEqual(local.obj.status?.conditions?.map(c => [c.type, c.status, c.reason]), [['Available', 'True', 'Local']]);
  const remote = await create<APIService>(apiServices, { metadata: { name: 'v1.example.com' }, spec: { ...spec, service: { namespace: 'ns', name: 's' } } });
  assert.deepEqual([remote.obj.spec?.service?.port, remote.obj.status], [443, {}]);
  assert.deepEqual(remote.causes, []);
});
