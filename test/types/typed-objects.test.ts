// Type-level checks of the generated types: each `@ts-expect-error` below must meet an error, so the build
// fails if the types ever widen to `any` or lose their required fields, literals or enums.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, PodList } from '../../src/api/types/core-v1.js';
import type { Deployment } from '../../src/api/types/apps-v1.js';
import type { Role } from '../../src/api/types/rbac-v1.js';
import type { BuiltinObject, IntOrString, KindMap, ObjectMeta, Quantity, ResourceMap } from '../../src/api/types/index.js';
import { naming } from '../../src/api/naming.js';

type IsAny<T> = 0 extends 1 & T ? true : false;
/** true when no value of the map is `any` (else never, which nothing is assignable to) */
type NoAny<M> = true extends { [K in keyof M]: IsAny<M[K]> }[keyof M] ? never : true;

test('typed objects accept what the reference accepts and refuse the rest', () => {
  const container: Container = { name: 'app', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '500m', memory: 1024 } } };
  const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'web' } }, spec: { containers: [container] } };
  const list: PodList = { items: [pod], metadata: { resourceVersion: '7' } };
  const deployment: Deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment',
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [container] } }, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } },
  };
  const role: Role = { apiVersion: `${naming('k8s.io').group('rbac.authorization')}/v1`, kind: 'Role', rules: [{ verbs: ['get'], resources: ['pods'], apiGroups: [''] }] };

  // @ts-expect-error a field the kind does not have
  const misspelt: Pod = { spec: { containers: [], nodeNmae: 'n' } };
  // @ts-expect-error a container needs its name
  const nameless: Container = { image: 'nginx' };
  // @ts-expect-error a Deployment's apiVersion is apps/v1
  const wrongVersion: Deployment = { apiVersion: 'v1' };
  // @ts-expect-error an int32 is a number
  const textReplicas: Deployment = { spec: { replicas: '2', selector: {}, template: {} } };
  // @ts-expect-error restartPolicy is one of the reference's values
  const sometimes: Pod = { spec: { containers: [], restartPolicy: 'Sometimes' } };
  // @ts-expect-error the RBAC group carries the API domain
  const undomained: Role = { apiVersion: 'rbac.authorization/v1' };
  // @ts-expect-error a Deployment is not a Pod
  const notAPod: KindMap['v1/Pod'] = deployment;
  // @ts-expect-error labels are strings
  const numericLabel: ObjectMeta = { labels: { tier: 1 } };
  // @ts-expect-error a quantity is a string or a number, not an object
  const badQuantity: Quantity = { amount: 1 };
  // @ts-expect-error an int-or-string is not a boolean
  const badPort: IntOrString = true;

  // the lookups find the kinds, including those of groups carrying the API domain
  const byKind: KindMap['apps/v1/Deployment'] = deployment;
  const byResource: ResourceMap['v1/pods'] = pod;
  const byDomainGroup: KindMap['rbac.authorization.k8s.io/v1/Role'] = role;
  const any: BuiltinObject[] = [pod, list, deployment, role];
  // none of the lookups' types is `any`
  const noAnyKind: NoAny<KindMap> = true;
  const noAnyResource: NoAny<ResourceMap> = true;

  assert.deepEqual([misspelt, nameless, wrongVersion, textReplicas, sometimes, undomained, notAPod, numericLabel, badQuantity, badPort].length, 10);
  assert.equal(byKind.spec?.replicas, 2);
  assert.equal(byResource.spec?.containers[0]?.name, 'app');
  assert.equal(byDomainGroup.apiVersion, 'rbac.authorization.k8s.io/v1');
  assert.equal(any.length, 4);
  assert.ok(noAnyKind && noAnyResource);
});
