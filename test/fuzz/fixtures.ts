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

/** objects present before the fuzzing starts (and put back between batches), so writes and patches find targets */
export const fixtures: Array<{ path: string; body: unknown }> = [
  { path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } },
  ...[0, 1, 2].map(i => ({ path: `/api/v1/namespaces/${ns}/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { a: 'b' } }, data: { k: 'v' } } })),
  { path: `/api/v1/namespaces/${ns}/pods`, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-0' }, spec: { containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: 'x' }] }] } } },
  { path: `/apis/apps/v1/namespaces/${ns}/deployments`, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd-0' }, spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } },
  { path: `/apis/${group}/v1/namespaces/${ns}/widgets`, body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w-0' }, spec: { tags: ['x'], ports: [{ name: 'http', port: 80 }] } } },
];

