// CRUD, object metadata, two-phase deletion and write options against the three storage backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend, configMap } from './servers.js';
import { waitFor } from '../support/wait.js';

const pod = (name: string, containers = [{ name: 'a', image: 'img:1' }]) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers } });

eachBackend('crud', h => {
  const c = () => h.client();

  test('namespaced CRUD: create, get, update, stale update, delete', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await c().request('POST', base, { body: configMap('one', { a: '1' }) });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.json.metadata.namespace, ns);
    assert.equal(created.headers['content-type'], 'application/json');

    const got = await c().get(`${base}/one`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json.data, { a: '1' });
    assert.equal(got.json.kind, 'ConfigMap');
    assert.equal(got.json.apiVersion, 'v1');

    const updated = await c().request('PUT', `${base}/one`, { body: { ...got.json, data: { a: '2' } } });
    assert.equal(updated.status, 200, updated.body);
    assert.deepEqual(updated.json.data, { a: '2' });
    assert.notEqual(updated.json.metadata.resourceVersion, got.json.metadata.resourceVersion);

    const stale = await c().request('PUT', `${base}/one`, { body: { ...got.json, data: { a: '3' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.kind, 'Status');
    assert.equal(stale.json.reason, 'Conflict');
    assert.equal(stale.json.details.name, 'one');

    // PUT of a missing ConfigMap does not create it
    const missing = await c().request('PUT', `${base}/nope`, { body: configMap('nope') });
    assert.equal(missing.status, 404);

    const dup = await c().request('POST', base, { body: configMap('one') });
    assert.equal(dup.status, 409);
    assert.equal(dup.json.reason, 'AlreadyExists');

    const del = await c().request('DELETE', `${base}/one`);
    assert.equal(del.status, 200, del.body);
    assert.equal(del.json.kind, 'Status');
    assert.equal(del.json.status, 'Success');
    assert.equal(del.json.details.name, 'one');
    assert.equal(del.json.details.uid, created.json.metadata.uid);
    const gone = await c().get(`${base}/one`);
    assert.equal(gone.status, 404);
    assert.equal(gone.json.reason, 'NotFound');
    assert.equal(gone.json.message, 'configmaps "one" not found');
    assert.equal((await c().request('DELETE', `${base}/one`)).status, 404);
  });

  test('cluster-scoped CRUD and PUT creating where allowed', async () => {
    const name = `cr-${h.backend}-${Date.now()}`;
    const base = '/apis/rbac.authorization.cluster.io/v1/clusterroles';
    const body = { apiVersion: 'rbac.authorization.cluster.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [] };
    const put = await c().request('PUT', `${base}/${name}`, { body });
    assert.equal(put.status, 201, put.body);
    assert.equal(put.json.metadata.namespace, undefined);
    const again = await c().request('PUT', `${base}/${name}`, { body: { ...body, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } });
    assert.equal(again.status, 200, again.body);
    assert.equal(again.json.rules.length, 1);
    const list = await c().get(base);
    assert.ok(list.json.items.some((i: any) => i.metadata.name === name));
    assert.equal(list.json.kind, 'ClusterRoleList');
    // a cluster-scoped resource under a namespace path is not found
    assert.equal((await c().get(`/apis/rbac.authorization.cluster.io/v1/namespaces/default/clusterroles/${name}`)).status, 404);
    const del = await c().request('DELETE', `${base}/${name}`);
    assert.equal(del.status, 200);
    assert.equal((await c().get(`${base}/${name}`)).status, 404);
  });

  test('a Node keeps the status it is created with (its agent registers it so); other kinds start with none', async () => {
    const name = `node-${h.backend}-${Date.now()}`;
    const status = { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
      addresses: [{ type: 'InternalIP', address: '10.0.0.7' }], conditions: [{ type: 'Ready', status: 'True', reason: 'AgentReady', message: 'ready' }] };
    const made = await c().request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name }, status } });
    assert.equal(made.status, 201, made.body);
    assert.deepEqual(made.json.status.capacity, status.capacity);
    assert.deepEqual((await c().get(`/api/v1/nodes/${name}`)).json.status.addresses, status.addresses);
    const negative = await c().request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `${name}-bad` },
      status: { capacity: { cpu: '-1' } } } });
    assert.equal(negative.status, 422, negative.body);
    assert.match(negative.json.message, /status\.capacity\.cpu: Invalid value: "-1": must be greater than or equal to 0/);
    await c().request('DELETE', `/api/v1/nodes/${name}`);

    const svc = await c().request('POST', '/api/v1/namespaces/default/services', { body: { apiVersion: 'v1', kind: 'Service',
      metadata: { name: `svc-${h.backend}-${Date.now()}` }, spec: { ports: [{ port: 80 }] }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } } });
    assert.equal(svc.status, 201, svc.body);
    assert.deepEqual(svc.json.status, { loadBalancer: {} });
    await c().request('DELETE', `/api/v1/namespaces/default/services/${svc.json.metadata.name}`);
  });

  test('patch: json, merge, strategic (containers merged by name), unknown type 415', async () => {
    const ns = await h.namespace();
    // a Deployment's pod template may change where a Pod's spec may not
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'p' },
      spec: { selector: { matchLabels: { app: 'p' } }, template: { metadata: { labels: { app: 'p' } }, spec: { containers: [{ name: 'a', image: 'img:1' }] } } },
    };
    assert.equal((await c().request('POST', base, { body: deployment })).status, 201);

    const merge = await c().request('PATCH', `${base}/p`, { body: { metadata: { labels: { x: '1' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(merge.status, 200, merge.body);
    assert.deepEqual(merge.json.metadata.labels, { x: '1' });

    const json = await c().request('PATCH', `${base}/p`, { body: [{ op: 'add', path: '/metadata/labels/y', value: '2' }], contentType: 'application/json-patch+json' });
    assert.equal(json.status, 200, json.body);
    assert.deepEqual(json.json.metadata.labels, { x: '1', y: '2' });

    const smp = await c().request('PATCH', `${base}/p`, {
      body: { spec: { template: { spec: { containers: [{ name: 'b', image: 'img:2' }, { name: 'a', image: 'img:3' }] } } } }, contentType: 'application/strategic-merge-patch+json',
    });
    assert.equal(smp.status, 200, smp.body);
    const byName = Object.fromEntries(smp.json.spec.template.spec.containers.map((x: any) => [x.name, x.image]));
    assert.deepEqual(byName, { a: 'img:3', b: 'img:2' });

    // a merge patch replaces the list
    const mergeList = await c().request('PATCH', `${base}/p`, { body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'img:4' }] } } } }, contentType: 'application/merge-patch+json' });
    assert.equal(mergeList.status, 200, mergeList.body);
    assert.deepEqual(mergeList.json.spec.template.spec.containers.map((x: any) => x.name), ['c']);

    const bad = await c().request('PATCH', `${base}/p`, { body: {}, contentType: 'application/x-unknown-patch' });
    assert.equal(bad.status, 415);
    assert.equal(bad.json.reason, 'UnsupportedMediaType');
    assert.equal(bad.json.message, 'the body of the request was in an unknown format - accepted media types include: '
      + 'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml');

    const failedTest = await c().request('PATCH', `${base}/p`, { body: [{ op: 'test', path: '/metadata/name', value: 'other' }], contentType: 'application/json-patch+json' });
    assert.ok(failedTest.status === 422 || failedTest.status === 400 || failedTest.status === 500, failedTest.body);
    assert.equal(failedTest.json.kind, 'Status');

    const absent = await c().request('PATCH', `${base}/absent`, { body: {}, contentType: 'application/merge-patch+json' });
    assert.equal(absent.status, 404);
  });

  test('deletecollection with a label selector', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    for (const [n, l] of [['a', 'x'], ['b', 'x'], ['c', 'y']])
      assert.equal((await c().request('POST', base, { body: configMap(n, {}, { app: l }) })).status, 201);
    const del = await c().request('DELETE', `${base}?labelSelector=app%3Dx`);
    assert.equal(del.status, 200, del.body);
    const left = await c().get(base);
    assert.deepEqual(left.json.items.map((i: any) => i.metadata.name), ['c']);
  });

  test('metadata: generateName, uid, creationTimestamp, resourceVersion, generation', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const gen = await c().request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
    assert.equal(gen.status, 201, gen.body);
    assert.match(gen.json.metadata.name, /^gen-[a-z0-9]{5}$/);
    assert.match(gen.json.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(gen.json.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(gen.json.metadata.resourceVersion, /^\d+$/);
    const gen2 = await c().request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } } });
    assert.notEqual(gen2.json.metadata.name, gen.json.metadata.name);
    assert.notEqual(gen2.json.metadata.uid, gen.json.metadata.uid);

    // a create naming a version is refused as the reference's storage refuses it (500, no reason); dry run passes
    const withRv = await c().request('POST', base, { body: { ...configMap('rv'), metadata: { name: 'rv', resourceVersion: '5' } } });
    assert.equal(withRv.status, 500);
    assert.equal(withRv.json.message, 'resourceVersion should not be set on objects to be created');
    assert.equal(withRv.json.reason, undefined);
    assert.equal((await c().get(`${base}/rv`)).status, 404);

    // client-set uid and creationTimestamp are replaced
    const set = await c().request('POST', base, { body: { ...configMap('set'), metadata: { name: 'set', uid: 'mine', creationTimestamp: '2000-01-01T00:00:00Z' } } });
    assert.notEqual(set.json.metadata.uid, 'mine');
    assert.notEqual(set.json.metadata.creationTimestamp, '2000-01-01T00:00:00Z');

    // a no-op update keeps the resourceVersion; a real one moves it; uid and creationTimestamp stay
    const noop = await c().request('PUT', `${base}/set`, { body: set.json });
    assert.equal(noop.status, 200, noop.body);
    assert.equal(noop.json.metadata.resourceVersion, set.json.metadata.resourceVersion);
    // another uid is a precondition that fails, as the reference takes it; without one the uid stays
    const otherUid = await c().request('PUT', `${base}/set`, { body: { ...set.json, data: { k: 'v' }, metadata: { ...set.json.metadata, uid: 'other' } } });
    assert.equal(otherUid.status, 409, otherUid.body);
    const { uid: _uid, creationTimestamp: _at, ...withoutUid } = set.json.metadata;
    const changed = await c().request('PUT', `${base}/set`, { body: { ...set.json, data: { k: 'v' }, metadata: withoutUid } });
    assert.equal(changed.status, 200, changed.body);
    assert.ok(Number(changed.json.metadata.resourceVersion) > Number(set.json.metadata.resourceVersion));
    assert.equal(changed.json.metadata.uid, set.json.metadata.uid);
    assert.equal(changed.json.metadata.creationTimestamp, set.json.metadata.creationTimestamp);
    const noopPatch = await c().request('PATCH', `${base}/set`, { body: { data: { k: 'v' } }, contentType: 'application/merge-patch+json' });
    assert.equal(noopPatch.json.metadata.resourceVersion, changed.json.metadata.resourceVersion);

    // generation moves on spec changes only
    const dbase = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const dep = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'a', image: 'i' }] } } },
    };
    const d = await c().request('POST', dbase, { body: dep });
    assert.equal(d.status, 201, d.body);
    assert.equal(d.json.metadata.generation, 1);
    const labelled = await c().request('PATCH', `${dbase}/d`, { body: { metadata: { labels: { z: '1' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(labelled.json.metadata.generation, 1);
    const scaled = await c().request('PATCH', `${dbase}/d`, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
    assert.equal(scaled.status, 200, scaled.body);
    assert.equal(scaled.json.metadata.generation, 2);
  });

  test('metadata: invalid names 422 with causes, namespace mismatch 400, missing namespace 404', async () => {
    const ns = await h.namespace();
    const bad = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('Not_Valid') });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.reason, 'Invalid');
    assert.equal(bad.json.details.kind, 'ConfigMap');
    assert.equal(bad.json.details.name, 'Not_Valid');
    assert.ok(bad.json.details.causes.some((x: any) => x.field === 'metadata.name' && x.reason === 'FieldValueInvalid'));
    assert.match(bad.json.message, /^ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"/);

    const noName = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
    assert.equal(noName.status, 422);
    assert.ok(noName.json.details.causes.some((x: any) => x.field === 'metadata.name' && x.reason === 'FieldValueRequired'));

    const mismatch = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap('m'), metadata: { name: 'm', namespace: 'other' } } });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.json.reason, 'BadRequest');

    const nowhere = await c().request('POST', '/api/v1/namespaces/does-not-exist/configmaps', { body: configMap('x') });
    assert.equal(nowhere.status, 404, nowhere.body);
    assert.equal(nowhere.json.reason, 'NotFound');
    assert.equal(nowhere.json.message, 'namespaces "does-not-exist" not found');
  });

  test('null entries in metadata read as empty strings, as the reference decodes them: a null finalizer is invalid, a null label value empty', async () => {
    const ns = await h.namespace();
    const finalizer = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'nf', finalizers: [null] } } });
    assert.equal(finalizer.status, 422, finalizer.body);
    assert.match(finalizer.json.message, /metadata\.finalizers: Invalid value: "": name part must be non-empty/);
    const label = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'nl', labels: { a: null }, annotations: { b: null } } } });
    assert.equal(label.status, 201, label.body);
    assert.deepEqual([label.json.metadata.labels, label.json.metadata.annotations], [{ a: '' }, { b: '' }]);
  });

  test('owner references are checked at the reference\'s paths and in its words', async () => {
    const ns = await h.namespace();
    const post = (ownerReferences: unknown[]) => c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'owned', ownerReferences } } });
    const ref = (name: string, more = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid: `00000000-0000-0000-0000-00000000000${name.length}`, ...more });
    const empty = await post([{ apiVersion: 'apps/', kind: '', name: '', uid: '' }]);
    assert.equal(empty.status, 422, empty.body);
    assert.deepEqual(empty.json.details.causes.map((x: any) => `${x.field}: ${x.message}`), [
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    const twice = await post([ref('a', { controller: true }), ref('bb'), ref('ccc', { controller: true })]);
    assert.equal(twice.status, 422, twice.body);
    assert.match(twice.json.message, /metadata\.ownerReferences: Invalid value: Only one reference can have Controller set to true\. Found "true" in references for ConfigMap\/a and ConfigMap\/ccc/);
    const event = await post([{ ...ref('e'), kind: 'Event' }]);
    assert.equal(event.status, 422, event.body);
    assert.match(event.json.message, /metadata\.ownerReferences: Invalid value: \/v1, Kind=Event is disallowed from being an owner/);
  });

  test('two-phase deletion: finalizers keep the object until the last one is removed', async () => {
    const ns = await h.namespace();
    const path = `/api/v1/namespaces/${ns}/configmaps/fin`;
    const created = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap('fin'), metadata: { name: 'fin', finalizers: ['example.com/a', 'example.com/b'] } } });
    assert.equal(created.status, 201);
    const del = await c().request('DELETE', path);
    assert.equal(del.status, 200);
    assert.equal(del.json.kind, 'ConfigMap');
    assert.ok(del.json.metadata.deletionTimestamp);
    const still = await c().get(path);
    assert.equal(still.status, 200);
    assert.ok(still.json.metadata.deletionTimestamp);
    // its name is still taken, and the answer says by an object being deleted (dry run or not)
    for (const query of ['', '?dryRun=All']) {
      const again = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps${query}`, { body: configMap('fin') });
      assert.equal(again.status, 409, again.body);
      assert.equal(again.json.reason, 'AlreadyExists');
      assert.equal(again.json.message, 'object is being deleted: configmaps "fin" already exists');
    }
    // no new finalizers once deletion started
    const add = await c().request('PATCH', path, { body: [{ op: 'add', path: '/metadata/finalizers/-', value: 'example.com/c' }], contentType: 'application/json-patch+json' });
    assert.equal(add.status, 422);
    const one = await c().request('PATCH', path, { body: [{ op: 'remove', path: '/metadata/finalizers/0' }], contentType: 'application/json-patch+json' });
    assert.equal(one.status, 200, one.body);
    assert.equal((await c().get(path)).status, 200);
    const last = await c().request('PATCH', path, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    assert.equal(last.status, 200, last.body);
    assert.equal((await c().get(path)).status, 404);
    // the name is reusable
    assert.equal((await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('fin') })).status, 201);
  });

  test('delete preconditions (body with and without kind), dryRun in body and query, gracePeriodSeconds, propagationPolicy', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const obj = (await c().request('POST', base, { body: configMap('p') })).json;
    const wrongUid = await c().request('DELETE', `${base}/p`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } } });
    assert.equal(wrongUid.status, 409);
    assert.equal(wrongUid.json.reason, 'Conflict');
    // said as the reference says it, naming the kind
    assert.equal(wrongUid.json.message, `Operation cannot be fulfilled on ConfigMap "p": the UID in the precondition (nope) does not match the UID in record (${obj.metadata.uid}). The object might have been deleted and then recreated`);
    assert.deepEqual(wrongUid.json.details, { name: 'p', kind: 'ConfigMap' });
    const wrongRv = await c().request('DELETE', `${base}/p`, { body: { preconditions: { resourceVersion: '1' } } });
    assert.equal(wrongRv.status, 409);
    assert.equal(wrongRv.json.message, `Operation cannot be fulfilled on ConfigMap "p": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${obj.metadata.resourceVersion}). The object might have been modified`);

    const dryBody = await c().request('DELETE', `${base}/p`, { body: { propagationPolicy: 'Background', dryRun: ['All'] } });
    assert.equal(dryBody.status, 200, dryBody.body);
    assert.equal((await c().get(`${base}/p`)).status, 200);
    const dryQuery = await c().request('DELETE', `${base}/p?dryRun=All`);
    assert.equal(dryQuery.status, 200);
    assert.equal((await c().get(`${base}/p`)).status, 200);

    const badPolicy = await c().request('DELETE', `${base}/p?propagationPolicy=Sideways`);
    assert.equal(badPolicy.status, 422);
    assert.equal(badPolicy.json.reason, 'Invalid');
    const badPolicyBody = await c().request('DELETE', `${base}/p`, { body: { propagationPolicy: 'Sideways' } });
    assert.equal(badPolicyBody.status, 422);

    // Foreground keeps the object (200, as the reference answers) with the foregroundDeletion finalizer until the garbage collector
    // has seen its dependents go; Orphan keeps it with the orphan finalizer until its dependents are released
    // the collector works as fast as a busy machine lets it: a generous deadline, not a fixed number of polls
    const gone = (name: string, why: string) => waitFor(`${name} deleted by the collector (${why})`, async () => (await c().get(`${base}/${name}`)).status === 404);
    const right = await c().request('DELETE', `${base}/p?gracePeriodSeconds=0&propagationPolicy=Foreground`, {
      body: { preconditions: { uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion } },
    });
    assert.equal(right.status, 200, right.body);
    assert.deepEqual(right.json.metadata.finalizers, ['foregroundDeletion']);
    await gone('p', 'the collector finishes the deletion');

    for (const [policy, status, finalizer] of [['Orphan', 200, 'orphan'], ['Background', 200, undefined], ['Foreground', 200, 'foregroundDeletion'],
      ['orphanDependents=true', 200, 'orphan']] as const) {
      const name = `q-${policy.toLowerCase().replace(/\W/g, '-')}`;
      assert.equal((await c().request('POST', base, { body: configMap(name) })).status, 201);
      const r = await c().request('DELETE', `${base}/${name}?${policy.includes('=') ? policy : `propagationPolicy=${policy}`}`);
      assert.equal(r.status, status, `${policy}: ${r.body}`);
      if (finalizer) assert.deepEqual(r.json.metadata.finalizers, [finalizer], policy);
      await gone(name, policy);
    }
    // the old form of a cascading delete, orphanDependents=false, is the one the reference answers 202 when the object stays
    const held = { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } };
    assert.equal((await c().request('POST', base, { body: held })).status, 201);
    const accepted = await c().request('DELETE', `${base}/held?orphanDependents=false`);
    assert.equal(accepted.status, 202, accepted.body);
    assert.deepEqual(accepted.json.metadata.finalizers, ['example.com/hold']);
    assert.equal((await c().request('PATCH', `${base}/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' })).status, 200);
    await gone('held', 'its finalizer removed');
  });

  test('gracePeriodSeconds: a pod on a node stays terminating until a zero grace period; status only through /status', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    const body = { ...pod('g'), spec: { nodeName: 'node-1', containers: [{ name: 'a', image: 'i' }] } };
    assert.equal((await c().request('POST', base, { body })).status, 201);

    // status changes through the main resource are ignored; through /status they apply, and nothing else does
    const viaMain = await c().request('PATCH', `${base}/g`, { body: { status: { phase: 'Running' } }, contentType: 'application/merge-patch+json' });
    assert.equal(viaMain.json.status.phase, 'Pending');
    const viaStatus = await c().request('PATCH', `${base}/g/status`, { body: { status: { phase: 'Running' }, metadata: { labels: { s: '1' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(viaStatus.status, 200, viaStatus.body);
    assert.equal(viaStatus.json.status.phase, 'Running');
    assert.equal(viaStatus.json.metadata.labels, undefined);
    assert.equal((await c().get(`${base}/g/status`)).json.status.phase, 'Running');

    const graceful = await c().request('DELETE', `${base}/g?gracePeriodSeconds=30`);
    assert.equal(graceful.status, 200, graceful.body);
    assert.equal(graceful.json.kind, 'Pod');
    assert.equal(graceful.json.metadata.deletionGracePeriodSeconds, 30);
    assert.ok(graceful.json.metadata.deletionTimestamp);
    assert.equal((await c().get(`${base}/g`)).status, 200);
    const longer = await c().request('DELETE', `${base}/g`, { body: { gracePeriodSeconds: 60 } });
    assert.equal(longer.json.metadata.deletionGracePeriodSeconds, 30);
    // while it terminates, its agent writes the containers' end and others may still change it: it stays (only an
    // object whose grace period is over goes at a change, as the reference's ShouldDeleteDuringUpdate)
    const final = await c().request('PATCH', `${base}/g/status`, { body: { status: { phase: 'Failed' } }, contentType: 'application/merge-patch+json' });
    assert.equal(final.status, 200, final.body);
    assert.equal(final.json.status.phase, 'Failed');
    const labelled = await c().request('PATCH', `${base}/g`, { body: { metadata: { labels: { l: '1' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(labelled.status, 200, labelled.body);
    assert.equal((await c().get(`${base}/g`)).json.status.phase, 'Failed');
    const now = await c().request('DELETE', `${base}/g`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 } });
    assert.equal(now.status, 200, now.body);
    assert.equal((await c().get(`${base}/g`)).status, 404);
    // the URL names the object: a different name in the body is refused
    const wrong = await c().request('PUT', `/api/v1/namespaces/${ns}/configmaps/one`, { body: configMap('two') });
    assert.equal(wrong.status, 400);
  });

  test('gracePeriodSeconds means a grace period only where the reference has graceful deletion: pods on a node, still running', async () => {
    const ns = await h.namespace();
    const pods = `/api/v1/namespaces/${ns}/pods`;
    // a kind without graceful deletion goes at once, whatever grace period is asked
    assert.equal((await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('cm') })).status, 201);
    const cm = await c().request('DELETE', `/api/v1/namespaces/${ns}/configmaps/cm?gracePeriodSeconds=30`);
    assert.equal(cm.status, 200, cm.body);
    assert.equal(cm.json.kind, 'Status');
    assert.equal((await c().get(`/api/v1/namespaces/${ns}/configmaps/cm`)).status, 404);
    // a pod no node runs, or one that has finished, has nothing to wait for
    assert.equal((await c().request('POST', pods, { body: pod('unscheduled') })).status, 201);
    const unscheduled = await c().request('DELETE', `${pods}/unscheduled?gracePeriodSeconds=30`);
    assert.equal(unscheduled.status, 200, unscheduled.body);
    assert.equal((await c().get(`${pods}/unscheduled`)).status, 404);
    const onNode = (name: string) => ({ ...pod(name), spec: { nodeName: 'node-1', containers: [{ name: 'a', image: 'i' }] } });
    assert.equal((await c().request('POST', pods, { body: onNode('finished') })).status, 201);
    assert.equal((await c().request('PATCH', `${pods}/finished/status`, { body: { status: { phase: 'Succeeded' } }, contentType: 'application/merge-patch+json' })).status, 200);
    assert.equal((await c().request('DELETE', `${pods}/finished?gracePeriodSeconds=30`)).status, 200);
    assert.equal((await c().get(`${pods}/finished`)).status, 404);
    // a shorter grace period for a pod already terminating moves its deadline back by the difference
    assert.equal((await c().request('POST', pods, { body: onNode('running') })).status, 201);
    const first = (await c().request('DELETE', `${pods}/running?gracePeriodSeconds=60`)).json.metadata;
    const shorter = (await c().request('DELETE', `${pods}/running?gracePeriodSeconds=20`)).json.metadata;
    assert.equal(shorter.deletionGracePeriodSeconds, 20);
    assert.equal(Date.parse(first.deletionTimestamp) - Date.parse(shorter.deletionTimestamp), 40_000);
    assert.equal((await c().request('DELETE', `${pods}/running?gracePeriodSeconds=0`)).status, 200);
    assert.equal((await c().get(`${pods}/running`)).status, 404);
    // a negative grace period is a second
    assert.equal((await c().request('POST', pods, { body: onNode('negative') })).status, 201);
    assert.equal((await c().request('DELETE', `${pods}/negative?gracePeriodSeconds=-5`)).json.metadata.deletionGracePeriodSeconds, 1);
    assert.equal((await c().request('DELETE', `${pods}/negative?gracePeriodSeconds=0`)).status, 200);
  });

  test('namespace deletion completes through the finalizer controller', async () => {
    const ns = await h.namespace();
    assert.equal((await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('x') })).status, 201);
    assert.equal((await c().request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') })).status, 201);
    const del = await c().request('DELETE', `/api/v1/namespaces/${ns}`);
    assert.equal(del.status, 200, del.body);
    assert.equal(del.json.status?.phase ?? del.json.status, 'Terminating');
    // creating in a terminating namespace is refused (reference: 403 Forbidden) or the namespace is already gone (404)
    const late = await c().request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('late') });
    assert.ok(late.status === 403 || late.status === 404, `${late.status} ${late.body}`);
    // the namespace controller empties the namespace, then removes its finalizer: seconds on a busy machine
    await waitFor(`namespace ${ns} deleted`, async () => (await c().get(`/api/v1/namespaces/${ns}`)).status === 404);
    assert.equal((await c().get(`/api/v1/namespaces/${ns}/configmaps/x`)).status, 404);
  });

  test('unconditional updates racing on one object each succeed with their own body (a retry after a conflict starts from the request again)', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await c().request('POST', base, { body: configMap('race', { k: 'start' }) })).status, 201);
    // no resourceVersion: a writer that loses the race to another is retried on the newer object
    for (let round = 0; round < 3; round++) {
      const writers = Array.from({ length: 8 }, (_, i) => `w${round}-${i}`);
      const answers = await Promise.all(writers.map(w => c().request('PUT', `${base}/race?fieldManager=${w}`, { body: configMap('race', { k: w }, { writer: w }) })));
      answers.forEach((a, i) => {
        assert.equal(a.status, 200, a.body);
        assert.deepEqual(a.json.data, { k: writers[i] });
        assert.deepEqual(a.json.metadata.labels, { writer: writers[i] });
        const owners = a.json.metadata.managedFields.filter((e: { fieldsV1: { 'f:data'?: { 'f:k'?: object } } }) => e.fieldsV1['f:data']?.['f:k']);
        assert.deepEqual(owners.map((e: { manager: string }) => e.manager), [writers[i]]);
      });
    }
  });

  test('dryRun=All on create, update, patch and delete persists nothing; bare dryRun is a real write', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const dry = await c().request('POST', `${base}?dryRun=All`, { body: configMap('d', { a: '1' }) });
    assert.equal(dry.status, 201, dry.body);
    assert.equal(dry.json.metadata.name, 'd');
    assert.equal((await c().get(`${base}/d`)).status, 404);

    const real = (await c().request('POST', base, { body: configMap('d', { a: '1' }) })).json;
    const upd = await c().request('PUT', `${base}/d?dryRun=All`, { body: { ...real, data: { a: '2' } } });
    assert.equal(upd.status, 200);
    assert.deepEqual(upd.json.data, { a: '2' });
    const pat = await c().request('PATCH', `${base}/d?dryRun=All`, { body: { data: { a: '3' } }, contentType: 'application/merge-patch+json' });
    assert.equal(pat.status, 200);
    assert.deepEqual(pat.json.data, { a: '3' });
    const del = await c().request('DELETE', `${base}/d?dryRun=All`);
    assert.equal(del.status, 200);
    const after = await c().get(`${base}/d`);
    assert.deepEqual(after.json.data, { a: '1' });
    assert.equal(after.json.metadata.resourceVersion, real.metadata.resourceVersion);

    const badValue = await c().request('POST', `${base}?dryRun=Some`, { body: configMap('e') });
    assert.equal(badValue.status, 400);

    const bare = await c().request('POST', `${base}?dryRun`, { body: configMap('bare') });
    assert.equal(bare.status, 201, bare.body);
    assert.equal((await c().get(`${base}/bare`)).status, 200);
  });

  test('fieldValidation: Ignore, Warn (one Warning per field), Strict (400 listing all)', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const withUnknown = (name: string) => ({ ...configMap(name), bogus: 1, metadata: { name, alsoBogus: 'x' } });
    const ignore = await c().request('POST', `${base}?fieldValidation=Ignore`, { body: withUnknown('i') });
    assert.equal(ignore.status, 201, ignore.body);
    assert.equal(ignore.headers.warning, undefined);
    assert.equal(ignore.json.bogus, undefined);

    const warn = await c().request('POST', `${base}?fieldValidation=Warn`, { body: withUnknown('w') });
    assert.equal(warn.status, 201, warn.body);
    const warnings = String(warn.headers.warning ?? '').split(/,\s*(?=299 )/);
    assert.equal(warnings.length, 2, String(warn.headers.warning));
    assert.ok(warnings.some(w => w.includes('bogus')));
    assert.ok(warnings.some(w => w.includes('metadata.alsoBogus')));
    // Warn is the default
    const dflt = await c().request('POST', base, { body: withUnknown('w2') });
    assert.equal(dflt.status, 201);
    assert.ok(dflt.headers.warning);

    const strict = await c().request('POST', `${base}?fieldValidation=Strict`, { body: withUnknown('s') });
    assert.equal(strict.status, 400);
    assert.equal(strict.json.reason, 'BadRequest');
    assert.match(strict.json.message, /^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: (.*bogus.*alsoBogus|.*alsoBogus.*bogus)/);
    assert.equal((await c().get(`${base}/s`)).status, 404);

    const duplicate = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"a":"2"}}';
    const dupStrict = await c().request('POST', `${base}?fieldValidation=Strict`, { body: duplicate });
    assert.equal(dupStrict.status, 400);
    assert.match(dupStrict.json.message, /duplicate field "data"/);
    const dupWarn = await c().request('POST', `${base}?fieldValidation=Warn`, { body: duplicate });
    assert.equal(dupWarn.status, 201);
    assert.match(String(dupWarn.headers.warning), /^299 - "duplicate field \\"data\\""$/);

    const patchStrict = await c().request('PATCH', `${base}/i?fieldValidation=Strict`, { body: { nope: 1 }, contentType: 'application/merge-patch+json' });
    assert.equal(patchStrict.status, 400);
    const badMode = await c().request('POST', `${base}?fieldValidation=Loud`, { body: configMap('x') });
    assert.equal(badMode.status, 400);
  });

  test('an update that only orders the fields otherwise (sorted keys, a typed client) writes nothing', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await c().request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'order', labels: { z: '1', a: '2' } }, data: { b: '1', a: '2' } } });
    assert.equal(created.status, 201, created.body);
    const sortKeys = (v: unknown): unknown => Array.isArray(v) ? v.map(sortKeys)
      : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map(k => [k, sortKeys((v as Record<string, unknown>)[k])])) : v;
    const sorted = JSON.stringify(sortKeys(created.json));
    assert.notEqual(sorted, JSON.stringify(created.json));
    const same = await c().request('PUT', `${base}/order`, { body: sorted });
    assert.equal(same.status, 200, same.body);
    assert.equal(same.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    // a real change still writes
    const changed = await c().request('PUT', `${base}/order`, { body: sorted.replace('"b":"1"', '"b":"3"') });
    assert.equal(changed.status, 200, changed.body);
    assert.notEqual(changed.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.equal(changed.json.data.b, '3');
  });

  test('a field repeated in a patch document follows fieldValidation, as a repeated field in a body does', async () => {
    const ns = await h.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await c().request('POST', base, { body: configMap('p') })).status, 201);
    const twice = '{"data":{"k":"first","k":"last"}}';
    for (const contentType of ['application/merge-patch+json', 'application/strategic-merge-patch+json']) {
      const strict = await c().request('PATCH', `${base}/p?fieldValidation=Strict`, { body: twice, contentType });
      assert.deepEqual([strict.status, strict.json.message], [400, 'strict decoding error: duplicate field "data.k"'], contentType);
      const warn = await c().request('PATCH', `${base}/p?fieldValidation=Warn`, { body: twice, contentType });
      assert.equal(warn.status, 200, warn.body);
      assert.equal(warn.headers.warning, '299 - "duplicate field \\"data.k\\""');
      assert.equal(warn.json.data.k, 'last');
      const ignore = await c().request('PATCH', `${base}/p?fieldValidation=Ignore`, { body: twice, contentType });
      assert.equal(ignore.status, 200, ignore.body);
      assert.equal(ignore.headers.warning, undefined);
    }
    // a JSON patch names the operation's repeated field as the reference does
    const op = await c().request('PATCH', `${base}/p?fieldValidation=Strict`,
      { body: '[{"op":"add","path":"/data/j","value":"1","value":"2"}]', contentType: 'application/json-patch+json' });
    assert.deepEqual([op.status, op.json.message], [400, 'strict decoding error: json patch duplicate field "[0].value"']);
  });
});
