// VolumeZone against the in-memory cluster: a bound volume's zone and region labels keep its pod to nodes of that
// zone (a label may list several), a node without topology labels takes any pod, a claim waiting for its first
// consumer constrains nothing, and a missing claim, volume or class is named in the reference's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { volumeAnnotations, type PersistentVolume, type PersistentVolumeClaim, type StorageClass } from '../../api/volumes.js';
import { fakeCluster, hostnameLabel, names, node, pod, zoneLabel } from '../testing/cluster.js';
import type { ProfileConfig } from '../profiles.js';
import type { Pod } from '../types.js';
import { zonesOf } from './volume-zone.js';

const a = volumeAnnotations(names);
const regionLabel = `topology.${names.labelDomain}/region`;
const betaZoneLabel = `failure-domain.beta.${names.labelDomain}/zone`;

function world() {
  const volumes = new Map<string, PersistentVolume>();
  const claims = new Map<string, PersistentVolumeClaim>();
  const classes = new Map<string, StorageClass>([
    ['late', { metadata: { name: 'late' }, provisioner: 'disk.example', volumeBindingMode: 'WaitForFirstConsumer' }],
    ['now', { metadata: { name: 'now' }, provisioner: 'disk.example', volumeBindingMode: 'Immediate' }],
  ]);
  /** a volume with the labels, bound to a claim of the same name */
  const addBound = (name: string, labels: Record<string, string>) => {
    volumes.set(name, {
      metadata: { name, uid: `uid-pv-${name}`, labels },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '', claimRef: { namespace: 'default', name, uid: `uid-${name}` } },
      status: { phase: 'Bound' },
    });
    addClaim(name, { volumeName: name, cls: '' });
  };
  const addClaim = (name: string, o: { cls?: string; volumeName?: string } = {}) =>
    claims.set(`default/${name}`, {
      metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations: o.volumeName ? { [a.bindCompleted]: 'yes' } : {} },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(o.cls !== undefined ? { storageClassName: o.cls } : {}), ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
    });
  return { volumes, claims, classes, addBound, addClaim };
}

const using = (p: Pod, ...claimNames: string[]) => {
  p.spec.volumes = claimNames.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } }));
  return p;
};
const to = (n: string) => ({ nodeSelector: { [hostnameLabel]: n } });

test('a bound volume in a zone keeps its pod to nodes of that zone and region', async () => {
  const w = world();
  w.addBound('in-a', { [zoneLabel]: 'a', [regionLabel]: 'r1' });
  w.addBound('in-a-or-b', { [zoneLabel]: 'a__b' });
  w.addBound('beta-c', { [betaZoneLabel]: 'c' });
  const c = fakeCluster({
    nodes: [
      node('n-a', { labels: { [zoneLabel]: 'a', [regionLabel]: 'r1' } }),
      node('n-b', { labels: { [zoneLabel]: 'b', [regionLabel]: 'r1' } }),
      node('n-c', { labels: { [betaZoneLabel]: 'c' } }),
    ],
    volumes: w.volumes, claims: w.claims, classes: w.classes,
  });
  c.add(using(pod('zoned'), 'in-a'), using(pod('listed', to('n-b')), 'in-a-or-b'), using(pod('beta'), 'beta-c'));
  c.add(using(pod('wrong-zone', to('n-b')), 'in-a'));
  await c.run();
  assert.equal(c.nodeOf('zoned'), 'n-a');
  assert.equal(c.nodeOf('listed'), 'n-b');
  assert.equal(c.nodeOf('beta'), 'n-c');
  assert.equal(c.nodeOf('wrong-zone'), undefined);
  assert.match(c.message('wrong-zone') ?? '', /^0\/3 nodes are available: 1 node\(s\) had no available volume zone, 2 node\(s\) didn't match Pod's node affinity\/selector\./);
  // no preemption helps: the zone conflict is unresolvable
  assert.match(c.message('wrong-zone') ?? '', /preemption: 0\/3 nodes are available: 3 Preemption is not helpful for scheduling\./);
});

test('a node with no zone or region label takes a zoned volume; a claim waiting for its first consumer constrains nothing', async () => {
  const w = world();
  w.addBound('in-a', { [zoneLabel]: 'a' });
  w.addClaim('later', { cls: 'late' });
  const c = fakeCluster({ nodes: [node('plain'), node('n-b', { labels: { [zoneLabel]: 'b' } })], volumes: w.volumes, claims: w.claims, classes: w.classes });
  const profiles: ProfileConfig[] = [{ plugins: { multiPoint: { disabled: [{ name: 'VolumeBinding' }] } } }];
  const unbound = fakeCluster({ nodes: [node('n-b', { labels: { [zoneLabel]: 'b' } })], volumes: w.volumes, claims: w.claims, classes: w.classes, profiles });
  c.add(using(pod('zoned'), 'in-a'));
  unbound.add(using(pod('waits'), 'later'));
  await c.run();
  await unbound.run();
  assert.equal(c.nodeOf('zoned'), 'plain');
  assert.equal(unbound.nodeOf('waits'), 'n-b');
});

test('missing claims, volumes and classes, and unbound Immediate claims, are unresolvable with the reference\'s messages', async () => {
  const w = world();
  w.addClaim('no-volume', { volumeName: 'gone' });
  w.addClaim('immediate', { cls: 'now' });
  w.addClaim('classless', { cls: '' });
  w.addClaim('unknown-class', { cls: 'nope' });
  // VolumeBinding would refuse these first, with its own words
  const profiles: ProfileConfig[] = [{ plugins: { multiPoint: { disabled: [{ name: 'VolumeBinding' }] } } }];
  const c = fakeCluster({ nodes: [node('n1', { labels: { [zoneLabel]: 'a' } })], volumes: w.volumes, claims: w.claims, classes: w.classes, profiles });
  c.add(using(pod('missing-claim'), 'nope'), using(pod('missing-volume'), 'no-volume'), using(pod('immediate'), 'immediate'));
  c.add(using(pod('classless'), 'classless'), using(pod('unknown-class'), 'unknown-class'));
  await c.run();
  const expect = (name: string, message: string) => assert.ok(c.message(name)?.startsWith(`0/1 nodes are available: ${message}.`), `${name}: ${c.message(name)}`);
  expect('missing-claim', 'persistentvolumeclaim "nope" not found');
  expect('missing-volume', 'persistentvolume "gone" not found');
  expect('immediate', 'PersistentVolume had no name');
  expect('classless', 'PersistentVolumeClaim had no pv name and storageClass name');
  expect('unknown-class', `storageclass.${names.group('storage')} "nope" not found`);
});

test('zone label values: several zones separated by "__"; an empty one makes the label unusable', () => {
  assert.deepEqual([...zonesOf('a__b')!], ['a', 'b']);
  assert.deepEqual([...zonesOf(' a ')!], ['a']);
  assert.equal(zonesOf('a____b'), undefined);
  assert.equal(zonesOf(''), undefined);
});
