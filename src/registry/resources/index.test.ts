import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinResources } from './index.js';
import type { ResourceDefinition } from '../types.js';
import { defaultStrategy } from '../strategy.js';
import type { Schema } from '../../api/schema.js';
import { fieldSchema } from '../../api/schema.js';

const key = (d: ResourceDefinition) => `${d.group}/${d.resource}`;
const find = (group: string, resource: string) => {
  const d = builtinResources.find(r => r.group === group && r.resource === resource);
  assert.ok(d, `${group}/${resource} is in the catalog`);
  return d;
};
const schemaOf = (group: string, resource: string, version = find(group, resource).versions[0].name) =>
  find(group, resource).versions.find(v => v.name === version)!.schema!;
/** the schema at a dotted path; `[]` steps into list items */
function at(s: Schema, path: string): Schema {
  let cur: Schema | undefined = s;
  for (const step of path.split('.')) {
    cur = step === '[]' ? cur?.items : fieldSchema(cur, step);
    assert.ok(cur, `schema has ${path} (stopped at ${step})`);
  }
  return cur;
}

/** every schema node reachable from the catalog, each once, with a path for messages */
function* walk(): Generator<[Schema, string]> {
  const seen = new Set<Schema>();
  function* visit(s: Schema, path: string): Generator<[Schema, string]> {
    if (seen.has(s)) return;
    seen.add(s);
    yield [s, path];
    for (const [name, p] of Object.entries(s.properties ?? {})) yield* visit(p, `${path}.${name}`);
    if (s.items) yield* visit(s.items, `${path}[]`);
    if (typeof s.additionalProperties === 'object') yield* visit(s.additionalProperties, `${path}{}`);
  }
  for (const d of builtinResources) for (const v of d.versions) if (v.schema) yield* visit(v.schema, `${key(d)}@${v.name}`);
}

describe('built-in resource catalog', () => {
  test('each (group, resource) is declared once', () => {
    const keys = builtinResources.map(key);
    assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), []);
  });

  test('metadata.generation is kept only by the stored kinds whose reference strategy sets it', () => {
    // the reference sets generation per strategy; these stored kinds never get one
    const without = [
      '/configmaps', '/endpoints', '/events', '/limitranges', '/namespaces', '/nodes', '/persistentvolumeclaims',
      '/persistentvolumes', '/pods', '/podtemplates', '/resourcequotas', '/secrets', '/serviceaccounts', '/services',
      'apps/controllerrevisions', 'autoscaling/horizontalpodautoscalers', 'coordination/leases', 'events/events',
      'node/runtimeclasses', 'scheduling/priorityclasses', 'storage/csinodes', 'storage/csistoragecapacities',
      'storage/storageclasses', 'storage/volumeattachments', 'certificates/certificatesigningrequests',
      'apiregistration/apiservices', 'rbac.authorization/clusterrolebindings', 'rbac.authorization/clusterroles',
      'rbac.authorization/rolebindings', 'rbac.authorization/roles',
    ];
    const keeping = (k: string) => (builtinResources.find(d => key(d) === k)?.strategy ?? defaultStrategy).generation;
    assert.deepEqual(without.filter(keeping), []);
    for (const k of ['apps/deployments', 'batch/jobs', '/replicationcontrollers', 'networking/ingresses', 'policy/poddisruptionbudgets',
      'storage/csidrivers', 'discovery/endpointslices', 'networking/ingressclasses', 'networking/networkpolicies'])
      assert.equal(keeping(k), true, k);
  });

  test('covers exactly the resources kube-apiserver 1.27 serves (alpha ones included, gated by the server)', () => {
    const expected = [
      '/bindings', '/componentstatuses', '/configmaps', '/endpoints', '/events', '/limitranges', '/namespaces', '/nodes',
      '/persistentvolumeclaims', '/persistentvolumes', '/pods', '/podtemplates', '/replicationcontrollers',
      '/resourcequotas', '/secrets', '/serviceaccounts', '/services',
      'apps/controllerrevisions', 'apps/daemonsets', 'apps/deployments', 'apps/replicasets', 'apps/statefulsets',
      'batch/cronjobs', 'batch/jobs', 'autoscaling/horizontalpodautoscalers', 'policy/poddisruptionbudgets',
      'networking/ingressclasses', 'networking/ingresses', 'networking/networkpolicies', 'discovery/endpointslices',
      'events/events', 'coordination/leases', 'scheduling/priorityclasses', 'node/runtimeclasses',
      'storage/csidrivers', 'storage/csinodes', 'storage/csistoragecapacities', 'storage/storageclasses',
      'storage/volumeattachments',
      'rbac.authorization/clusterrolebindings', 'rbac.authorization/clusterroles', 'rbac.authorization/rolebindings',
      'rbac.authorization/roles', 'certificates/certificatesigningrequests',
      'admissionregistration/mutatingwebhookconfigurations', 'admissionregistration/validatingwebhookconfigurations',
      'admissionregistration/validatingadmissionpolicies', 'admissionregistration/validatingadmissionpolicybindings',
      'apiextensions/customresourcedefinitions', 'apiregistration/apiservices',
      'authentication/selfsubjectreviews', 'authentication/tokenreviews',
      'authorization/localsubjectaccessreviews', 'authorization/selfsubjectaccessreviews',
      'authorization/selfsubjectrulesreviews', 'authorization/subjectaccessreviews',
      'flowcontrol.apiserver/flowschemas', 'flowcontrol.apiserver/prioritylevelconfigurations',
    ];
    assert.deepEqual(builtinResources.map(key).sort(), expected.sort());
  });

  test('groups carrying the domain suffix are marked, the plain ones are not', () => {
    const plain = new Set(['', 'apps', 'batch', 'autoscaling', 'policy']);
    for (const d of builtinResources) {
      assert.equal(!!d.domainGroup, !plain.has(d.group), key(d));
      assert.ok(!/\.(io|com)$/.test(d.group), `${key(d)} spells the base group only`);
    }
  });

  test('every kind has a list kind, a singular name and a lower-case plural resource', () => {
    for (const d of builtinResources) {
      assert.ok(d.listKind && d.listKind.startsWith(d.kind) && d.listKind.endsWith('List'), key(d));
      assert.equal(d.singular, d.kind.toLowerCase(), key(d));
      assert.match(d.resource, /^[a-z]+$/, key(d));
    }
  });

  test('each resource has exactly one storage version and every version a whole-object schema', () => {
    for (const d of builtinResources) {
      assert.equal(d.versions.filter(v => v.storage).length, 1, key(d));
      for (const v of d.versions) {
        const props = v.schema?.properties ?? {};
        for (const f of ['apiVersion', 'kind', 'metadata']) assert.ok(props[f], `${key(d)}@${v.name} has ${f}`);
        assert.ok(props.metadata.properties?.name, `${key(d)} metadata is ObjectMeta`);
      }
    }
  });

  test('short names are unique, except the one events resource shared by two groups', () => {
    const owners = new Map<string, Set<string>>();
    for (const d of builtinResources) {
      for (const s of d.shortNames ?? []) owners.set(s, (owners.get(s) ?? new Set()).add(d.resource));
    }
    for (const [short, resources] of owners) assert.equal(resources.size, 1, `short name ${short} names ${[...resources]}`);
    // a short name must not shadow another resource's plural
    const plurals = new Set(builtinResources.map(d => d.resource));
    for (const short of owners.keys()) assert.ok(!plurals.has(short), short);
  });

  test('category all is exactly the reference set', () => {
    const all = builtinResources.filter(d => d.categories?.includes('all')).map(d => d.resource).sort();
    assert.deepEqual(all, [
      'cronjobs', 'daemonsets', 'deployments', 'horizontalpodautoscalers', 'jobs', 'pods', 'replicasets',
      'replicationcontrollers', 'services', 'statefulsets',
    ]);
    const ext = builtinResources.filter(d => d.categories?.includes('api-extensions')).map(d => d.resource).sort();
    assert.deepEqual(ext, [
      'apiservices', 'customresourcedefinitions', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies',
      'validatingadmissionpolicybindings', 'validatingwebhookconfigurations',
    ]);
  });

  test('reference facts of kubectl api-resources', () => {
    const pods = find('', 'pods');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.equal(pods.namespaced, true);
    assert.deepEqual(Object.keys(pods.subresources!).sort(), [
      'attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'status',
    ]);
    const { rest: evict, schema: evictionSchema, ...eviction } = pods.subresources!.eviction;
    assert.deepEqual(eviction, { verbs: ['create'], kind: 'Eviction', group: 'policy', version: 'v1' });
    assert.equal(evictionSchema?.['x-ref'], 'io.k8s.api.policy.v1.Eviction');
    assert.ok(evict?.create, 'eviction is served by its own handler');
    assert.deepEqual(find('apps', 'deployments').shortNames, ['deploy']);
    assert.deepEqual(find('apps', 'deployments').subresources!.scale.kind, 'Scale');
    assert.deepEqual(find('', 'services').shortNames, ['svc']);
    assert.deepEqual(find('apiextensions', 'customresourcedefinitions').shortNames, ['crd', 'crds']);
    assert.deepEqual(find('', 'resourcequotas').shortNames, ['quota']);
    assert.deepEqual(find('', 'limitranges').shortNames, ['limits']);
    assert.deepEqual(find('', 'namespaces').verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    assert.deepEqual(find('', 'namespaces').subresources!.finalize.verbs, ['update']);
    assert.deepEqual(find('', 'componentstatuses').verbs, ['get', 'list']);
    assert.deepEqual(find('', 'bindings').verbs, ['create']);
    assert.equal(find('', 'nodes').namespaced, false);
    assert.equal(find('authorization', 'localsubjectaccessreviews').namespaced, true);
    assert.equal(find('authorization', 'subjectaccessreviews').namespaced, false);
    for (const d of builtinResources.filter(r => r.group === 'authorization' || r.group === 'authentication')) {
      assert.deepEqual(d.verbs, ['create'], key(d));
    }
    const { rest: _handler, schema: tokenSchema, ...token } = find('', 'serviceaccounts').subresources!.token;
    assert.deepEqual(token, { verbs: ['create'], kind: 'TokenRequest', group: 'authentication', domainGroup: true, version: 'v1' });
    assert.equal(tokenSchema?.['x-ref'], 'io.k8s.api.authentication.v1.TokenRequest');
    assert.deepEqual(find('certificates', 'certificatesigningrequests').subresources!.approval.verbs, ['get', 'patch', 'update']);
    assert.equal(find('authentication', 'selfsubjectreviews').versions[0].name, 'v1beta1');
  });

  test('autoscaling serves v2 and v1, stores v2; alpha versions are only the two admission policies and SelfSubjectReview\'s v1alpha1', () => {
    const hpa = find('autoscaling', 'horizontalpodautoscalers');
    assert.deepEqual(hpa.versions.map(v => [v.name, v.served, v.storage]), [['v2', true, true], ['v1', true, false]]);
    assert.ok(hpa.versions[0].schema?.properties?.spec?.properties?.metrics);
    assert.ok(hpa.versions[1].schema?.properties?.spec?.properties?.targetCPUUtilizationPercentage);
    const alpha = builtinResources.filter(d => d.versions.some(v => v.name.includes('alpha'))).map(d => d.resource).sort();
    assert.deepEqual(alpha, ['selfsubjectreviews', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings']);
    assert.deepEqual(find('authentication', 'selfsubjectreviews').versions.map(v => [v.name, v.served, v.storage]), [['v1beta1', true, true], ['v1alpha1', true, false]]);
  });
});

describe('schema merge markers', () => {
  const strategies = new Set(['merge', 'replace', 'retainKeys', 'merge,retainKeys']);

  test('markers are well formed wherever they appear', () => {
    let maps = 0;
    for (const [s, path] of walk()) {
      const listType = s['x-kubernetes-list-type'];
      if (listType || s['x-kubernetes-patch-merge-key']) assert.equal(s.type, s.format === 'byte' ? 'string' : 'array', path);
      if (s['x-kubernetes-map-type']) assert.equal(s.type, 'object', path);
      if (s['x-kubernetes-patch-strategy']) assert.ok(strategies.has(s['x-kubernetes-patch-strategy']), path);
      if (s['x-kubernetes-list-map-keys']) assert.equal(listType, 'map', path);
      if (listType === 'map') {
        maps++;
        const keys = s['x-kubernetes-list-map-keys'] ?? [];
        assert.ok(keys.length > 0, `${path} map list has keys`);
        for (const k of keys) {
          const field = s.items?.properties?.[k];
          assert.ok(field, `${path}: key ${k} is a field of the item`);
          // apply needs every key on every item: required or defaulted
          assert.ok(s.items?.required?.includes(k) || field.default !== undefined, `${path}: key ${k} required or defaulted`);
          assert.ok(field.type === 'string' || field.type === 'integer' || field.type === 'boolean', `${path}: key ${k} is scalar`);
        }
      }
      if (listType === 'set') assert.notEqual(s.items?.type, 'object', `${path}: set items are scalars`);
      const mergeKey = s['x-kubernetes-patch-merge-key'];
      if (mergeKey) {
        assert.ok(s.items?.properties?.[mergeKey], `${path}: merge key ${mergeKey} is a field of the item`);
        assert.match(s['x-kubernetes-patch-strategy'] ?? '', /merge/, `${path}: a merge key comes with the merge strategy`);
      }
    }
    assert.ok(maps >= 10, 'the catalog declares map lists');
  });

  test('required fields are declared properties', () => {
    for (const [s, path] of walk()) {
      for (const r of s.required ?? []) assert.ok(s.properties?.[r], `${path} requires ${r}`);
    }
  });

  test('shared definitions are one object wherever they are used', () => {
    const byRef = new Map<string, Set<Schema>>();
    for (const [s] of walk()) {
      const ref = s['x-ref'];
      if (ref) byRef.set(ref, (byRef.get(ref) ?? new Set()).add(s));
    }
    // a few definitions legitimately come in copies with a marker added at the use site (PDB selector)
    const copies = [...byRef].filter(([ref, set]) => set.size > 1 && !ref.endsWith('LabelSelector')).map(([ref]) => ref);
    assert.deepEqual(copies, []);
  });

  test('pod markers match the reference', () => {
    const spec = at(schemaOf('', 'pods'), 'spec');
    const markers = (s: Schema) => ({
      key: s['x-kubernetes-patch-merge-key'], strategy: s['x-kubernetes-patch-strategy'],
      listType: s['x-kubernetes-list-type'], keys: s['x-kubernetes-list-map-keys'],
    });
    assert.deepEqual(markers(at(spec, 'containers')), { key: 'name', strategy: 'merge', listType: undefined, keys: undefined });
    assert.deepEqual(markers(at(spec, 'initContainers')), { key: 'name', strategy: 'merge', listType: undefined, keys: undefined });
    assert.deepEqual(markers(at(spec, 'volumes')), { key: 'name', strategy: 'merge,retainKeys', listType: undefined, keys: undefined });
    assert.deepEqual(markers(at(spec, 'containers.[].ports')),
      { key: 'containerPort', strategy: 'merge', listType: 'map', keys: ['containerPort', 'protocol'] });
    assert.equal(at(spec, 'containers.[].ports.[].protocol').default, 'TCP');
    assert.deepEqual(markers(at(spec, 'containers.[].env')), { key: 'name', strategy: 'merge', listType: undefined, keys: undefined });
    assert.equal(at(spec, 'containers.[].volumeMounts')['x-kubernetes-patch-merge-key'], 'mountPath');
    assert.equal(at(spec, 'containers.[].volumeDevices')['x-kubernetes-patch-merge-key'], 'devicePath');
    assert.deepEqual(markers(at(spec, 'tolerations')), { key: undefined, strategy: undefined, listType: undefined, keys: undefined });
    assert.deepEqual(markers(at(spec, 'topologySpreadConstraints')),
      { key: 'topologyKey', strategy: 'merge', listType: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] });
    assert.equal(at(spec, 'imagePullSecrets')['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(at(spec, 'hostAliases')['x-kubernetes-patch-merge-key'], 'ip');
    assert.equal(at(spec, 'nodeSelector')['x-kubernetes-map-type'], 'atomic');
    assert.equal(at(spec, 'affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution')['x-kubernetes-map-type'], 'atomic');
    assert.equal(at(spec, 'containers.[].resources.limits.cpu')['x-kubernetes-int-or-string'], undefined);
    assert.equal(at(spec, 'containers.[].resources.limits.cpu').format, 'quantity');
    assert.equal(at(spec, 'containers.[].livenessProbe.httpGet.port')['x-kubernetes-int-or-string'], true);
    assert.equal(at(spec, 'terminationGracePeriodSeconds').format, 'int64');
    assert.deepEqual(at(spec, 'restartPolicy').enum, ['Always', 'Never', 'OnFailure']);
    assert.deepEqual(spec.required, ['containers']);
    const status = at(schemaOf('', 'pods'), 'status');
    assert.equal(at(status, 'conditions')['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(at(status, 'podIPs')['x-kubernetes-patch-merge-key'], 'ip');
  });

  test('metadata, service and workload markers match the reference', () => {
    const meta = at(schemaOf('', 'configmaps'), 'metadata');
    assert.equal(at(meta, 'finalizers')['x-kubernetes-list-type'], 'set');
    assert.equal(at(meta, 'finalizers')['x-kubernetes-patch-strategy'], 'merge');
    assert.deepEqual(at(meta, 'ownerReferences')['x-kubernetes-list-map-keys'], ['uid']);
    assert.equal(at(meta, 'ownerReferences')['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(at(meta, 'creationTimestamp').format, 'date-time');
    assert.equal(at(meta, 'generation').format, 'int64');

    const svc = at(schemaOf('', 'services'), 'spec');
    assert.deepEqual(at(svc, 'ports')['x-kubernetes-list-map-keys'], ['port', 'protocol']);
    assert.equal(at(svc, 'ports')['x-kubernetes-patch-merge-key'], 'port');
    assert.equal(at(svc, 'clusterIPs')['x-kubernetes-list-type'], 'atomic');
    assert.equal(at(svc, 'selector')['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(at(schemaOf('', 'services'), 'status.conditions')['x-kubernetes-list-map-keys'], ['type']);

    assert.equal(at(schemaOf('', 'secrets'), 'data.x').format, 'byte');
    assert.equal(at(schemaOf('', 'configmaps'), 'binaryData.x').format, 'byte');
    assert.equal(at(schemaOf('', 'nodes'), 'spec.podCIDRs')['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(at(schemaOf('', 'nodes'), 'status.addresses')['x-kubernetes-patch-merge-key'], 'type');
    assert.equal(at(schemaOf('', 'serviceaccounts'), 'secrets')['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(at(schemaOf('apps', 'deployments'), 'spec.strategy.rollingUpdate.maxSurge')['x-kubernetes-int-or-string'], true);
    assert.equal(at(schemaOf('apps', 'deployments'), 'spec.selector')['x-kubernetes-map-type'], 'atomic');
    assert.equal(at(schemaOf('apps', 'deployments'), 'status.conditions')['x-kubernetes-patch-merge-key'], 'type');
    assert.deepEqual(at(schemaOf('apps', 'statefulsets'), 'spec').required, ['selector', 'template', 'serviceName']);
    assert.equal(at(schemaOf('batch', 'jobs'), 'status.conditions')['x-kubernetes-list-type'], 'atomic');
    assert.equal(at(schemaOf('batch', 'cronjobs'), 'spec.jobTemplate.spec.template.spec.containers')['x-kubernetes-patch-merge-key'], 'name');
    assert.equal(at(schemaOf('coordination', 'leases'), 'spec.renewTime').format, 'date-time');
    assert.equal(at(schemaOf('rbac.authorization', 'rolebindings'), 'roleRef')['x-kubernetes-map-type'], 'atomic');
    assert.deepEqual(at(schemaOf('rbac.authorization', 'clusterroles'), 'rules.[]').required, ['verbs']);
  });
});

describe('catalog sources', () => {
  test('no vendor domain literals in the catalog or the schemas', () => {
    // compiled tests run from a build folder: find the repository root (the folder with package.json)
    let root = dirname(fileURLToPath(import.meta.url));
    while (!existsSync(join(root, 'package.json'))) root = dirname(root);
    const sourceRoot = root;
    for (const dir of [join(sourceRoot, 'src', 'registry', 'resources'), join(sourceRoot, 'src', 'api', 'schemas')]) {
      for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(n => n.endsWith('.ts'))) {
        const text = readFileSync(join(dir, f), 'utf8');
        for (const literal of ['k8s' + '.io', 'cluster' + '.io', 'kubernetes' + '.io']) {
          assert.ok(!text.includes(literal), `${f} spells ${literal}`);
        }
      }
    }
  });
});
