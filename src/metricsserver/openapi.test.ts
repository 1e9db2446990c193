import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import { metricsOpenApi } from './openapi.js';

const kinds = ['NodeMetrics', 'NodeMetricsList', 'PodMetrics', 'PodMetricsList'];
const def = (kind: string) => `io.k8s.metrics.pkg.apis.metrics.v1beta1.${kind}`;

/** every $ref of a document, and whether it names a schema of the document */
function refs(doc: unknown, prefix: string, schemas: Record<string, unknown>): string[] {
  const missing: string[] = [];
  JSON.stringify(doc, (k, v) => { if (k === '$ref' && !(v.slice(prefix.length) in schemas)) missing.push(v); return v; });
  return missing;
}

for (const domain of ['k8s.io', 'cluster.io'] as const) {
  test(`the metrics kinds in the v2 and v3 documents, described, with their group-version-kind (${domain})`, () => {
    const names = naming(domain);
    const group = names.group('metrics');
    const docs = metricsOpenApi(names);
    const v3 = docs.v3.get(`apis/${group}/v1beta1`) as any;
    assert.deepEqual(docs.v3Index, { paths: { [`apis/${group}/v1beta1`]: { serverRelativeURL: `/openapi/v3/apis/${group}/v1beta1` } } });
    for (const [schemas, prefix] of [[(docs.v2 as any).definitions, '#/definitions/'], [v3.components.schemas, '#/components/schemas/']] as const) {
      for (const kind of kinds) {
        const d = schemas[def(kind)];
        assert.deepEqual(d['x-kubernetes-group-version-kind'], [{ group, kind, version: 'v1beta1' }], kind);
        assert.ok(d.description, kind);
      }
      assert.match(schemas[def('NodeMetrics')].properties.usage.description, /cpu in cores/);
      assert.deepEqual(schemas[def('PodMetrics')].required, ['timestamp', 'window', 'containers']);
      assert.ok(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], 'ObjectMeta is defined');
      assert.deepEqual(refs(schemas, prefix, schemas), [], 'every reference resolves');
    }
    assert.deepEqual(Object.keys((docs.v2 as any).paths).sort(), [
      `/apis/${group}/v1beta1/namespaces/{namespace}/pods`, `/apis/${group}/v1beta1/namespaces/{namespace}/pods/{name}`,
      `/apis/${group}/v1beta1/nodes`, `/apis/${group}/v1beta1/nodes/{name}`, `/apis/${group}/v1beta1/pods`]);
    assert.deepEqual(refs(v3.paths, '#/components/schemas/', v3.components.schemas), []);
    assert.deepEqual(refs((docs.v2 as any).paths, '#/definitions/', (docs.v2 as any).definitions), []);
  });
}
