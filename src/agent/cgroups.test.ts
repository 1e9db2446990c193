// The cgroup manager against a cgroup filesystem laid out in a temporary folder: the names of both
// drivers, the v1 files (one hierarchy per controller) and v2 files (one hierarchy) it writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cgroupName, createCgroupManager, systemdSlices, type CgroupSettings } from './cgroups.js';
import type { AgentPod } from './objects.js';

const pod = (uid: string, resources: object = {}): AgentPod => ({
  metadata: { name: 'p', namespace: 'default', uid },
  spec: { containers: [{ name: 'main', image: 'busybox', resources }] },
});

const settings = (fsRoot: string, over: Partial<CgroupSettings> = {}): CgroupSettings => ({
  driver: 'cgroupfs', root: '/', perQos: true, enforce: ['pods'], capacity: { cpu: 4000, memory: 8 * 2 ** 30, pids: 4096 },
  systemReserved: { memory: 2 ** 30, cpu: 500 }, clusterReserved: {}, podPidsLimit: 100, cfsQuota: true, cfsPeriodUs: 100_000, fsRoot, ...over,
});

test('names: cgroupfs paths under the root; systemd slices nested, with dashes of the uid escaped', () => {
  assert.deepEqual(cgroupName('cgroupfs', '/', ['kubepods', 'burstable', 'podabc']), { path: '/kubepods/burstable/podabc', runtimeName: '/kubepods/burstable/podabc' });
  assert.deepEqual(cgroupName('cgroupfs', '/agent', ['kubepods']), { path: '/agent/kubepods', runtimeName: '/agent/kubepods' });
  assert.deepEqual(systemdSlices(['kubepods', 'burstable', 'pod1-2']), ['kubepods.slice', 'kubepods-burstable.slice', 'kubepods-burstable-pod1_2.slice']);
  assert.deepEqual(cgroupName('systemd', '/', ['kubepods', 'besteffort', 'podx']), {
    path: '/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podx.slice', runtimeName: 'kubepods-besteffort-podx.slice',
  });
});

test('cgroup v1: kubepods at allocatable, QoS groups, a pod group with its sums and the pid limit', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cgroups-v1-'));
  try {
    for (const c of ['cpu', 'memory', 'pids', 'cpuset']) {
      mkdirSync(join(root, c));
      writeFileSync(join(root, c, 'cgroup.procs'), '');
    }
    writeFileSync(join(root, 'cpuset', 'cpuset.cpus'), '0-3');
    writeFileSync(join(root, 'cpuset', 'cpuset.mems'), '0');
    const m = createCgroupManager(settings(root));
    assert.equal(m.version, 1);
    await m.start();
    const read = (c: string, path: string, f: string) => readFileSync(join(root, c, path, f), 'utf8');
    assert.equal(read('memory', 'kubepods', 'memory.limit_in_bytes'), String(7 * 2 ** 30));
    assert.equal(read('cpu', 'kubepods', 'cpu.shares'), String(Math.floor((3500 * 1024) / 1000)));
    assert.equal(read('cpuset', 'kubepods', 'cpuset.cpus'), '0-3', 'a new cpuset group takes its parent\'s CPUs');
    assert.equal(read('cpu', 'kubepods/besteffort', 'cpu.shares'), '2');

    const p = pod('u1', { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } });
    assert.equal(await m.ensurePod(p), '/kubepods/burstable/podu1');
    assert.equal(read('cpu', 'kubepods/burstable/podu1', 'cpu.shares'), '256');
    assert.equal(read('cpu', 'kubepods/burstable/podu1', 'cpu.cfs_quota_us'), '100000');
    assert.equal(read('memory', 'kubepods/burstable/podu1', 'memory.limit_in_bytes'), String(128 * 2 ** 20));
    assert.equal(read('pids', 'kubepods/burstable/podu1', 'pids.max'), '100');
    await m.updateQos([p]);
    assert.equal(read('cpu', 'kubepods/burstable', 'cpu.shares'), '256');

    const g = pod('u2', { limits: { cpu: '2', memory: '1Gi' } });
    assert.equal(await m.ensurePod(g), '/kubepods/podu2', 'guaranteed pods sit right under kubepods');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('cgroup v2: weights, cpu.max and memory.max, controllers enabled on the way down; qos-reserved memory', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cgroups-v2-'));
  try {
    writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids');
    writeFileSync(join(root, 'cgroup.subtree_control'), '');
    const m = createCgroupManager(settings(root, { driver: 'systemd', qosReservedMemory: 0.5 }));
    assert.equal(m.version, 2);
    await m.start();
    const top = join(root, 'kubepods.slice');
    assert.equal(readFileSync(join(top, 'memory.max'), 'utf8'), String(7 * 2 ** 30));
    assert.equal(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8'), '+cpu +cpuset +memory +pids +io');
    const g = pod('g1', { limits: { cpu: '500m', memory: '1Gi' } });
    assert.equal(await m.ensurePod(g), 'kubepods-podg1.slice');
    assert.equal(readFileSync(join(top, 'kubepods-podg1.slice', 'cpu.max'), 'utf8'), '50000 100000');
    assert.equal(readFileSync(join(top, 'kubepods-podg1.slice', 'cpu.weight'), 'utf8'), String(Math.round(1 + ((512 - 2) * 9999) / 262142)));
    await m.updateQos([g]);
    // half of the guaranteed pod's memory is kept from the burstable group
    assert.equal(readFileSync(join(top, 'kubepods-burstable.slice', 'memory.max'), 'utf8'), String(7 * 2 ** 30 - 2 ** 29));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the reserved groups get the reserved amounts when their level is enforced', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cgroups-reserved-'));
  try {
    for (const c of ['cpu', 'memory']) {
      mkdirSync(join(root, c, 'system.slice'), { recursive: true });
      writeFileSync(join(root, c, 'cgroup.procs'), '');
    }
    const m = createCgroupManager(settings(root, { enforce: ['pods', 'system-reserved'], systemReservedCgroup: '/system.slice' }));
    await m.start();
    assert.equal(readFileSync(join(root, 'memory', 'system.slice', 'memory.limit_in_bytes'), 'utf8'), String(2 ** 30));
    assert.equal(readFileSync(join(root, 'cpu', 'system.slice', 'cpu.shares'), 'utf8'), '512');
    const missing = createCgroupManager(settings(root, { enforce: ['system-reserved'], systemReservedCgroup: '/nowhere' }));
    await assert.rejects(missing.start(), /the system-reserved cgroup \/nowhere does not exist/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
