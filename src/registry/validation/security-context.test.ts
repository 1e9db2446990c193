import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from '../../api/types/core-v1.js';
import { validatePodSpec } from './pod-spec.js';

const container = (securityContext: object) => ({ name: 'a', image: 'i', imagePullPolicy: 'Always', terminationMessagePolicy: 'File', securityContext });
const causes = (podContext: object, containerContext: object = {}) =>
  validatePodSpec('spec', { containers: [container(containerContext)], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', securityContext: podContext } as PodSpec)
    .map(c => `${c.field}: ${c.message}`);

test('security contexts: ids in range, seccomp profiles, fsGroup change policy, proc mount, escalation contradictions', () => {
  assert.deepEqual(causes({ runAsUser: 1000, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } }, { runAsNonRoot: true, allowPrivilegeEscalation: false }), []);
  assert.deepEqual(causes(
    { runAsUser: -1, supplementalGroups: [1, -2], fsGroupChangePolicy: 'Bad', seccompProfile: { type: 'Localhost' } },
    { runAsGroup: 2147483648, procMount: 'Weird', seccompProfile: { type: '' }, allowPrivilegeEscalation: false, capabilities: { add: ['CAP_SYS_ADMIN'] } },
  ), [
    'spec.containers[0].securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive',
    'spec.containers[0].securityContext.procMount: Unsupported value: "Weird": supported values: "Default", "Unmasked"',
    'spec.containers[0].securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set',
    'spec.containers[0].securityContext: Invalid value: {"runAsGroup":2147483648,"procMount":"Weird","seccompProfile":{"type":""},"allowPrivilegeEscalation":false,"capabilities":{"add":["CAP_SYS_ADMIN"]}}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
    'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.securityContext.supplementalGroups[1]: Invalid value: -2: must be between 0 and 2147483647, inclusive',
    'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Bad": supported values: "Always", "OnRootMismatch"',
    'spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost',
  ]);
});
