// The OpenAPI documents of the resource metrics API, as an extension server publishes its own: /openapi/v2 (which
// the API server merges into its document) and /openapi/v3 with the group version's document (which the API
// server lists and proxies), so `kubectl explain nodemetrics` teaches. The kinds' schemas and descriptions are the
// catalog's; this module is loaded on the first request for a document.
import type { Naming } from '../api/naming.js';
import { resourceMetricsGroup, resourceMetricsVersion } from '../api/resource-metrics.js';
import { collectDefinitions, openapi3, schemaWriter, swagger2, type Dialect, type Json } from '../api/schemas/definitions.js';
import { resourceMetricsSchemas } from '../api/schemas/metrics-v1beta1.js';

export interface MetricsOpenApi {
  v2: Json;
  /** the v3 index, and the group version's document by its index key (`apis/metrics.<domain>/v1beta1`) */
  v3Index: Json;
  v3: Map<string, Json>;
}

export function metricsOpenApi(names: Naming): MetricsOpenApi {
  const group = resourceMetricsGroup(names), version = resourceMetricsVersion;
  const schemas = resourceMetricsSchemas();
  const definitions = collectDefinitions(Object.entries(schemas).map(([kind, schema]) => ({ schema, gvks: [{ group, kind, version }] })));
  const key = `apis/${group}/${version}`;
  const info = { title: 'Resource metrics API', version };

  /** get and list of nodes and pods (pods in a namespace or across all), as the reference's operations are named */
  function paths(dialect: Dialect, writer: ReturnType<typeof schemaWriter>) {
    const param = (name: string, description: string, where = 'path'): Json => dialect.v3
      ? { name, in: where, description, required: where === 'path', schema: { type: 'string', uniqueItems: true } }
      : { name, in: where, description, required: where === 'path', type: 'string', uniqueItems: true };
    const selectors = [param('labelSelector', 'Only the objects whose labels match this selector.', 'query'),
      param('fieldSelector', 'Only the objects whose fields (metadata.name, metadata.namespace) match this selector.', 'query')];
    const response = (kind: string): Json => {
      const schema = writer.use(schemas[kind]!);
      return { 200: dialect.v3 ? { description: 'OK', content: { 'application/json': { schema } } } : { description: 'OK', schema }, 401: { description: 'Unauthorized' } };
    };
    const op = (action: 'get' | 'list', kind: string, scope: string, params: Json[]): Json => ({
      get: {
        description: action === 'get' ? `read the ${kind} of one object` : `list ${kind} objects`,
        operationId: `${action}MetricsV1beta1${scope}${kind}`, tags: ['metrics_v1beta1'],
        ...(dialect.v3 ? {} : { produces: ['application/json'], schemes: ['https'] }),
        parameters: params, responses: response(action === 'list' ? `${kind}List` : kind),
        'x-kubernetes-action': action, 'x-kubernetes-group-version-kind': { group, kind, version },
      },
    });
    const name = (what: string) => param('name', `The name of the ${what}.`);
    const namespace = param('namespace', 'The namespace of the pods.');
    const base = `/apis/${group}/${version}`;
    return {
      [`${base}/namespaces/{namespace}/pods`]: op('list', 'PodMetrics', 'Namespaced', [namespace, ...selectors]),
      [`${base}/namespaces/{namespace}/pods/{name}`]: op('get', 'PodMetrics', 'Namespaced', [name('pod'), namespace]),
      [`${base}/nodes`]: op('list', 'NodeMetrics', '', selectors),
      [`${base}/nodes/{name}`]: op('get', 'NodeMetrics', '', [name('node')]),
      [`${base}/pods`]: op('list', 'PodMetrics', 'ForAllNamespaces', selectors),
    };
  }

  const v2Writer = schemaWriter(definitions, swagger2, names);
  const v2Paths = paths(swagger2, v2Writer);
  for (const s of Object.values(schemas)) v2Writer.use(s);
  const v3Writer = schemaWriter(definitions, openapi3, names);
  const v3Paths = paths(openapi3, v3Writer);
  for (const s of Object.values(schemas)) v3Writer.use(s);
  return {
    v2: { swagger: '2.0', info, paths: v2Paths, definitions: v2Writer.definitions() },
    v3Index: { paths: { [key]: { serverRelativeURL: `/openapi/v3/${key}` } } },
    v3: new Map([[key, { openapi: '3.0.0', info, paths: v3Paths, components: { schemas: v3Writer.definitions() } }]]),
  };
}
