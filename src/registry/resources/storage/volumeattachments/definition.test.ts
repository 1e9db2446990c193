import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/meta.js';
import { ctx, strategyOf } from '../../testing/strategy.js';

test('a VolumeAttachment spec never changes', () => {
  const va: ApiObject = { metadata: { name: 'v' }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } };
  const moved = { ...va, spec: { ...(va.spec as object), nodeName: 'n2' } };
  assert.deepEqual(strategyOf('storage', 'volumeattachments').validateUpdate!(moved, va, ctx).map(c => c.field), ['spec']);
});
