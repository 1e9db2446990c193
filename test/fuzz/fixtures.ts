// What the hostile-request fuzzer writes before it starts: a namespace, a custom resource definition with a set, a
// map-list and free-form fields, and one object of each kind it targets. No generator code, so tests can share it cheaply.
export const ns = 'fuzz';
export const group = 'fuzz.example.com';

/** the custom resource the fuzzer writes: a set, a map-list, free-form fields and a nested list */
export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group}` },
  spec: {
    group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                ports: {
                  type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                  items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', minimum: 1, maximum: 65535 } } },
                },
                size: { type: 'integer', format: 'int32' },
                mode: { type: 'string', enum: ['a', 'b'], pattern: '^[a-z]+$', maxLength: 10 },
                free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
            status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    }],
  },
};

/** the fuzz node: the fixtures' pod is bound to it, and an agent in fake mode may simulate it */
export const fuzzNode = 'fuzz-node';

/** objects present before the fuzzing starts (and put back between batches), so writes and patches find targets */
export const fixtures: Array<{ path: string; body: unknown }> = [
  { path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
  ...[0, 1, 2].map(i => ({ path: `/api/v1/namespaces/${ns}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { a: 'b' } }, data: { k: 'v' } } })),
  { path: `/api/v1/namespaces/${ns}/pods`, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-0', labels: { app: 'p' } }, spec: { nodeName: fuzzNode, containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: 'x' }] }] } } },
  { path: `/apis/apps/v1/namespaces/${ns}/deployments`, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd-0' }, spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } },
  { path: `/api/v1/namespaces/${ns}/services`, body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-0' }, spec: { selector: { app: 'p' }, ports: [{ port: 80, targetPort: 80 }] } } },
  { path: `/apis/${group}/v1/namespaces/${ns}/widgets`, body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w-0' }, spec: { tags: ['x'], ports: [{ name: 'http', port: 80 }] } } },
];

/** the custom resource definition in the server's API domain */
export const widgetCrdIn = (domain: string) => ({ ...widgetCrd, apiVersion: `apiextensions.${domain}/v1` });

/** the limited user's grants: reads and some writes of config maps, pods and widgets in the fuzz namespace, the pods'
 * stream subresources, the nodes' proxy, and impersonation of one user and one group */
export const limitedUserGrants = (domain: string, user: string): Array<{ path: string; body: unknown }> => {
  const rbac = `rbac.authorization.${domain}/v1`;
  return [
    { path: `/apis/rbac.authorization.${domain}/v1/namespaces/${ns}/roles`, body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'fuzz-some' }, rules: [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] },
      { apiGroups: [''], resources: ['pods', 'pods/log', 'services'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods/exec', 'pods/attach', 'pods/portforward'], verbs: ['create', 'get'] },
      { apiGroups: [''], resources: ['services/proxy', 'pods/proxy'], verbs: ['get'] },
      { apiGroups: [group], resources: ['widgets', 'widgets/status'], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['d-0'], verbs: ['get', 'patch'] },
    ] } },
    { path: `/apis/rbac.authorization.${domain}/v1/namespaces/${ns}/rolebindings`, body: { apiVersion: rbac, kind: 'RoleBinding', metadata: { name: 'fuzz-some' },
      roleRef: { apiGroup: `rbac.authorization.${domain}`, kind: 'Role', name: 'fuzz-some' }, subjects: [{ kind: 'User', apiGroup: `rbac.authorization.${domain}`, name: user }] } },
    { path: `/apis/rbac.authorization.${domain}/v1/clusterroles`, body: { apiVersion: rbac, kind: 'ClusterRole', metadata: { name: 'fuzz-some' }, rules: [
      { apiGroups: [''], resources: ['users'], resourceNames: ['alice'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['groups'], resourceNames: ['dev'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['nodes', 'nodes/proxy'], verbs: ['get', 'list'] },
    ] } },
    { path: `/apis/rbac.authorization.${domain}/v1/clusterrolebindings`, body: { apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: { name: 'fuzz-some' },
      roleRef: { apiGroup: `rbac.authorization.${domain}`, kind: 'ClusterRole', name: 'fuzz-some' }, subjects: [{ kind: 'User', apiGroup: `rbac.authorization.${domain}`, name: user }] } },
  ];
};
