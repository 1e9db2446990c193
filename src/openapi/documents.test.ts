import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResources } from '../registry/resources/index.js';
import { createApiResources } from '../registry/resources.js';
import { apiDomains, naming, type ApiDomain } from '../api/naming.js';
import { allVerbs } from '../registry/types.js';
import { buildModel, openapi3Document, swaggerDocument } from './documents.js';
import { encodeSwaggerDocument } from './protobuf.js';
import { encodeOpenAPIv3Document } from './protobuf-v3.js';

function installed(domain: ApiDomain) {
  const names = naming(domain);
  const resources = createApiResources(names, () => true);
  for (const d of builtinResources) resources.add(d);
  return { names, resources, model: buildModel(resources, names) };
}

/** every `$ref` in a document, with where it was found (a field named "$ref", as JSONSchemaProps has, is no reference) */
function refs(value: unknown, path = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) value.forEach((v, i) => refs(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push([path, v]);
      else refs(v, `${path}.${k}`, out);
    }
  }
  return out;
}

/** the keywords used anywhere in a document; the names of fields (keys of `properties`) are not keywords */
function keysAnywhere(value: unknown, found = new Set<string>(), fieldNames = false): Set<string> {
  if (Array.isArray(value)) value.forEach(v => keysAnywhere(v, found));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) {
    if (!fieldNames) found.add(k);
    keysAnywhere(v, found, k === 'properties' && !fieldNames);
  }
  return found;
}

const apiext = (k: string) => `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.${k}`;
/** the definitions whose shape the reference fixes, without their descriptions */
function shapes(definitions: Record<string, any>) {
  const names = ['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1', 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
    'io.k8s.apimachinery.pkg.api.resource.Quantity', 'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', 'io.k8s.apimachinery.pkg.runtime.RawExtension',
    apiext('JSON'), apiext('JSONSchemaPropsOrArray'), apiext('JSONSchemaPropsOrBool'), apiext('JSONSchemaPropsOrStringArray')];
  return Object.fromEntries(names.map(n => {
    const { description, ...shape } = definitions[n];
    assert.match(description, /\w/, n);
    return [n.slice(n.lastIndexOf('.') + 1), shape];
  }));
}

const writeMethods = ['post', 'put', 'patch'];

for (const domain of apiDomains) describe(`OpenAPI documents (${domain})`, () => {
  const { names, resources, model } = installed(domain);

  test('the catalog names each definition one way', () => {
    assert.deepEqual(model.definitions.conflicts, []);
  });

  test('v2: every $ref resolves, kinds and list kinds carry their group-version-kind', () => {
    const doc = swaggerDocument(model, names) as any;
    assert.equal(doc.swagger, '2.0');
    for (const [where, ref] of refs(doc)) {
      assert.match(ref, /^#\/definitions\//, where);
      assert.ok(doc.definitions[ref.slice('#/definitions/'.length)], `${where}: ${ref} does not resolve`);
    }
    const gvks = new Set(Object.values(doc.definitions).flatMap((d: any) =>
      (d['x-kubernetes-group-version-kind'] ?? []).map((g: any) => `${g.group}/${g.version}/${g.kind}`)));
    for (const e of resources.all()) {
      assert.ok(gvks.has(`${e.group}/${e.version}/${e.kind}`), `${e.kind} in ${e.apiVersion}`);
      if (e.verbs.includes('list')) assert.ok(gvks.has(`${e.group}/${e.version}/${e.listKind}`), `${e.listKind} in ${e.apiVersion}`);
    }
    assert.ok(gvks.has('/v1/Status'));
    const keys = keysAnywhere(doc);
    assert.ok(!keys.has('x-ref') && !keys.has('x-proto') && !keys.has('allOf') && !keys.has('nullable'));
  });

  test('v2: operations carry their action and kind, writes accept fieldValidation', () => {
    const doc = swaggerDocument(model, names) as any;
    const prefix = `/apis/${names.group('rbac.authorization')}/v1`;
    const item = doc.paths[`${prefix}/namespaces/{namespace}/roles/{name}`];
    assert.equal(item.patch['x-kubernetes-action'], 'patch');
    assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], { group: names.group('rbac.authorization'), kind: 'Role', version: 'v1' });
    let writes = 0;
    for (const [path, pathItem] of Object.entries<any>(doc.paths)) for (const method of writeMethods) {
      const op = pathItem[method];
      if (!op || op['x-kubernetes-action'] === 'connect') continue;
      writes++;
      assert.ok(op.parameters.some((p: any) => p.name === 'fieldValidation' && p.in === 'query'), `${method} ${path}`);
      assert.ok(op.parameters.some((p: any) => p.in === 'body' && p.schema), `${method} ${path} body`);
    }
    assert.ok(writes > 100, `${writes} write operations`);
    const list = doc.paths['/api/v1/namespaces/{namespace}/pods'].get;
    for (const name of ['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch'])
      assert.ok(list.parameters.some((p: any) => p.name === name), name);
  });

  test('log, exec, attach, port-forward and proxy: their query parameters, operation names as the reference spells them, proxy paths with a path', () => {
    const doc = swaggerDocument(model, names) as any;
    const pod = '/api/v1/namespaces/{namespace}/pods/{name}';
    const names_ = (item: any) => item.parameters.map((p: any) => `${p.in}:${p.name}`);
    const log = doc.paths[`${pod}/log`];
    assert.equal(log.get.operationId, 'readCoreV1NamespacedPodLog');
    assert.deepEqual(names_(log).filter((n: string) => n.startsWith('query:')).sort(), ['container', 'follow', 'insecureSkipTLSVerifyBackend',
      'limitBytes', 'pretty', 'previous', 'sinceSeconds', 'tailLines', 'timestamps'].map(n => `query:${n}`));
    const tail = log.parameters.find((p: any) => p.name === 'tailLines');
    assert.equal(tail.type, 'integer');
    const exec = doc.paths[`${pod}/exec`];
    assert.deepEqual([exec.get.operationId, exec.post.operationId], ['connectCoreV1GetNamespacedPodExec', 'connectCoreV1PostNamespacedPodExec']);
    assert.deepEqual(names_(exec), ['path:name', 'path:namespace', 'query:command', 'query:container', 'query:stderr', 'query:stdin', 'query:stdout', 'query:tty']);
    assert.deepEqual(names_(doc.paths[`${pod}/attach`]), ['path:name', 'path:namespace', 'query:container', 'query:stderr', 'query:stdin', 'query:stdout', 'query:tty']);
    assert.deepEqual(names_(doc.paths[`${pod}/portforward`]), ['path:name', 'path:namespace', 'query:ports']);
    for (const [base, op] of [[pod, 'NamespacedPodProxy'], ['/api/v1/nodes/{name}', 'NodeProxy'], ['/api/v1/namespaces/{namespace}/services/{name}', 'NamespacedServiceProxy']]) {
      const proxy = doc.paths[`${base}/proxy`];
      const withPath = doc.paths[`${base}/proxy/{path}`];
      assert.deepEqual(Object.keys(proxy).filter(k => k !== 'parameters'), ['delete', 'get', 'head', 'patch', 'post', 'put'], base);
      assert.equal(proxy.head.operationId, `connectCoreV1Head${op}`);
      assert.equal(withPath.put.operationId, `connectCoreV1Put${op}WithPath`);
      assert.ok(names_(proxy).includes('query:path'));
      assert.ok(names_(withPath).includes('path:path') && names_(withPath).includes('query:path'));
    }
    // the same in the v3 document of the core group
    const v3 = openapi3Document(model, model.groupVersions.find(g => g.key === 'api/v1')!, names) as any;
    assert.deepEqual(v3.paths[`${pod}/exec`].parameters.map((p: any) => p.name), names_(exec).map((n: string) => n.split(':')[1]));
    assert.ok(v3.paths[`${pod}/proxy/{path}`].head);
  });

  test('custom resources: no watch paths, JSON and YAML only, no strategic merge patch', () => {
    const withCustom = createApiResources(names, () => true);
    for (const d of builtinResources) withCustom.add(d);
    withCustom.add({
      group: 'stable.example.com', resource: 'crontabs', singular: 'crontab', kind: 'CronTab', namespaced: true, verbs: [...allVerbs], custom: true,
      versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
    });
    const m = buildModel(withCustom, names);
    const doc = swaggerDocument(m, names) as any;
    const crontabs = Object.keys(doc.paths).filter(p => p.includes('/crontabs'));
    assert.deepEqual(crontabs.filter(p => p.includes('/watch/')), []);
    assert.ok(crontabs.length >= 3);
    for (const path of crontabs) for (const [method, o] of Object.entries<any>(doc.paths[path])) {
      if (method === 'parameters') continue;
      assert.deepEqual(o.produces, ['application/json', 'application/yaml'], `${method} ${path}`);
      assert.deepEqual(o.consumes, method === 'patch'
        ? ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'] : ['application/json', 'application/yaml'], `${method} ${path}`);
    }
    // built-in kinds keep their watch paths and protobuf
    assert.ok(doc.paths['/api/v1/watch/namespaces/{namespace}/pods']);
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/pods'].get.produces.includes(names.protobufMediaType));
  });

  test('v3: one document per group version, every $ref resolves inside it', () => {
    assert.deepEqual(model.groupVersions.map(g => g.key),
      resources.groups().flatMap(g => g.versions.map(v => (g.name ? `apis/${g.name}/${v}` : `api/${v}`))));
    for (const gv of model.groupVersions) {
      const doc = openapi3Document(model, gv, names) as any;
      assert.equal(doc.openapi, '3.0.0');
      const schemas = doc.components.schemas;
      for (const [where, ref] of refs(doc)) {
        assert.match(ref, /^#\/components\/schemas\//, `${gv.key}${where}`);
        assert.ok(schemas[ref.slice('#/components/schemas/'.length)], `${gv.key}${where}: ${ref} does not resolve`);
      }
      for (const e of resources.all().filter(e => `/${gv.key}` === (e.group ? `/apis/${e.group}/${e.version}` : `/api/${e.version}`))) {
        const kinds = Object.values<any>(schemas).flatMap(s => s['x-kubernetes-group-version-kind'] ?? []);
        assert.ok(kinds.some(g => g.group === e.group && g.version === e.version && g.kind === e.kind), `${gv.key} ${e.kind}`);
      }
      for (const item of Object.values<any>(doc.paths)) for (const method of writeMethods) {
        const op = item[method];
        if (op && op['x-kubernetes-action'] !== 'connect')
          assert.ok(op.parameters.some((p: any) => p.name === 'fieldValidation' && p.in === 'query' && p.schema.type === 'string'));
      }
    }
  });

  test('v3: shared definitions are references, merge markers stay on the fields', () => {
    const core = openapi3Document(model, model.groupVersions.find(g => g.key === 'api/v1')!, names) as any;
    const schemas = core.components.schemas;
    const podSpec = schemas['io.k8s.api.core.v1.PodSpec'];
    assert.deepEqual(podSpec.properties.containers.items, { $ref: '#/components/schemas/io.k8s.api.core.v1.Container' });
    assert.equal(podSpec.properties.containers['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(podSpec.properties.containers['x-kubernetes-patch-strategy'], 'merge');
    assert.deepEqual(schemas['io.k8s.api.core.v1.Pod'].properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    assert.deepEqual(schemas['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'Pod', version: 'v1' }]);
    for (const name of ['Status', 'DeleteOptions', 'Patch', 'WatchEvent', 'ListMeta'])
      assert.ok(schemas[`io.k8s.apimachinery.pkg.apis.meta.v1.${name}`], name);
    // a field that adds an annotation to a shared definition refers to it through allOf
    const policy = model.groupVersions.find(g => g.key === 'apis/policy/v1');
    if (policy) {
      const selector = (openapi3Document(model, policy, names) as any).components.schemas['io.k8s.api.policy.v1.PodDisruptionBudgetSpec'].properties.selector;
      assert.deepEqual(selector.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector' }]);
      assert.equal(selector['x-kubernetes-patch-strategy'], 'replace');
    }
  });

  test('the definitions whose shape the reference fixes are written as it writes them', () => {
    const v2 = (swaggerDocument(model, names) as any).definitions;
    const object = { type: 'object' }, dateTime = { type: 'string', format: 'date-time' }, any = {};
    assert.deepEqual(shapes(v2), {
      FieldsV1: object, IntOrString: { type: 'string', format: 'int-or-string' }, Quantity: { type: 'string' },
      Time: dateTime, MicroTime: dateTime, RawExtension: object,
      JSON: any, JSONSchemaPropsOrArray: any, JSONSchemaPropsOrBool: any, JSONSchemaPropsOrStringArray: any,
    });
    const v3 = Object.assign({}, ...model.groupVersions.map(gv => (openapi3Document(model, gv, names) as any).components.schemas));
    assert.deepEqual(shapes(v3), {
      FieldsV1: object, IntOrString: { format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] },
      Quantity: { oneOf: [{ type: 'string' }, { type: 'number' }] },
      Time: dateTime, MicroTime: dateTime, RawExtension: object,
      JSON: any, JSONSchemaPropsOrArray: any, JSONSchemaPropsOrBool: any, JSONSchemaPropsOrStringArray: any,
    });
  });

  test('JSONSchemaProps in full, referring to itself', () => {
    const props = (swaggerDocument(model, names) as any).definitions[apiext('JSONSchemaProps')];
    assert.equal(props.type, 'object');
    const ref = (k: string) => `#/definitions/${apiext(k)}`;
    const p = props.properties;
    assert.deepEqual(Object.keys(p).sort(), [
      '$ref', '$schema', 'additionalItems', 'additionalProperties', 'allOf', 'anyOf', 'default', 'definitions', 'dependencies',
      'description', 'enum', 'example', 'exclusiveMaximum', 'exclusiveMinimum', 'externalDocs', 'format', 'id', 'items',
      'maxItems', 'maxLength', 'maxProperties', 'maximum', 'minItems', 'minLength', 'minProperties', 'minimum', 'multipleOf',
      'not', 'nullable', 'oneOf', 'pattern', 'patternProperties', 'properties', 'required', 'title', 'type', 'uniqueItems',
      'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type',
      'x-kubernetes-map-type', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations']);
    assert.equal(p.properties.additionalProperties.$ref, ref('JSONSchemaProps'));
    assert.equal(p.allOf.items.$ref, ref('JSONSchemaProps'));
    assert.equal(p.not.$ref, ref('JSONSchemaProps'));
    assert.equal(p.items.$ref, ref('JSONSchemaPropsOrArray'));
    assert.equal(p.additionalProperties.$ref, ref('JSONSchemaPropsOrBool'));
    assert.equal(p.dependencies.additionalProperties.$ref, ref('JSONSchemaPropsOrStringArray'));
    assert.equal(p.default.$ref, ref('JSON'));
    assert.equal(p.enum.items.$ref, ref('JSON'));
    assert.deepEqual({ type: p.maxLength.type, format: p.maxLength.format }, { type: 'integer', format: 'int64' });
    assert.deepEqual({ type: p.minimum.type, format: p.minimum.format }, { type: 'number', format: 'double' });
    assert.equal(p['x-kubernetes-validations'].items.$ref, ref('ValidationRule'));
    assert.deepEqual(p['x-kubernetes-validations']['x-kubernetes-list-map-keys'], ['rule']);
    const rule = (swaggerDocument(model, names) as any).definitions[apiext('ValidationRule')];
    assert.deepEqual(Object.keys(rule.properties).sort(), ['message', 'messageExpression', 'rule']);
    assert.deepEqual(rule.required, ['rule']);
  });
});

// A raw protobuf reader: enough to check the encoding against the gnostic field numbers.
type Fields = Map<number, Array<Buffer | bigint>>;
function decode(b: Buffer): Fields {
  const out: Fields = new Map();
  let i = 0;
  const varint = () => { let v = 0n, shift = 0n; for (;;) { const c = b[i++]; v |= BigInt(c & 127) << shift; if (c < 128) return v; shift += 7n; } };
  while (i < b.length) {
    const key = Number(varint());
    const field = key >> 3, wire = key & 7;
    let value: Buffer | bigint;
    if (wire === 0) value = varint();
    else if (wire === 2) { const n = Number(varint()); value = b.subarray(i, i + n); i += n; }
    else if (wire === 1) { value = b.subarray(i, i + 8); i += 8; }
    else throw new Error(`unexpected wire type ${wire} at ${i}`);
    if (!out.has(field)) out.set(field, []);
    out.get(field)!.push(value);
  }
  assert.equal(i, b.length);
  return out;
}
const text = (f: Fields, n: number) => f.get(n)?.map(v => (v as Buffer).toString('utf8')) ?? [];
const msgs = (f: Fields, n: number) => f.get(n)?.map(v => decode(v as Buffer)) ?? [];
const named = (list: Fields[]) => new Map(list.map(m => [text(m, 1)[0], msgs(m, 2)[0]]));

describe('OpenAPI v2 protobuf (openapi.v2.Document)', () => {
  const { names, model } = installed('k8s.io');
  const json = swaggerDocument(model, names) as any;
  const doc = decode(encodeSwaggerDocument(json));

  test('document, paths and definitions', () => {
    assert.deepEqual(text(doc, 1), ['2.0']);
    assert.deepEqual(text(msgs(doc, 2)[0], 1), [json.info.title]);
    const paths = named(msgs(msgs(doc, 8)[0], 2));
    assert.deepEqual([...paths.keys()], Object.keys(json.paths));
    const definitions = named(msgs(msgs(doc, 9)[0], 1));
    assert.deepEqual([...definitions.keys()], Object.keys(json.definitions));

    // Pod: type object, properties in order, metadata a reference, group-version-kind as YAML text
    const pod = definitions.get('io.k8s.api.core.v1.Pod')!;
    assert.deepEqual(text(msgs(pod, 22)[0], 1), ['object']);
    const props = named(msgs(msgs(pod, 25)[0], 1));
    assert.deepEqual([...props.keys()], Object.keys(json.definitions['io.k8s.api.core.v1.Pod'].properties));
    assert.deepEqual(text(props.get('metadata')!, 1), ['#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    const ext = named(msgs(pod, 31));
    assert.deepEqual(JSON.parse(text(ext.get('x-kubernetes-group-version-kind')!, 2)[0]), [{ group: '', kind: 'Pod', version: 'v1' }]);

    // a bearer token in the Authorization header: SecurityDefinitions (13) and the document's SecurityRequirement (12)
    assert.deepEqual(json.securityDefinitions, { BearerToken: { description: 'Bearer token authentication', type: 'apiKey', name: 'authorization', in: 'header' } });
    const bearer = named(msgs(msgs(doc, 13)[0], 1)).get('BearerToken')!;
    const apiKey = msgs(bearer, 2)[0];
    assert.deepEqual([text(apiKey, 1), text(apiKey, 2), text(apiKey, 3)], [['apiKey'], ['authorization'], ['header']]);
    assert.deepEqual([...named(msgs(msgs(doc, 12)[0], 1)).keys()], ['BearerToken']);

    // containers: an array whose items refer to Container, with the merge key as an extension
    const podSpec = named(msgs(msgs(definitions.get('io.k8s.api.core.v1.PodSpec')!, 25)[0], 1));
    const containers = podSpec.get('containers')!;
    assert.deepEqual(text(msgs(msgs(containers, 23)[0], 1)[0], 1), ['#/definitions/io.k8s.api.core.v1.Container']);
    assert.equal(JSON.parse(text(named(msgs(containers, 31)).get('x-kubernetes-patch-merge-key')!, 2)[0]), 'name');
  });

  test('operations: query parameters, body and group-version-kind', () => {
    const paths = named(msgs(msgs(doc, 8)[0], 2));
    const item = paths.get('/api/v1/namespaces/{namespace}/configmaps/{name}')!;
    const patch = msgs(item, 8)[0];
    assert.deepEqual(text(patch, 5), [json.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.operationId]);
    const params = msgs(patch, 8).map(p => msgs(p, 1)[0]);
    const body = msgs(params[0], 1)[0];
    assert.deepEqual(text(body, 3), ['body']);
    const query = params.slice(1).map(p => msgs(msgs(p, 2)[0], 3)[0]);
    assert.ok(query.some(q => text(q, 4)[0] === 'fieldValidation' && text(q, 2)[0] === 'query' && text(q, 6)[0] === 'string'));
    const gvk = named(msgs(patch, 13)).get('x-kubernetes-group-version-kind')!;
    assert.deepEqual(JSON.parse(text(gvk, 2)[0]), { group: '', kind: 'ConfigMap', version: 'v1' });
    // path-level parameters: name and namespace in the path message (field 4)
    const pathParams = msgs(item, 9).map(p => msgs(msgs(msgs(p, 1)[0], 2)[0], 4)[0]).filter(Boolean);
    assert.deepEqual(pathParams.map(p => text(p, 4)[0]), ['name', 'namespace']);
    assert.ok(pathParams.every(p => p.get(1)?.[0] === 1n));
    // responses: 200 refers to ConfigMap
    const responses = named(msgs(msgs(patch, 9)[0], 1));
    const ok = msgs(msgs(responses.get('200')!, 1)[0], 2)[0];
    assert.deepEqual(text(msgs(ok, 1)[0], 1), ['#/definitions/io.k8s.api.core.v1.ConfigMap']);
  });
});

describe('OpenAPI v3 protobuf (openapi.v3.Document)', () => {
  const { names, model } = installed('k8s.io');
  const gv = model.groupVersions.find(g => g.key === 'api/v1')!;
  const json = openapi3Document(model, gv, names) as any;
  const doc = decode(encodeOpenAPIv3Document(json));
  // SchemaOrReference { schema = 1 | reference = 2 }
  const schemaOf = (sor: Fields) => msgs(sor, 1)[0];
  const refOf = (sor: Fields) => text(msgs(sor, 2)[0] ?? new Map(), 1)[0];

  test('document, paths and component schemas', () => {
    assert.deepEqual(text(doc, 1), ['3.0.0']);
    assert.deepEqual(text(msgs(doc, 2)[0], 1), [json.info.title]);
    assert.deepEqual(text(msgs(doc, 2)[0], 6), [json.info.version]);
    const paths = named(msgs(msgs(doc, 4)[0], 1));
    assert.deepEqual([...paths.keys()], Object.keys(json.paths));
    const schemas = named(msgs(msgs(msgs(doc, 5)[0], 1)[0], 1));
    assert.deepEqual([...schemas.keys()], Object.keys(json.components.schemas));

    // Pod: type object (a plain string in v3), its properties, metadata an allOf reference beside its description
    const pod = schemaOf(schemas.get('io.k8s.api.core.v1.Pod')!);
    assert.deepEqual(text(pod, 25), ['object']);
    const props = named(msgs(msgs(pod, 31)[0], 1));
    assert.deepEqual([...props.keys()], Object.keys(json.components.schemas['io.k8s.api.core.v1.Pod'].properties));
    const metadata = schemaOf(props.get('metadata')!);
    assert.equal(refOf(msgs(metadata, 26)[0]), '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.match(text(metadata, 34)[0], /\w/);
    const ext = named(msgs(pod, 36));
    assert.deepEqual(JSON.parse(text(ext.get('x-kubernetes-group-version-kind')!, 2)[0]), [{ group: '', kind: 'Pod', version: 'v1' }]);

    // a bearer token in the Authorization header: Components.security_schemes (7), the document's security (6)
    assert.deepEqual(json.security, [{ BearerToken: [] }]);
    const scheme = msgs(named(msgs(msgs(msgs(doc, 5)[0], 7)[0], 1)).get('BearerToken')!, 1)[0];
    assert.deepEqual([text(scheme, 1), text(scheme, 3), text(scheme, 4)], [['apiKey'], ['authorization'], ['header']]);
    assert.deepEqual([...named(msgs(msgs(doc, 6)[0], 1)).keys()], ['BearerToken']);

    // containers: items refer to Container, the merge key as an extension; a default string as DefaultType
    const podSpec = named(msgs(msgs(schemaOf(schemas.get('io.k8s.api.core.v1.PodSpec')!), 31)[0], 1));
    const containers = schemaOf(podSpec.get('containers')!);
    assert.equal(refOf(msgs(msgs(containers, 30)[0], 1)[0]), '#/components/schemas/io.k8s.api.core.v1.Container');
    assert.equal(JSON.parse(text(named(msgs(containers, 36)).get('x-kubernetes-patch-merge-key')!, 2)[0]), 'name');
    const port = named(msgs(msgs(schemaOf(schemas.get('io.k8s.api.core.v1.ContainerPort')!), 31)[0], 1));
    assert.deepEqual(text(msgs(schemaOf(port.get('protocol')!), 33)[0], 3), ['TCP']);
    assert.deepEqual(text(schemaOf(port.get('containerPort')!), 35), ['int32']);
  });

  test('operations: parameters, request body, responses and extensions', () => {
    const path = '/api/v1/namespaces/{namespace}/configmaps/{name}';
    const item = named(msgs(msgs(doc, 4)[0], 1)).get(path)!;
    const patch = msgs(item, 10)[0];
    assert.deepEqual(text(patch, 5), [json.paths[path].patch.operationId]);
    // ParameterOrReference { parameter = 1 }, Parameter { name = 1; in = 2; schema = 10 }
    const params = msgs(patch, 6).map(p => msgs(p, 1)[0]);
    const validation = params.find(p => text(p, 1)[0] === 'fieldValidation')!;
    assert.deepEqual(text(validation, 2), ['query']);
    assert.deepEqual(text(schemaOf(msgs(validation, 10)[0]), 25), ['string']);
    // RequestBodyOrReference { request_body = 1 }, RequestBody { content = 2; required = 3 }
    const body = msgs(msgs(patch, 7)[0], 1)[0];
    assert.deepEqual([...named(msgs(msgs(body, 2)[0], 1)).keys()], Object.keys(json.paths[path].patch.requestBody.content));
    assert.equal(body.get(3)?.[0], 1n);
    // Responses { response_or_reference = 2 }, ResponseOrReference { response = 1 }, Response { content = 3 }
    const ok = msgs(named(msgs(msgs(patch, 8)[0], 2)).get('200')!, 1)[0];
    const okJson = named(msgs(msgs(ok, 3)[0], 1)).get('application/json')!;
    assert.equal(refOf(msgs(okJson, 1)[0]), '#/components/schemas/io.k8s.api.core.v1.ConfigMap');
    const ext = named(msgs(patch, 13));
    assert.equal(JSON.parse(text(ext.get('x-kubernetes-action')!, 2)[0]), 'patch');
    // path-level parameters (field 13): name, namespace, pretty
    assert.deepEqual(msgs(item, 13).map(p => text(msgs(p, 1)[0], 1)[0]), json.paths[path].parameters.map((p: any) => p.name));
  });
});
