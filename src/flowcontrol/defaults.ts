// The reference's configuration objects: the mandatory ones (exempt, catch-all), which the server always restores,
// and the suggested ones, which it creates when missing and keeps current while their autoupdate annotation is "true".
import type { Naming } from '../api/naming.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../api/flowcontrol.js';
import type { PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from '../api/types/flowcontrol-v1beta3.js';

export const autoupdateAnnotation = (names: Naming) => `apf.${names.labelDomain}/autoupdate-spec`;

export interface DefaultObjects {
  mandatoryLevels: PriorityLevelConfiguration[];
  mandatorySchemas: FlowSchema[];
  suggestedLevels: PriorityLevelConfiguration[];
  suggestedSchemas: FlowSchema[];
}

const everything: Pick<PolicyRulesWithSubjects, 'resourceRules' | 'nonResourceRules'> = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};
const groups = (...names: string[]): Subject[] => names.map(name => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map(name => ({ kind: 'User', user: { name } }));
const serviceAccounts = (namespace: string, ...names: string[]): Subject[] =>
  names.map(name => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } }));
const namespaced = (verbs: string[], apiGroups: string[], resources: string[]): ResourcePolicyRule =>
  ({ verbs, apiGroups, resources, namespaces: ['*'] });

export function defaultObjects(names: Naming): DefaultObjects {
  const apiVersion = `${names.group('flowcontrol.apiserver')}/v1beta3` as const;
  const annotations = { [autoupdateAnnotation(names)]: 'true' };
  const level = (name: string, spec: PriorityLevelConfiguration['spec']): PriorityLevelConfiguration =>
    ({ apiVersion, kind: 'PriorityLevelConfiguration', metadata: { name, annotations }, spec });
  const queued = (name: string, shares: number, lendablePercent: number, queues: number, handSize: number) => level(name, {
    type: 'Limited',
    limited: { nominalConcurrencyShares: shares, lendablePercent, limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } } },
  });
  const schema = (name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined,
    rules: PolicyRulesWithSubjects): FlowSchema => ({
    apiVersion, kind: 'FlowSchema', metadata: { name, annotations },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel }, matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}), rules: [rules],
    },
  });
  const system = names.systemNamespace;
  const controllerManager = 'system:kube-controller-manager', scheduler = 'system:kube-scheduler';
  const leaseRule = namespaced(['get', 'create', 'update'], [names.group('coordination')], ['leases']);
  return {
    mandatoryLevels: [
      level('exempt', { type: 'Exempt' }),
      level('catch-all', { type: 'Limited', limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } } }),
    ],
    mandatorySchemas: [
      schema('exempt', 'exempt', 1, undefined, { subjects: groups('system:masters'), ...everything }),
      schema('catch-all', 'catch-all', 10000, 'ByUser', { subjects: groups('system:unauthenticated', 'system:authenticated'), ...everything }),
    ],
    suggestedLevels: [
      queued('system', 30, 33, 64, 6),
      queued('node-high', 40, 25, 64, 6),
      queued('leader-election', 10, 0, 16, 4),
      queued('workload-high', 40, 50, 128, 6),
      queued('workload-low', 100, 90, 128, 6),
      queued('global-default', 20, 50, 128, 6),
    ],
    suggestedSchemas: [
      schema('probes', 'exempt', 2, undefined, {
        subjects: groups('system:unauthenticated', 'system:authenticated'),
        nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
      }),
      schema('system-leader-election', 'leader-election', 100, 'ByUser', {
        subjects: [...users(controllerManager, scheduler), ...serviceAccounts(system, '*')], resourceRules: [leaseRule],
      }),
      schema('endpoint-controller', 'workload-high', 150, 'ByUser', {
        subjects: [...users(controllerManager), ...serviceAccounts(system, 'endpoint-controller', 'endpointslicemirroring-controller')],
        resourceRules: [namespaced(['get', 'create', 'update'], [''], ['endpoints'])],
      }),
      schema('workload-leader-election', 'leader-election', 200, 'ByUser', {
        subjects: serviceAccounts(system, '*'),
        resourceRules: [namespaced(['get', 'create', 'update'], [''], ['endpoints', 'configmaps']), leaseRule],
      }),
      schema('system-node-high', 'node-high', 400, 'ByUser', {
        subjects: groups('system:nodes'),
        resourceRules: [
          { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
          namespaced(['*'], [names.group('coordination')], ['leases']),
        ],
      }),
      schema('system-nodes', 'system', 500, 'ByUser', { subjects: groups('system:nodes'), ...everything }),
      schema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', { subjects: users(controllerManager), ...everything }),
      schema('kube-scheduler', 'workload-high', 800, 'ByNamespace', { subjects: users(scheduler), ...everything }),
      schema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', { subjects: serviceAccounts(system, '*'), ...everything }),
      schema('service-accounts', 'workload-low', 9000, 'ByUser', { subjects: groups('system:serviceaccounts'), ...everything }),
      schema('global-default', 'global-default', 9900, 'ByUser', { subjects: groups('system:unauthenticated', 'system:authenticated'), ...everything }),
    ],
  };
}
