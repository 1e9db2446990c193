// Persistent volumes end to end: a real server with its controllers (persistentvolume-binder, ephemeral-volume,
// pvc-protection) and scheduler, and the node agent's fake mode for two nodes. Claims bind to the smallest volume
// that fits, pods go where their volumes are, a WaitForFirstConsumer volume binds only once a pod is scheduled,
// a claim's deletion releases or deletes its volume by policy, and kubectl shows it all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startTestServer } from '../../src/testing.js';
import { ensureDefaultServiceAccount, quiet, tempDir, waitFor } from '../agent/helpers.js';
import { startKubectlEnv, type KubectlEnv } from './support.js';

const pvsRef = { group: '', version: 'v1', resource: 'persistentvolumes' };
const claimsRef = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const podsRef = { group: '', version: 'v1', resource: 'pods' };
const eventsRef = { group: '', version: 'v1', resource: 'events' };
const bound = 60_000;

describe('persistent volumes with the binder, the scheduler and simulated nodes', () => {
  let env: KubectlEnv;
  let client: Client;
  let agent: RunningAgent;
  let dir: string;
  let nsCount = 0;

  before(async () => {
    env = await startKubectlEnv('1.27', 'k8s.io', await startTestServer({ apiDomain: 'k8s.io', scheduler: true, flags: ['--enable-hostpath-provisioner'] }));
    client = await clientFromFile(env.server.kubeconfig, { qps: 0 });
    dir = tempDir('volumes-e2e-');
    const { options } = await parseAgentOptions([
      `--clusterconfig=${env.server.kubeconfig}`, '--runtime=fake', '--fake-nodes=2', '--hostname-override=vol', `--root-dir=${join(dir, 'root')}`,
      '--node-status-update-frequency=500ms', '--api-domain=k8s.io',
    ]);
    agent = await runAgent(options, quiet, { leaseDurationSeconds: 10, relistMs: 100 });
    await waitFor('two ready nodes', async () => {
      const nodes = (await client.resource({ group: '', version: 'v1', resource: 'nodes' }).list()).items;
      return nodes.filter((n: any) => n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')
        && !n.spec?.taints?.some((t: any) => t.key.endsWith('/not-ready'))).length === 2;
    }, bound);
  });
  after(async () => {
    await agent?.stop();
    client?.close();
    await env?.close();
    await env?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function namespace(name: string) {
    const ns = `vol-${name}-${++nsCount}`;
    await client.resource({ group: '', version: 'v1', resource: 'namespaces' }).create({ metadata: { name: ns } });
    await ensureDefaultServiceAccount(client, ns);
    return ns;
  }
  const pvs = () => client.resource(pvsRef);
  const claims = (ns: string) => client.resource(claimsRef, ns);
  const pods = (ns: string) => client.resource(podsRef, ns);
  const onNode = (node: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } });

  function volume(name: string, size: string, spec: Record<string, unknown> = {}) {
    return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, ...spec } };
  }
  function claim(name: string, size: string, spec: Record<string, unknown> = {}) {
    return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: size } }, ...spec } };
  }
  function pod(name: string, volumes: object[]) {
    return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes, terminationGracePeriodSeconds: 0 } };
  }
  const claimVolume = (claimName: string) => ({ name: 'data', persistentVolumeClaim: { claimName } });

  const claimPhase = (ns: string, name: string, phase: string) => waitFor(`claim ${name} ${phase}`, async () => {
    const c = await claims(ns).get(name);
    return c.status?.phase === phase && c;
  }, bound);
  const volumePhase = (name: string, phase: string) => waitFor(`volume ${name} ${phase}`, async () => {
    const v = await pvs().get(name);
    return v.status?.phase === phase && v;
  }, bound);
  /** the pod once Running; a timeout names where it was and its conditions */
  async function running(ns: string, name: string) {
    let last: any;
    return waitFor(`pod ${name} Running`, async () => {
      last = await pods(ns).get(name);
      return last.status?.phase === 'Running' && last;
    }, bound).catch((e: Error) => { throw new Error(`${e.message}: on node ${last?.spec?.nodeName}, ${JSON.stringify(last?.status)}`); });
  }
  const event = (ns: string, name: string, reason: string) => waitFor(`event ${reason} about ${name}`, async () =>
    (await client.resource(eventsRef, ns).list()).items.find((e: any) => e.involvedObject?.name === name && e.reason === reason), bound);
  const unschedulable = (ns: string, name: string) => waitFor(`pod ${name} unschedulable`, async () => {
    const c = (await pods(ns).get(name)).status?.conditions?.find((x: any) => x.type === 'PodScheduled');
    return c?.status === 'False' && c.reason === 'Unschedulable' && c.message as string;
  }, bound);

  test('a claim binds to the smallest hostPath volume that fits; its pod goes where the volume is; the claim\'s deletion releases a Retain volume', async () => {
    const ns = await namespace('static');
    await pvs().create(volume(`${ns}-big`, '5Gi', { nodeAffinity: onNode('vol-0') }));
    await pvs().create(volume(`${ns}-small`, '1Gi', { nodeAffinity: onNode('vol-1'), persistentVolumeReclaimPolicy: 'Retain' }));
    await pvs().create(volume(`${ns}-tiny`, '100Mi'));
    await claims(ns).create(claim('data', '500Mi'));

    const c = await claimPhase(ns, 'data', 'Bound');
    assert.equal(c.spec.volumeName, `${ns}-small`);
    assert.deepEqual(c.status.capacity, { storage: '1Gi' });
    assert.deepEqual(c.status.accessModes, ['ReadWriteOnce']);
    assert.equal(c.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(c.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    const v = await volumePhase(`${ns}-small`, 'Bound');
    assert.deepEqual([v.spec.claimRef.namespace, v.spec.claimRef.name, v.spec.claimRef.uid], [ns, 'data', c.metadata.uid]);
    assert.equal(v.metadata.annotations['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.equal((await volumePhase(`${ns}-big`, 'Available')).spec.claimRef, undefined);

    // kubectl's columns: STATUS and CLAIM of the volume, STATUS and VOLUME of the claim
    const table = await env.ok(['get', 'pv,pvc', '-n', ns]);
    const row = (name: string) => table.split('\n').find((l) => l.split(/\s+/)[0] === name)?.split(/\s+/);
    assert.deepEqual(row(`persistentvolume/${ns}-small`)?.slice(1, 6), ['1Gi', 'RWO', 'Retain', 'Bound', `${ns}/data`]);
    assert.deepEqual(row(`persistentvolume/${ns}-big`)?.slice(1, 5), ['5Gi', 'RWO', 'Retain', 'Available']);
    assert.deepEqual(row('persistentvolumeclaim/data')?.slice(1, 5), ['Bound', `${ns}-small`, '1Gi', 'RWO']);

    await pods(ns).create(pod('user', [claimVolume('data')]));
    assert.equal((await running(ns, 'user')).spec.nodeName, 'vol-1');

    await pods(ns).delete('user', { gracePeriodSeconds: 0 });
    await waitFor('pod user gone', async () => !(await pods(ns).get('user').catch(() => undefined)), bound);
    await claims(ns).delete('data');
    const released = await volumePhase(`${ns}-small`, 'Released');
    assert.equal(released.spec.claimRef.name, 'data', 'a released volume keeps its claimRef until an administrator clears it');
    const described = await env.ok(['get', 'pv', `${ns}-small`]);
    assert.match(described, new RegExp(`Released\\s+${ns}/data`));
  });

  test('a pre-bound claim takes the volume it names; a ReadWriteOncePod claim serves one pod; a claim with nothing to bind waits, its pod unschedulable, until a volume appears', async () => {
    const ns = await namespace('wait');
    // the claim comes first: the volume it names is bound once it appears
    await claims(ns).create(claim('named', '1Gi', { volumeName: `${ns}-named` }));
    await pvs().create(volume(`${ns}-named`, '10Gi'));
    assert.equal((await claimPhase(ns, 'named', 'Bound')).spec.volumeName, `${ns}-named`);

    await claims(ns).create(claim('lonely', '3Gi', { selector: { matchLabels: { for: ns } } }));
    const failed = await event(ns, 'lonely', 'FailedBinding');
    assert.equal(failed.message, 'no persistent volumes available for this claim and no storage class is set');
    assert.equal((await claims(ns).get('lonely')).status.phase, 'Pending');

    await pods(ns).create(pod('waiter', [claimVolume('lonely')]));
    assert.match(await unschedulable(ns, 'waiter'), /pod has unbound immediate PersistentVolumeClaims/);
    await pods(ns).create(pod('missing', [claimVolume('nope')]));
    assert.match(await unschedulable(ns, 'missing'), /persistentvolumeclaim "nope" not found/);

    // ReadWriteOncePod: a second pod using the claim fits nowhere while the first runs
    await pvs().create(volume(`${ns}-solo`, '1Gi', { accessModes: ['ReadWriteOncePod'], claimRef: { namespace: ns, name: 'solo' } }));
    await claims(ns).create(claim('solo', '1Gi', { accessModes: ['ReadWriteOncePod'] }));
    await claimPhase(ns, 'solo', 'Bound');
    await pods(ns).create(pod('first', [claimVolume('solo')]));
    await running(ns, 'first');
    await pods(ns).create(pod('second', [claimVolume('solo')]));
    assert.match(await unschedulable(ns, 'second'), /2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode/);

    // a volume the selector picks: the claim binds, and the waiting pod is scheduled
    await pvs().create({ ...volume(`${ns}-labelled`, '3Gi'), metadata: { name: `${ns}-labelled`, labels: { for: ns } } });
    assert.equal((await claimPhase(ns, 'lonely', 'Bound')).spec.volumeName, `${ns}-labelled`);
    await running(ns, 'waiter');
  });

  test('a WaitForFirstConsumer local volume binds only once a pod using its claim is scheduled, on the volume\'s node', async () => {
    const ns = await namespace('wffc');
    const cls = `local-${ns}`;
    await client.resource({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' }).create({
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: cls }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer',
    });
    await pvs().create(volume(`${ns}-local`, '2Gi', { storageClassName: cls, hostPath: undefined, local: { path: '/mnt/disk' }, nodeAffinity: onNode('vol-0') }));
    await claims(ns).create(claim('late', '1Gi', { storageClassName: cls }));
    const waiting = await event(ns, 'late', 'WaitForFirstConsumer');
    assert.equal(waiting.message, 'waiting for first consumer to be created before binding');
    assert.equal((await claims(ns).get('late')).status.phase, 'Pending');
    const available = await volumePhase(`${ns}-local`, 'Available');
    assert.equal(available.spec.claimRef, undefined, 'no consumer yet: the volume stays unbound');

    await pods(ns).create(pod('consumer', [claimVolume('late')]));
    const p = await running(ns, 'consumer');
    assert.equal(p.spec.nodeName, 'vol-0');
    assert.equal((await claimPhase(ns, 'late', 'Bound')).spec.volumeName, `${ns}-local`);
    assert.equal((await volumePhase(`${ns}-local`, 'Bound')).spec.claimRef.name, 'late');

    // a second claim of the class has no volume left: its pod fits no node
    await claims(ns).create(claim('later', '1Gi', { storageClassName: cls }));
    await pods(ns).create(pod('second', [claimVolume('later')]));
    assert.match(await unschedulable(ns, 'second'), /node\(s\) didn't find available persistent volumes to bind/);
  });

  test('a class with an external provisioner: the claim is annotated for it; with WaitForFirstConsumer, once the scheduler picked a node', async () => {
    const ns = await namespace('external');
    const storageClasses = client.resource({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' });
    await storageClasses.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `nfs-${ns}` }, provisioner: 'example.com/nfs' });
    await claims(ns).create(claim('now', '1Gi', { storageClassName: `nfs-${ns}` }));
    const announced = await event(ns, 'now', 'ExternalProvisioning');
    assert.equal(announced.message, 'waiting for a volume to be created, either by external provisioner "example.com/nfs" or manually created by system administrator');
    const annotated = await claims(ns).get('now');
    assert.equal(annotated.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'example.com/nfs');
    assert.equal(annotated.metadata.annotations['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/nfs');
    assert.equal(annotated.status.phase, 'Pending');

    await storageClasses.create({
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `topo-${ns}` }, provisioner: 'example.com/topo', volumeBindingMode: 'WaitForFirstConsumer',
    });
    await claims(ns).create(claim('later', '1Gi', { storageClassName: `topo-${ns}` }));
    await event(ns, 'later', 'WaitForFirstConsumer');
    await pods(ns).create(pod('consumer', [claimVolume('later')]));
    const selected = await waitFor('a selected node', async () => (await claims(ns).get('later')).metadata.annotations?.['volume.kubernetes.io/selected-node'], bound);
    assert.ok(['vol-0', 'vol-1'].includes(selected), selected);
    await event(ns, 'later', 'ExternalProvisioning');
    assert.equal((await pods(ns).get('consumer')).spec.nodeName, undefined, 'the pod waits in PreBind for its volume');
    // the provisioner's part, by hand: a volume on the selected node, pre-bound to the claim
    const made = await claims(ns).get('later');
    await pvs().create({
      ...volume(`${ns}-provisioned`, '1Gi', { storageClassName: `topo-${ns}`, nodeAffinity: onNode(selected), persistentVolumeReclaimPolicy: 'Retain',
        claimRef: { namespace: ns, name: 'later', uid: made.metadata.uid } }),
      metadata: { name: `${ns}-provisioned`, annotations: { 'pv.kubernetes.io/provisioned-by': 'example.com/topo' } },
    });
    assert.equal((await claimPhase(ns, 'later', 'Bound')).spec.volumeName, `${ns}-provisioned`);
    assert.equal((await running(ns, 'consumer')).spec.nodeName, selected);
  });

  test('a claim that names no class gets the default class made after it, and binds to a volume of that class', async () => {
    const ns = await namespace('default-class');
    // the selector keeps it off the volumes of no class that other tests left Available
    await claims(ns).create(claim('classless', '1Gi', { storageClassName: undefined, selector: { matchLabels: { for: ns } } }));
    assert.equal((await event(ns, 'classless', 'FailedBinding')).message, 'no persistent volumes available for this claim and no storage class is set');
    const storageClasses = client.resource({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' });
    await pvs().create({ ...volume(`${ns}-standard`, '1Gi', { storageClassName: `standard-${ns}` }), metadata: { name: `${ns}-standard`, labels: { for: ns } } });
    await storageClasses.create({
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', provisioner: 'kubernetes.io/no-provisioner',
      metadata: { name: `standard-${ns}`, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    });
    try {
      const c = await claimPhase(ns, 'classless', 'Bound');
      assert.equal(c.spec.storageClassName, `standard-${ns}`);
      assert.equal(c.spec.volumeName, `${ns}-standard`);
    } finally {
      // other tests' claims must not get this default class
      await storageClasses.delete(`standard-${ns}`);
    }
  });

  test('a generic ephemeral volume gets its claim, owned by the pod; a claim of that name the pod does not own is refused', async () => {
    const ns = await namespace('ephemeral');
    await pvs().create(volume(`${ns}-scratch`, '1Gi', { storageClassName: `scratch-${ns}` }));
    const template = { metadata: { labels: { kind: 'scratch' } }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: `scratch-${ns}`, resources: { requests: { storage: '1Gi' } } } };
    const created = await pods(ns).create(pod('eph', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }]));
    const c = await claimPhase(ns, 'eph-scratch', 'Bound');
    assert.deepEqual(c.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'eph', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(c.metadata.labels, { kind: 'scratch' });
    assert.equal(c.spec.volumeName, `${ns}-scratch`);
    await running(ns, 'eph');

    await claims(ns).create(claim('other-scratch', '1Gi'));
    await pods(ns).create(pod('other', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: template } }]));
    const refused = await event(ns, 'other', 'FailedBinding');
    assert.equal(refused.message, `ephemeral volume scratch: PVC ${ns}/other-scratch was not created for pod ${ns}/other (pod is not owner)`);
    assert.match(await unschedulable(ns, 'other'), /\(pod is not owner\)/);
  });

  test('the Delete policy: a hostPath volume under /tmp is emptied and deleted, one elsewhere fails with the reference\'s message', async () => {
    const ns = await namespace('delete');
    const folder = join(dir, 'deletable');
    mkdirSync(folder);
    await pvs().create(volume(`${ns}-tmp`, '1Gi', { hostPath: { path: folder }, persistentVolumeReclaimPolicy: 'Delete', claimRef: { namespace: ns, name: 'tmp' } }));
    await pvs().create(volume(`${ns}-srv`, '1Gi', { persistentVolumeReclaimPolicy: 'Delete', claimRef: { namespace: ns, name: 'srv' } }));
    await claims(ns).create(claim('tmp', '1Gi'));
    await claims(ns).create(claim('srv', '1Gi'));
    assert.equal((await claimPhase(ns, 'tmp', 'Bound')).spec.volumeName, `${ns}-tmp`);
    assert.equal((await claimPhase(ns, 'srv', 'Bound')).spec.volumeName, `${ns}-srv`);
    await claims(ns).delete('tmp');
    await claims(ns).delete('srv');
    await waitFor('the /tmp volume deleted', async () => !(await pvs().get(`${ns}-tmp`).catch(() => undefined)), bound);
    assert.equal(existsSync(folder), false);
    const failed = await volumePhase(`${ns}-srv`, 'Failed');
    assert.equal(failed.status.message, `host_path deleter only supports /tmp/.+ but received provided /srv/${ns}-srv`);
    await event('default', `${ns}-srv`, 'VolumeFailedDelete');
  });

  test('--enable-hostpath-provisioner: a claim of a host-path class gets a folder under /tmp/hostpath_pv and its volume, deleted with the claim', async () => {
    const ns = await namespace('provisioned');
    await client.resource({ group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' }).create({
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `${ns}-hostpath` }, provisioner: 'kubernetes.io/host-path',
    });
    const made = await claims(ns).create(claim('dyn', '2Gi', { storageClassName: `${ns}-hostpath` }));
    const c = await claimPhase(ns, 'dyn', 'Bound');
    assert.equal(c.spec.volumeName, `pvc-${made.metadata.uid}`);
    assert.equal(c.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'kubernetes.io/host-path');
    const v = await volumePhase(c.spec.volumeName, 'Bound');
    assert.match(v.spec.hostPath.path, /^\/tmp\/hostpath_pv\/[0-9a-f-]{36}$/);
    assert.ok(existsSync(v.spec.hostPath.path), 'the folder is made');
    assert.deepEqual([v.spec.capacity.storage, v.spec.persistentVolumeReclaimPolicy, v.spec.storageClassName], ['2Gi', 'Delete', `${ns}-hostpath`]);
    assert.deepEqual(v.metadata.annotations, { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path',
      'pv.kubernetes.io/bound-by-controller': 'yes', 'kubernetes.io/createdby': 'hostpath-dynamic-provisioner' });
    await event(ns, 'dyn', 'ProvisioningSucceeded');

    await pods(ns).create(pod('user', [claimVolume('dyn')]));
    await running(ns, 'user');
    await pods(ns).delete('user', { gracePeriodSeconds: 0 });
    await claims(ns).delete('dyn');
    await waitFor('the provisioned volume deleted', async () => !(await pvs().get(c.spec.volumeName).catch(() => undefined)), bound);
    assert.equal(existsSync(v.spec.hostPath.path), false, 'the folder is removed');
  });
});
