// Every field of every built-in kind is described in both OpenAPI documents, and the description tables
// describe nothing that does not exist.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResources } from '../registry/resources/index.js';
import { createApiResources } from '../registry/resources.js';
import { apiDomains, naming } from '../api/naming.js';
import { descriptionTables, descriptionsFor } from '../api/schemas/descriptions/index.js';
import { buildModel, openapi3Document, swaggerDocument } from './documents.js';
import { metricsOpenApi } from '../metricsserver/openapi.js';

type Json = Record<string, any>;

/** "<definition>.<field path>" of every schema in a definition that has no description */
function undescribed(definitions: Record<string, Json>): string[] {
  const out: string[] = [];
  const visit = (s: Json, where: string) => {
    for (const [field, p] of Object.entries<Json>(s.properties ?? {})) {
      if (!p.description) out.push(`${where}.${field}`);
      // inline objects are described field by field as well; references are described where they are defined
      if (p.properties) visit(p, `${where}.${field}`);
    }
  };
  for (const [name, d] of Object.entries(definitions)) {
    if (!d.description) out.push(name);
    visit(d, name);
  }
  return out;
}

for (const domain of apiDomains) describe(`descriptions in the OpenAPI documents (${domain})`, () => {
  const names = naming(domain);
  const resources = createApiResources(names, () => true);
  for (const d of builtinResources) resources.add(d);
  const model = buildModel(resources, names);

  test('v2: every definition and every field of it has a description', () => {
    const doc = swaggerDocument(model, names) as Json;
    assert.ok(Object.keys(doc.definitions).length > 400);
    assert.deepEqual(undescribed(doc.definitions), []);
  });

  test('v3: every definition and every field of it has a description, in each group version document', () => {
    for (const gv of model.groupVersions) {
      const doc = openapi3Document(model, gv, names) as Json;
      assert.deepEqual(undescribed(doc.components.schemas), [], gv.key);
    }
  });

  test('a field that refers to a definition carries its own description beside the reference', () => {
    const v2 = swaggerDocument(model, names) as Json;
    const strategy = v2.definitions['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy;
    assert.equal(strategy.$ref, '#/definitions/io.k8s.api.apps.v1.DeploymentStrategy');
    assert.match(strategy.description, /\w/);
    const apps = model.groupVersions.find(g => g.key === 'apis/apps/v1')!;
    const v3 = (openapi3Document(model, apps, names) as Json).components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy;
    assert.deepEqual(v3.allOf, [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }]);
    assert.equal(v3.description, strategy.description);
  });
});

describe('description tables', () => {
  test('describe only definitions and fields the catalog has', () => {
    const resources = createApiResources(naming(), () => true);
    for (const d of builtinResources) resources.add(d);
    // the built-in API's, and the resource metrics API's (which a metrics server publishes)
    const definitions = {
      ...(swaggerDocument(buildModel(resources, naming()), naming()) as Json).definitions as Record<string, Json>,
      ...(metricsOpenApi(naming()).v2 as Json).definitions as Record<string, Json>,
    };
    // a table may serve several versions of a group: an entry must exist in at least one of them
    const known = new Map<string, Set<string>>();
    for (const [name, d] of Object.entries(definitions)) {
      const dot = name.lastIndexOf('.');
      const table = descriptionTables[name.slice(0, dot)];
      if (!table) continue;
      const key = `${Object.keys(descriptionTables).find(k => descriptionTables[k] === table)}:${name.slice(dot + 1)}`;
      const fields = known.get(key) ?? new Set(['']);
      for (const f of Object.keys(d.properties ?? {})) fields.add(f);
      known.set(key, fields);
    }
    const stale: string[] = [];
    const seen = new Set<object>();
    for (const [prefix, table] of Object.entries(descriptionTables)) {
      if (seen.has(table)) continue;
      seen.add(table);
      for (const [simple, entry] of Object.entries(table)) {
        const fields = known.get(`${prefix}:${simple}`);
        if (!fields) { stale.push(`${prefix}.${simple}`); continue; }
        for (const f of Object.keys(entry)) if (!fields.has(f)) stale.push(`${prefix}.${simple}.${f}`);
      }
    }
    assert.deepEqual(stale, []);
  });

  test('descriptionsFor answers by reference name, describes list kinds from their items, and knows nothing else', () => {
    const pod = descriptionsFor('io.k8s.api.core.v1.Pod');
    assert.match(pod.description!, /containers/);
    assert.match(pod.fields.spec, /\w/);
    assert.match(descriptionsFor('io.k8s.api.core.v1.Container').fields.image, /image/);
    const list = descriptionsFor('io.k8s.api.apps.v1.DeploymentList');
    assert.match(list.description!, /Deployment/);
    assert.deepEqual(Object.keys(list.fields).sort(), ['apiVersion', 'items', 'kind', 'metadata']);
    assert.deepEqual(descriptionsFor('com.example.stable.v1.CronTab'), { fields: {} });
    assert.deepEqual(descriptionsFor('io.k8s.api.core.v1.NoSuchKind'), { fields: {} });
  });
});
