// The default roles and bindings the reference creates at start-up: the user-facing roles (cluster-admin,
// admin, edit, view, the last three aggregated), discovery and self-review roles every user holds, and the
// roles of the built-in components (node agents, scheduler, controller manager, proxy, ...), one role per
// controller, and the roles in the system namespaces: the reference's set of 1.27, whatever the authorization mode.
import type { Naming } from '../../api/naming.js';
import type { ApiObject } from '../../api/meta.js';
import type { PolicyRule } from '../../api/auth.js';
import { controllerRoles } from './controller-roles.js';

import { eventsRule, read, rule, urls, write } from './rules.js';

export interface BootstrapPolicy {
  clusterRoles: ApiObject[];
  clusterRoleBindings: ApiObject[];
  roles: ApiObject[];
  roleBindings: ApiObject[];
}

/** the rules of system:node, which the Node authorizer also applies */
export function nodeRules(names: Naming): PolicyRule[] {
  const g = names.group;
  const events = eventsRule(names);
  return [
    rule(['create'], [g('authentication')], ['tokenreviews']),
    rule(['create'], [g('authorization')], ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(read, [''], ['services']),
    rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
    rule(['patch', 'update'], [''], ['nodes/status']),
    rule(['patch', 'update'], [''], ['nodes']),
    events,
    rule(read, [''], ['pods']),
    rule(['create', 'delete'], [''], ['pods']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['create'], [''], ['pods/eviction']),
    rule(['get'], [''], ['configmaps', 'secrets']),
    rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], [''], ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], [g('certificates')], ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], [g('coordination')], ['leases']),
    rule(['get'], [g('storage')], ['volumeattachments']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(['update', 'patch'], [''], ['persistentvolumeclaims/status']),
    rule(read, [g('storage')], ['csidrivers']),
    rule(['create', 'delete', 'get', 'patch', 'update'], [g('storage')], ['csinodes']),
    rule(read, [g('node')], ['runtimeclasses']),
  ];
}

export function bootstrapPolicy(names: Naming): BootstrapPolicy {
  const g = names.group;
  const rbacGroup = g('rbac.authorization');
  const events = eventsRule(names);
  const apiVersion = `${rbacGroup}/v1`;
  const meta = (name: string, labels: Record<string, string> = {}, namespace?: string) => ({
    name, ...(namespace ? { namespace } : {}),
    labels: { [names.label('bootstrapping')]: 'rbac-defaults', ...labels },
    annotations: { [`rbac.authorization.${names.labelDomain}/autoupdate`]: 'true' },
  });
  const aggregateLabel = (to: string) => `${rbacGroup}/aggregate-to-${to}`;
  const clusterRole = (name: string, rules: PolicyRule[], labels?: Record<string, string>): ApiObject =>
    ({ apiVersion, kind: 'ClusterRole', metadata: meta(name, labels), rules });
  const aggregated = (name: string, to: string, labels?: Record<string, string>): ApiObject =>
    ({ apiVersion, kind: 'ClusterRole', metadata: meta(name, labels), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel(to)]: 'true' } }] }, rules: [] });
  const subject = (kind: 'User' | 'Group' | 'ServiceAccount', name: string, namespace?: string) =>
    kind === 'ServiceAccount' ? { kind, name, namespace } : { kind, apiGroup: rbacGroup, name };
  const binding = (name: string, role: string, subjects: ReturnType<typeof subject>[]): ApiObject =>
    ({ apiVersion, kind: 'ClusterRoleBinding', metadata: meta(name), roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: role }, ...(subjects.length ? { subjects } : {}) });

  const apps = 'apps', batch = 'batch', autoscaling = 'autoscaling', policy = 'policy', extensions = 'extensions';
  const networking = g('networking'), coordination = g('coordination'), discovery = g('discovery'), storage = g('storage');
  const viewRules = [
    rule(read, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers',
      'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
    rule(read, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status',
      'resourcequotas', 'resourcequotas/status']),
    rule(read, [''], ['namespaces']),
    rule(read, [discovery], ['endpointslices']),
    rule(read, [apps], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status',
      'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
    rule(read, [autoscaling], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(read, [batch], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
    rule(read, [extensions], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses',
      'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
    rule(read, [policy], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(read, [networking], ['ingresses', 'ingresses/status', 'networkpolicies']),
  ];
  const editRules = [
    rule(['create', 'delete', 'deletecollection', 'patch', 'update'], [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
    rule(['create'], [''], ['pods/eviction']),
    rule(write, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets',
      'serviceaccounts', 'services', 'services/proxy']),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(write, [apps], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale',
      'statefulsets', 'statefulsets/scale']),
    rule(write, [autoscaling], ['horizontalpodautoscalers']),
    rule(write, [batch], ['cronjobs', 'jobs']),
    rule(write, [extensions], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies',
      'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
    rule(write, [policy], ['poddisruptionbudgets']),
    rule(write, [networking], ['ingresses', 'networkpolicies']),
    rule(write, [coordination], ['leases']),
    // edit may read secrets and impersonate service accounts, though view may not
    rule(read, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
    rule(['impersonate'], [''], ['serviceaccounts']),
  ];
  const adminRules = [
    rule(['create'], [g('authorization')], ['localsubjectaccessreviews']),
    rule([...read, ...write], [rbacGroup], ['rolebindings', 'roles']),
  ];

  const clusterRoles: ApiObject[] = [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    aggregated('admin', 'admin'),
    aggregated('edit', 'edit', { [aggregateLabel('admin')]: 'true' }),
    aggregated('view', 'view', { [aggregateLabel('edit')]: 'true' }),
    clusterRole('system:aggregate-to-admin', adminRules, { [aggregateLabel('admin')]: 'true' }),
    clusterRole('system:aggregate-to-edit', editRules, { [aggregateLabel('edit')]: 'true' }),
    clusterRole('system:aggregate-to-view', viewRules, { [aggregateLabel('view')]: 'true' }),
    clusterRole('system:discovery', [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])]),
    clusterRole('system:public-info-viewer', [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])]),
    clusterRole('system:basic-user', [
      rule(['create'], [g('authentication')], ['selfsubjectreviews']),
      rule(['create'], [g('authorization')], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    ]),
    clusterRole('system:monitoring', [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])]),
    clusterRole('system:auth-delegator', [rule(['create'], [g('authentication')], ['tokenreviews']), rule(['create'], [g('authorization')], ['subjectaccessreviews'])]),
    clusterRole('system:heapster', [rule(read, [''], ['events', 'namespaces', 'nodes', 'pods']), rule(read, [extensions], ['deployments'])]),
    clusterRole('system:node', nodeRules(names)),
    clusterRole('system:node-problem-detector', [rule(['get'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), events]),
    clusterRole('system:kubelet-api-admin', [rule(['get', 'list', 'watch', 'proxy'], [''], ['nodes']), rule(['*'], [''], ['nodes/log', 'nodes/metrics', 'nodes/proxy', 'nodes/stats'])]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], [g('certificates')], ['certificatesigningrequests'])]),
    clusterRole('system:kube-aggregator', [rule(read, [''], ['endpoints', 'services'])]),
    clusterRole('system:kube-controller-manager', [
      events,
      rule(['create'], [coordination], ['leases']),
      rule(['get', 'update'], [coordination], ['leases'], ['kube-controller-manager']),
      rule(['create'], [''], ['secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['configmaps', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [''], ['secrets', 'serviceaccounts']),
      rule(['create'], [g('authentication')], ['tokenreviews']),
      rule(['create'], [g('authorization')], ['subjectaccessreviews']),
      rule(['list', 'watch'], ['*'], ['*']),
      rule(['create'], [''], ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-scheduler', [
      events,
      rule(['create'], [coordination], ['leases']),
      rule(['get', 'update'], [coordination], ['leases'], ['kube-scheduler']),
      rule(read, [''], ['nodes']),
      rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
      rule(['create'], [''], ['bindings', 'pods/binding']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(read, [''], ['replicationcontrollers', 'services']),
      rule(read, [apps, extensions], ['replicasets']),
      rule(read, [apps], ['statefulsets']),
      rule(read, [policy], ['poddisruptionbudgets']),
      rule(read, [''], ['persistentvolumeclaims', 'persistentvolumes']),
      rule(['create'], [g('authentication')], ['tokenreviews']),
      rule(['create'], [g('authorization')], ['subjectaccessreviews']),
      rule(read, [storage], ['csinodes', 'csidrivers', 'csistoragecapacities']),
      rule(read, [''], ['namespaces']),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
      rule(read, [storage], ['storageclasses']),
      rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
    ]),
    clusterRole('system:node-proxier', [
      rule(['list', 'watch'], [''], ['endpoints', 'services']),
      rule(read, [''], ['nodes']),
      events,
      rule(['list', 'watch'], [discovery], ['endpointslices']),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], [''], ['endpoints', 'services'])]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['persistentvolumes']),
      rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
      rule(read, [storage], ['storageclasses']),
      rule(['create', 'patch', 'update', 'list', 'watch'], [''], ['events']),
    ]),
    clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/.well-known/openid-configuration/', '/openid/v1/jwks', '/openid/v1/jwks/'])]),
    ...[['nodeclient', 'create'], ['selfnodeclient', 'create']].map(([sub, verb]) => clusterRole(`system:certificates.${names.domain}:certificatesigningrequests:${sub}`,
      [rule([verb], [g('certificates')], [`certificatesigningrequests/${sub}`])])),
    ...['kube-apiserver-client', 'kube-apiserver-client-kubelet', 'kubelet-serving', 'legacy-unknown'].map(signer =>
      clusterRole(`system:certificates.${names.domain}:${signer}-approver`,
        [rule(['approve'], [g('certificates')], ['signers'], [`${names.labelDomain}/${signer}`])])),
  ];
  const controllers = Object.entries(controllerRoles(names));
  clusterRoles.push(...controllers.map(([name, rules]) => clusterRole(`system:controller:${name}`, rules)));

  const clusterRoleBindings: ApiObject[] = [
    binding('cluster-admin', 'cluster-admin', [subject('Group', 'system:masters')]),
    binding('system:basic-user', 'system:basic-user', [subject('Group', 'system:authenticated')]),
    binding('system:discovery', 'system:discovery', [subject('Group', 'system:authenticated')]),
    binding('system:public-info-viewer', 'system:public-info-viewer', [subject('Group', 'system:authenticated'), subject('Group', 'system:unauthenticated')]),
    binding('system:monitoring', 'system:monitoring', [subject('Group', 'system:monitoring')]),
    binding('system:kube-controller-manager', 'system:kube-controller-manager', [subject('User', 'system:kube-controller-manager')]),
    binding('system:kube-scheduler', 'system:kube-scheduler', [subject('User', 'system:kube-scheduler')]),
    binding('system:volume-scheduler', 'system:volume-scheduler', [subject('User', 'system:kube-scheduler')]),
    binding('system:node-proxier', 'system:node-proxier', [subject('User', 'system:kube-proxy')]),
    binding('system:kube-dns', 'system:kube-dns', [subject('ServiceAccount', 'kube-dns', names.systemNamespace)]),
    binding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [subject('Group', 'system:serviceaccounts')]),
    binding('system:node', 'system:node', []),
    ...controllers.map(([name]) => binding(`system:controller:${name}`, `system:controller:${name}`, [subject('ServiceAccount', name, names.systemNamespace)])),
  ];

  const sys = names.systemNamespace;
  const role = (name: string, namespace: string, rules: PolicyRule[]): ApiObject => ({ apiVersion, kind: 'Role', metadata: meta(name, {}, namespace), rules });
  const roleBinding = (name: string, namespace: string, roleName: string, subjects: ReturnType<typeof subject>[]): ApiObject =>
    ({ apiVersion, kind: 'RoleBinding', metadata: meta(name, {}, namespace), roleRef: { apiGroup: rbacGroup, kind: 'Role', name: roleName }, subjects });
  const roles = [
    role('extension-apiserver-authentication-reader', sys, [rule(read, [''], ['configmaps'], ['extension-apiserver-authentication'])]),
    role('system::leader-locking-kube-controller-manager', sys, [rule(['watch'], [''], ['configmaps']), rule(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager'])]),
    role('system::leader-locking-kube-scheduler', sys, [rule(['watch'], [''], ['configmaps']), rule(['get', 'update'], [''], ['configmaps'], ['kube-scheduler'])]),
    role('system:controller:bootstrap-signer', sys, [rule(read, [''], ['secrets'])]),
    role('system:controller:cloud-provider', sys, [rule(['create', 'get', 'list', 'watch'], [''], ['configmaps'])]),
    role('system:controller:token-cleaner', sys, [rule(['delete', 'get', 'list', 'watch'], [''], ['secrets']), events]),
    role('system:controller:bootstrap-signer', names.publicNamespace,
      [rule(read, [''], ['configmaps']), rule(['update'], [''], ['configmaps'], ['cluster-info']), events]),
  ];
  const controllerAccount = (name: string) => [subject('ServiceAccount', name, sys)];
  const roleBindings = [
    roleBinding('system::extension-apiserver-authentication-reader', sys, 'extension-apiserver-authentication-reader',
      [subject('User', 'system:kube-controller-manager'), subject('User', 'system:kube-scheduler')]),
    roleBinding('system::leader-locking-kube-controller-manager', sys, 'system::leader-locking-kube-controller-manager',
      [subject('User', 'system:kube-controller-manager'), subject('ServiceAccount', 'kube-controller-manager', sys), subject('ServiceAccount', 'leader-election-controller', sys)]),
    roleBinding('system::leader-locking-kube-scheduler', sys, 'system::leader-locking-kube-scheduler',
      [subject('User', 'system:kube-scheduler'), subject('ServiceAccount', 'kube-scheduler', sys)]),
    roleBinding('system:controller:bootstrap-signer', sys, 'system:controller:bootstrap-signer', controllerAccount('bootstrap-signer')),
    roleBinding('system:controller:cloud-provider', sys, 'system:controller:cloud-provider', controllerAccount('cloud-provider')),
    roleBinding('system:controller:token-cleaner', sys, 'system:controller:token-cleaner', controllerAccount('token-cleaner')),
    roleBinding('system:controller:bootstrap-signer', names.publicNamespace, 'system:controller:bootstrap-signer', controllerAccount('bootstrap-signer')),
  ];
  return { clusterRoles, clusterRoleBindings, roles, roleBindings };
}
