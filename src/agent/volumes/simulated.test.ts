// The files a simulated container's mounts would show: content volumes at their mount paths, a subPath mount's part
// only, a projected volume's token from the TokenRequest API, and other kinds (emptyDir) left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../../api/naming.js';
import type { Client } from '../../client/rest-client.js';
import type { AgentPod } from '../objects.js';
import { simulatedMountFiles } from './index.js';
import type { VolumeContext } from './types.js';

test('content mounts at their paths, a subPath mount\'s part, no emptyDir', async () => {
  const client = {
    async request() { return { status: { token: 'the-token', expirationTimestamp: new Date(Date.now() + 3600_000).toISOString() } }; },
  } as unknown as Client;
  const ctx = { client, names: naming(), tokens: new Map(), now: Date.now, facts: () => ({ nodeName: 'n', hostIP: '10.0.0.5', podIPs: [] }), allocatable: {} } as unknown as VolumeContext;
  const pod: AgentPod = {
    metadata: { name: 'web', namespace: 'shop', uid: 'u1', labels: { app: 'web' } },
    spec: {
      containers: [{
        name: 'main', volumeMounts: [
          { name: 'access', mountPath: '/var/run/secrets/sa/' },
          { name: 'info', mountPath: '/etc/app-name', subPath: 'name' },
          { name: 'scratch', mountPath: '/tmp/scratch' },
        ],
      }],
      volumes: [
        { name: 'access', projected: { sources: [
          { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
        ] } },
        { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }, { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'scratch', emptyDir: {} },
      ],
    },
  };
  const files = await simulatedMountFiles(pod, pod.spec.containers[0]!, ctx);
  assert.deepEqual(files.map((f) => [f.path, f.data.toString(), f.mode]), [
    ['/var/run/secrets/sa/token', 'the-token', 0o644],
    ['/var/run/secrets/sa/namespace', 'shop', 0o644],
    ['/etc/app-name', 'web', 0o644],
  ]);
});
