// Pods as the agent keeps them: managed fields dropped, the spec's values unchanged by the sharing of their strings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactPod } from './objects.js';

test('a compacted pod has no managed fields and the same spec', () => {
  const text = JSON.stringify({
    metadata: { name: 'p', namespace: 'default', uid: 'u', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }] },
    spec: {
      containers: [{ name: 'c', image: 'registry.example/team/image:1.2.3', args: ['--a-flag-long-enough', 'x'], volumeMounts: [{ name: 'v', mountPath: '/var/run/secrets/serviceaccount' }] }],
      tolerations: [{ key: 'node.example/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      nodeName: 'n', hostNetwork: false, priority: 0, long: 'y'.repeat(300),
    },
  });
  const a = compactPod(JSON.parse(text));
  const b = compactPod(JSON.parse(text));
  const { managedFields: _m, ...meta } = JSON.parse(text).metadata;
  assert.deepEqual(a, { ...JSON.parse(text), metadata: meta });
  assert.deepEqual(b, a);
});
