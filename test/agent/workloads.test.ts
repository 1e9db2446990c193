// Real workloads on containerd: every kind of volume read from inside containers (a ConfigMap edit
// reaching the mounted file, a projected token that authenticates), limits in the cgroups and an OOM kill
// with the reference's reason, the QoS hierarchy, the security context as the process sees it, node
// admission, and usage figures that move when a pod burns CPU.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../support/ports.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import type { Summary } from '../../src/agent/stats/summary.js';
import type { TestServer } from '../../src/testing.js';
import { createClient, type Client } from '../../src/client/rest-client.js';
import type { RunningAgent } from '../../src/agent/agent.js';
import { containerdMissing, type Containerd } from './containerd.js';
import { httpsGet, tempDir, waitFor } from './helpers.js';
import { slow, startRealNode, type RealNode } from './real-node.js';

const missing = containerdMissing();
const image = 'localhost/busybox:1';
const node = 'work-node';

const hostPod = (name: string, containers: object[], spec: object = {}, metadata: object = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, ...metadata },
  spec: { nodeName: node, hostNetwork: true, terminationGracePeriodSeconds: 1, containers, ...spec },
});
const ref = (resource: string) => ({ group: '', version: 'v1', resource });

describe('real workloads on containerd', { skip: missing ? `containerd cannot run here: ${missing}` : false, timeout: 900_000 }, () => {
  let n: RealNode;
  let server: TestServer;
  let containerd: Containerd;
  let client: Client;
  let agent: RunningAgent;
  let servers: AgentServers;
  let port: number;
  let hostDir: string;

  before(async () => {
    hostDir = tempDir('agent-work-host-');
    port = await freePort();
    n = await startRealNode(node, [
      '--address=127.0.0.1', `--port=${port}`, '--system-reserved=memory=1Gi,cpu=100m', '--pod-max-pids=200', '--seccomp-default',
      '--cpu-cfs-quota-period=50ms', '--feature-gates=CustomCPUCFSQuotaPeriod=true', '--allowed-unsafe-sysctls=kernel.msg*',
    ], { volumeRefreshMs: 300, statsSampleMs: 1000, evictionIntervalMs: 500 });
    ({ server, containerd, client, agent } = n);
    servers = await startAgentServers(n.options, agent.nodes, agent.client, agent.metrics);
  }, { timeout: 300_000 });

  after(async () => {
    await servers?.close();
    await n?.stop();
    rmSync(hostDir, { recursive: true, force: true });
  });

  const pods = () => n.pods();
  const running = (name: string) => n.running(name);
  const idOf = (p: any, container: string) => p.status.containerStatuses.find((s: any) => s.name === container).containerID.replace(/^containerd:\/\//, '');
  const exec = (p: any, container: string, command: string[]) => agent.nodes[0]!.runtime.execSync(idOf(p, container), command, 20);
  const read = async (p: any, container: string, path: string) => {
    const r = await exec(p, container, ['cat', path]);
    assert.equal(r.exitCode, 0, `cat ${path}: ${r.stderr}`);
    return r.stdout;
  };
  const cgroupDir = (controller: string, p: any, container?: string) => n.cgroupDir(controller, p, container);
  const processStatus = (p: any, container: string) => {
    const pid = readFileSync(join(cgroupDir('pids', p, container), 'cgroup.procs'), 'utf8').trim().split('\n')[0];
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  };
  const field = (status: string, name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim().split(/\s+/);

  test('every kind of volume reaches the containers; a ConfigMap edit reaches the mounted file; the token authenticates', async () => {
    const cms = client.resource(ref('configmaps'), 'default');
    await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { greeting: 'hello', 'app.conf': 'level=info\n' } });
    await client.resource(ref('secrets'), 'default').create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { password: Buffer.from('s3cret').toString('base64') } });
    // a claim bound to a hostPath volume (no volume controller runs here: the test binds it)
    const pvPath = join(hostDir, 'pv');
    mkdirSync(pvPath);
    writeFileSync(join(pvPath, 'data.txt'), 'persistent\n');
    await client.resource(ref('persistentvolumes')).create({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'local-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: pvPath, type: 'Directory' } } });
    await client.resource(ref('persistentvolumeclaims'), 'default').create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: 'local-pv' } });
    await client.resource(ref('persistentvolumeclaims'), 'default').status.patch('claim', { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } }, 'merge');
    const hostPathDir = join(hostDir, 'made-by-agent');

    await pods().create(hostPod('volumes', [
      {
        name: 'reader', image, command: ['sleep', '3600'], resources: { limits: { memory: '48Mi' } },
        volumeMounts: [
          { name: 'vault', mountPath: '/etc/vault' }, { name: 'config', mountPath: '/etc/config' }, { name: 'secret', mountPath: '/etc/secret' }, { name: 'info', mountPath: '/etc/info' },
          { name: 'scratch', mountPath: '/scratch' }, { name: 'memory', mountPath: '/memory' }, { name: 'host', mountPath: '/host' },
          { name: 'claim', mountPath: '/claim', readOnly: true }, { name: 'config', mountPath: '/etc/app.conf', subPath: 'app.conf' },
          { name: 'scratch', mountPath: '/sub', subPath: 'nested/dir' },
        ],
      },
      { name: 'writer', image, command: ['sh', '-c', 'echo shared-by-writer > /out/file; sleep 3600'], volumeMounts: [{ name: 'scratch', mountPath: '/out' }] },
    ], {
      volumes: [
        { name: 'config', configMap: { name: 'settings', items: [{ key: 'greeting', path: 'greeting', mode: 0o600 }, { key: 'app.conf', path: 'app.conf' }] } },
        { name: 'secret', secret: { secretName: 'creds' } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
        { name: 'scratch', emptyDir: {} },
        { name: 'memory', emptyDir: { medium: 'Memory', sizeLimit: '8Mi' } },
        { name: 'host', hostPath: { path: hostPathDir, type: 'DirectoryOrCreate' } },
        { name: 'claim', persistentVolumeClaim: { claimName: 'claim' } },
        {
          name: 'vault', projected: {
            defaultMode: 0o440,
            sources: [
              { serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'token' } },
              { downwardAPI: { items: [{ path: 'memory-limit', resourceFieldRef: { containerName: 'reader', resource: 'limits.memory', divisor: '1Mi' } }] } },
              { configMap: { name: 'settings', items: [{ key: 'greeting', path: 'greeting' }] } },
            ],
          },
        },
      ],
    }, { labels: { app: 'demo', tier: 'back' } }));
    const p = await running('volumes');

    assert.equal(await read(p, 'reader', '/etc/config/greeting'), 'hello');
    assert.equal((await exec(p, 'reader', ['stat', '-L', '-c', '%a', '/etc/config/greeting'])).stdout.trim(), '600', 'the item mode');
    assert.equal(await read(p, 'reader', '/etc/app.conf'), 'level=info\n', 'a subPath of the ConfigMap');
    assert.equal(await read(p, 'reader', '/etc/secret/password'), 's3cret');
    assert.equal(await read(p, 'reader', '/etc/info/labels'), 'app="demo"\ntier="back"');
    assert.equal(await read(p, 'reader', '/etc/info/name'), 'volumes');
    assert.equal(await read(p, 'reader', '/claim/data.txt'), 'persistent\n');
    assert.notEqual((await exec(p, 'reader', ['touch', '/claim/x'])).exitCode, 0, 'the claim is mounted read-only');
    assert.ok(statSync(hostPathDir).isDirectory(), 'DirectoryOrCreate made the host folder');
    assert.equal((await exec(p, 'reader', ['sh', '-c', 'echo from-container > /host/out'])).exitCode, 0);
    assert.equal(readFileSync(join(hostPathDir, 'out'), 'utf8'), 'from-container\n');
    // the emptyDir is shared by both containers, and the subPath folder was made inside it
    assert.equal(await read(p, 'reader', '/scratch/file'), 'shared-by-writer\n');
    assert.equal((await exec(p, 'reader', ['sh', '-c', 'echo deep > /sub/f && cat /scratch/nested/dir/f'])).stdout, 'deep\n');
    // memory-backed: a tmpfs of the size limit; secrets never touch the disk
    const mounts = await read(p, 'reader', '/proc/mounts');
    assert.match(mounts, /^tmpfs \/memory tmpfs [^ ]*size=8192k/m);
    assert.match(mounts, /^tmpfs \/etc\/secret tmpfs /m);

    // the projected service-account volume the admission plugin added: token, root CA, namespace
    const tokenDir = `/var/run/secrets/${server.names.labelDomain}/serviceaccount`;
    assert.equal(await read(p, 'reader', `${tokenDir}/namespace`), 'default');
    assert.equal(await read(p, 'reader', `${tokenDir}/ca.crt`), client.config.caPem);
    const token = await read(p, 'reader', `${tokenDir}/token`);
    const asPod = createClient({ ...client.config, certPem: undefined, keyPem: undefined, token });
    const group = server.names.group('authentication');
    const review = await asPod.request({ method: 'POST', path: `/apis/${group}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${group}/v1beta1`, kind: 'SelfSubjectReview' } });
    asPod.close();
    assert.equal(review.status.userInfo.username, 'system:serviceaccount:default:default');
    // a projected token of its own audience and lifetime, beside a limit and a ConfigMap key, in the volume's mode
    const claims = JSON.parse(Buffer.from((await read(p, 'reader', '/etc/vault/token')).split('.')[1]!, 'base64url').toString());
    assert.deepEqual(claims.aud, ['vault']);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.equal(await read(p, 'reader', '/etc/vault/memory-limit'), '48');
    assert.equal(await read(p, 'reader', '/etc/vault/greeting'), 'hello');
    assert.equal((await exec(p, 'reader', ['stat', '-L', '-c', '%a', '/etc/vault/memory-limit'])).stdout.trim(), '440');

    // a ConfigMap edit reaches the mounted file (the subPath mount keeps the old content, as the reference)
    await cms.patch('settings', { data: { greeting: 'hello again', 'app.conf': 'level=debug\n' } }, 'merge');
    await waitFor('the edit in the file', async () => (await read(p, 'reader', '/etc/config/greeting')) === 'hello again', slow, 200);
    assert.equal(await read(p, 'reader', '/etc/config/app.conf'), 'level=debug\n');
    // label changes reach the downward API file
    await pods().patch('volumes', { metadata: { labels: { tier: 'front' } } }, 'merge');
    await waitFor('the labels in the file', async () => (await read(p, 'reader', '/etc/info/labels')) === 'app="demo"\ntier="front"', slow, 200);

    // deleting the pod unmounts and removes its folder
    const podDir = join(containerd.agentRoot, 'pods', p.metadata.uid);
    await pods().delete('volumes', { gracePeriodSeconds: 1 });
    await waitFor('pod folder removed', () => { try { statSync(podDir); return false; } catch { return true; } }, slow, 200);
    assert.ok(!readFileSync('/proc/mounts', 'utf8').includes(podDir), 'no mount of the pod is left');
  });

  test('a missing ConfigMap and Secret keep the pod waiting with a FailedMount event for each until they appear', async () => {
    await pods().create(hostPod('waits', [{ name: 'main', image, command: ['sleep', '3600'], volumeMounts: [{ name: 'c', mountPath: '/c' }, { name: 's', mountPath: '/s' }] }],
      { volumes: [{ name: 'c', configMap: { name: 'later' } }, { name: 's', secret: { secretName: 'later-secret' } }] }));
    const waiting = await waitFor('FailedMount', async () => {
      const p = await pods().get('waits');
      return p.status?.containerStatuses?.[0]?.state?.waiting?.message?.includes('configmap "later" not found') && p;
    }, slow, 200);
    assert.equal(waiting.status.phase, 'Pending');
    // each volume is tried and reported, as the kubelet reports each one
    const mountEvents = async () => (await client.resource(ref('events'), 'default').list()).items
      .filter((e: any) => e.involvedObject.name === 'waits' && e.reason === 'FailedMount').map((e: any) => e.message).sort();
    await waitFor('a FailedMount event for each volume', async () => (await mountEvents()).length >= 2, slow, 200);
    assert.deepEqual(await mountEvents(), ['MountVolume.SetUp failed for volume "c" : configmap "later" not found',
      'MountVolume.SetUp failed for volume "s" : secret "later-secret" not found']);
    await client.resource(ref('configmaps'), 'default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'later' }, data: { k: 'v' } });
    await client.resource(ref('secrets'), 'default').create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'later-secret' }, data: { k: 'dg==' } });
    await running('waits');
    await pods().delete('waits', { gracePeriodSeconds: 0 });
  });

  test('limits reach the cgroups; the pod and QoS groups follow the hierarchy; an over-limit process is OOM-killed', async () => {
    await pods().create(hostPod('limited', [{
      name: 'main', image, command: ['sleep', '3600'],
      resources: { requests: { cpu: '250m', memory: '32Mi' }, limits: { cpu: '500m', memory: '64Mi' } },
    }]));
    const p = await running('limited');
    assert.equal(p.status.qosClass, 'Burstable');
    const memLimit = Number(readFileSync(join(cgroupDir('memory', p, 'main'), 'memory.limit_in_bytes'), 'utf8'));
    assert.equal(memLimit, 64 * 2 ** 20, 'the container memory limit');
    // 500m of a 50ms period (--cpu-cfs-quota-period)
    assert.equal(readFileSync(join(cgroupDir('cpu', p, 'main'), 'cpu.cfs_period_us'), 'utf8').trim(), '50000');
    assert.equal(readFileSync(join(cgroupDir('cpu', p, 'main'), 'cpu.cfs_quota_us'), 'utf8').trim(), '25000');
    assert.equal(readFileSync(join(cgroupDir('cpu', p, 'main'), 'cpu.shares'), 'utf8').trim(), '256');
    // the pod's own group: the sums of its containers, and --pod-max-pids
    assert.equal(Number(readFileSync(join(cgroupDir('memory', p), 'memory.limit_in_bytes'), 'utf8')), 64 * 2 ** 20);
    assert.equal(readFileSync(join(cgroupDir('pids', p), 'pids.max'), 'utf8').trim(), '200');
    // kubepods is capped at allocatable: capacity less the 1Gi reserved (--enforce-node-allocatable=pods)
    const kubepods = `/sys/fs/cgroup/memory${containerd.cgroupRoot}/kubepods`;
    const total = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
    const podsLimit = Number(readFileSync(join(kubepods, 'memory.limit_in_bytes'), 'utf8'));
    assert.ok(Math.abs(podsLimit - (total - 2 ** 30)) < 2 ** 20, `kubepods memory limit ${podsLimit} is capacity less 1Gi`);
    assert.ok(Number(readFileSync(`/sys/fs/cgroup/cpu${containerd.cgroupRoot}/kubepods/burstable/cpu.shares`, 'utf8')) >= 256, 'burstable shares follow the requests');
    assert.equal(readFileSync(`/sys/fs/cgroup/cpu${containerd.cgroupRoot}/kubepods/besteffort/cpu.shares`, 'utf8').trim(), '2');

    await pods().create(hostPod('hungry', [{ name: 'main', image, command: ['tail', '/dev/zero'], resources: { limits: { cpu: '1', memory: '16Mi' } } }], { restartPolicy: 'Never' }));
    const oom = await waitFor('OOMKilled', async () => {
      const x = await pods().get('hungry');
      return x.status?.containerStatuses?.[0]?.state?.terminated && x;
    }, slow, 200);
    assert.equal(oom.status.qosClass, 'Guaranteed');
    assert.equal(oom.status.containerStatuses[0].state.terminated.reason, 'OOMKilled');
    assert.equal(oom.status.containerStatuses[0].state.terminated.exitCode, 137);
    assert.equal(oom.status.phase, 'Failed');
    await pods().delete('limited', { gracePeriodSeconds: 0 });
    await pods().delete('hungry', { gracePeriodSeconds: 0 });
    await waitFor('the pod\'s cgroup removed', () => !existsSync(cgroupDir('memory', p)), slow, 200);
  });

  test('the security context is what the process runs with', async () => {
    await pods().create(hostPod('secure', [
      {
        name: 'main', image, command: ['sh', '-c', 'touch /scratch/made; sleep 3600'], volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        securityContext: { runAsUser: 1234, runAsGroup: 2345, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } },
      },
      { name: 'open', image, command: ['sleep', '3600'], securityContext: { seccompProfile: { type: 'Unconfined' } } },
    ], { securityContext: { fsGroup: 3456, supplementalGroups: [4567] }, volumes: [{ name: 'scratch', emptyDir: {} }] }));
    const p = await running('secure');
    const status = processStatus(p, 'main');
    assert.deepEqual(field(status, 'Uid'), ['1234', '1234', '1234', '1234'], 'runAsUser is the uid of the process');
    assert.deepEqual(field(status, 'Gid'), ['2345', '2345', '2345', '2345']);
    for (const g of ['3456', '4567']) assert.ok(field(status, 'Groups')!.includes(g), `fsGroup and the supplemental groups: ${field(status, 'Groups')}`);
    // a non-root process holds no effective capabilities; its bounding set is what the context leaves
    assert.equal(field(status, 'CapBnd')![0], '0000000000000400', 'only NET_BIND_SERVICE');
    assert.equal(field(status, 'NoNewPrivs')![0], '1');
    assert.equal(field(status, 'Seccomp')![0], '2', 'the runtime default profile (--seccomp-default)');
    assert.equal(field(processStatus(p, 'open'), 'Seccomp')![0], '0', 'an explicit Unconfined profile');
    assert.notEqual((await exec(p, 'main', ['touch', '/root-write'])).exitCode, 0, 'the root filesystem is read-only');
    // the emptyDir belongs to the fsGroup, and what is made in it inherits the group
    assert.equal((await exec(p, 'main', ['stat', '-c', '%u %g', '/scratch/made'])).stdout.trim(), '1234 3456');
    await pods().delete('secure', { gracePeriodSeconds: 0 });
  });

  test('host namespaces, sysctls and privileged containers as the process sees them', async () => {
    await pods().create(hostPod('hosty', [
      { name: 'main', image, command: ['sleep', '3600'] },
      { name: 'root', image, command: ['sleep', '3600'], securityContext: { privileged: true } },
    ], { hostPID: true, securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'kernel.msgmax', value: '12345' }] } }));
    const p = await running('hosty');
    const pid = readFileSync(join(cgroupDir('pids', p, 'main'), 'cgroup.procs'), 'utf8').trim().split('\n')[0];
    const ns = (which: string, of = pid) => readlinkSync(`/proc/${of}/ns/${which}`);
    assert.equal(ns('pid'), ns('pid', 'self'), 'hostPID: the host\'s process namespace');
    assert.equal(ns('net'), ns('net', 'self'), 'hostNetwork: the host\'s network');
    assert.notEqual(ns('ipc'), ns('ipc', 'self'), 'an IPC namespace of the pod\'s own');
    assert.equal((await exec(p, 'main', ['cat', `/proc/${process.pid}/comm`])).stdout.trim(), 'node', 'the host\'s processes are visible');
    // the sysctls are set in the pod's IPC namespace, not the host's
    assert.equal((await read(p, 'main', '/proc/sys/kernel/shm_rmid_forced')).trim(), '1');
    assert.equal((await read(p, 'main', '/proc/sys/kernel/msgmax')).trim(), '12345', 'an unsafe sysctl allowed by --allowed-unsafe-sysctls');
    assert.notEqual(readFileSync('/proc/sys/kernel/msgmax', 'utf8').trim(), '12345');
    // privileged: every capability, the host's devices
    assert.equal(field(processStatus(p, 'root'), 'CapEff')![0], field(readFileSync('/proc/self/status', 'utf8'), 'CapBnd')![0], 'every capability the node has');
    assert.equal(field(processStatus(p, 'main'), 'CapEff')![0], '00000000a80425fb', 'the runtime\'s default set');
    const hostDevice = ['/dev/kmsg', '/dev/mem', '/dev/loop-control'].find(existsSync);
    if (hostDevice) {
      assert.equal((await exec(p, 'root', ['test', '-e', hostDevice])).exitCode, 0, `the host's ${hostDevice} in a privileged container`);
      assert.notEqual((await exec(p, 'main', ['test', '-e', hostDevice])).exitCode, 0);
    }
    await pods().delete('hosty', { gracePeriodSeconds: 0 });

    // sysctls the node does not allow, or of a namespace shared with the host, are refused at admission
    await pods().create(hostPod('unsafe', [{ name: 'main', image }], { securityContext: { sysctls: [{ name: 'kernel.sem', value: '250 32000 32 128' }] } }));
    await pods().create(hostPod('shared-net', [{ name: 'main', image }], { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] } }));
    for (const [name, message] of [['unsafe', 'forbidden sysctl: "kernel.sem" not allowlisted'], ['shared-net', 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled']]) {
      const refused = await waitFor(`${name} refused`, async () => {
        const x = await pods().get(name!);
        return x.status?.phase === 'Failed' && x;
      }, slow, 200);
      assert.equal(refused.status.reason, 'SysctlForbidden');
      assert.equal(refused.status.message, `Pod was rejected: ${message}`);
    }
  });

  test('node admission: pods the node cannot run are rejected with the reference reasons and events', async () => {
    await pods().create(hostPod('too-big', [{ name: 'main', image, resources: { requests: { cpu: '500' } } }]));
    await pods().create(hostPod('elsewhere', [{ name: 'main', image }], { nodeSelector: { disk: 'ssd' } }));
    const big = await waitFor('OutOfcpu', async () => {
      const x = await pods().get('too-big');
      return x.status?.phase === 'Failed' && x;
    }, slow, 200);
    assert.equal(big.status.reason, 'OutOfcpu');
    assert.match(big.status.message, /^Pod was rejected: Node didn't have enough resource: cpu, requested: 500000, used: \d+, capacity: \d+$/);
    const other = await waitFor('NodeAffinity', async () => {
      const x = await pods().get('elsewhere');
      return x.status?.phase === 'Failed' && x;
    }, slow, 200);
    assert.equal(other.status.reason, 'NodeAffinity');
    assert.equal(other.status.message, 'Pod was rejected: Predicate NodeAffinity failed');
    const events = await waitFor('events', async () => {
      const list = (await client.resource(ref('events'), 'default').list()).items;
      const mine = list.filter((e: any) => ['too-big', 'elsewhere'].includes(e.involvedObject.name));
      return mine.length >= 2 && mine;
    });
    assert.deepEqual(events.map((e: any) => `${e.type} ${e.reason}`).sort(), ['Warning NodeAffinity', 'Warning OutOfcpu']);
  });

  test('a pod writing more than its emptyDir sizeLimit is evicted with the reference message', async () => {
    await pods().create(hostPod('spill', [{ name: 'main', image, command: ['sh', '-c', 'dd if=/dev/zero of=/data/fill bs=1048576 count=8; sleep 3600'], volumeMounts: [{ name: 'data', mountPath: '/data' }] }], {
      volumes: [{ name: 'data', emptyDir: { sizeLimit: '4Mi' } }],
    }));
    const evicted = await waitFor('Evicted', async () => {
      const x = await pods().get('spill');
      return x.status?.reason === 'Evicted' && x;
    }, slow, 200);
    assert.equal(evicted.status.phase, 'Failed');
    assert.equal(evicted.status.message, 'Usage of EmptyDir volume "data" exceeds the limit "4Mi". ');
    await pods().delete('spill', { gracePeriodSeconds: 0 });
  });

  test('/stats/summary and /metrics/resource: the figures of a pod move when it burns CPU', async () => {
    // a request gives it a fair share of a machine other work runs on; a limit keeps it from taking more
    await pods().create(hostPod('burner', [{ name: 'main', image, command: ['sh', '-c', 'while [ ! -e /tmp/go ]; do sleep 0.2; done; while :; do :; done'], resources: { requests: { cpu: '250m' }, limits: { cpu: '500m' } } }]));
    const p = await running('burner');
    const summary = async () => JSON.parse((await httpsGet(`https://127.0.0.1:${port}/stats/summary`)).body) as Summary;
    const burner = (s: Summary) => s.pods.find((x) => x.podRef.name === 'burner');
    const idle = await waitFor('idle figures with a rate', async () => {
      const c = burner(await summary())?.containers.find((x) => x.name === 'main');
      return c?.cpu?.usageNanoCores !== undefined && c.memory && c;
    }, slow, 500);
    assert.ok(idle.cpu!.usageNanoCores! < 200_000_000, `idle: ${idle.cpu!.usageNanoCores} nanocores`);
    await exec(p, 'main', ['touch', '/tmp/go']);
    let last: unknown;
    const busy = await waitFor('busy figures', async () => {
      const s = burner(await summary());
      last = s?.containers;
      const c = s?.containers.find((x) => x.name === 'main');
      return c?.cpu && c.cpu.usageNanoCores! > Math.max(100_000_000, 3 * idle.cpu!.usageNanoCores!) && c.cpu.usageCoreNanoSeconds > idle.cpu!.usageCoreNanoSeconds + 1e9 && s;
    }, slow, 500).catch((e) => { throw new Error(`${(e as Error).message}; last figures ${JSON.stringify(last)}`); });
    const c = busy.containers[0]!;
    process.stdout.write(`# burner: idle ${idle.cpu!.usageNanoCores} nanocores, ${idle.cpu!.usageCoreNanoSeconds} ns; busy ${c.cpu!.usageNanoCores} nanocores, ${c.cpu!.usageCoreNanoSeconds} ns\n`);
    assert.ok(busy.cpu!.usageCoreNanoSeconds >= c.cpu!.usageCoreNanoSeconds, 'the pod counts its containers');
    assert.ok(c.memory!.workingSetBytes > 0 && c.logs!.usedBytes !== undefined);
    const s = await summary();
    assert.equal(s.node.nodeName, node);
    assert.equal((await client.resource(ref('nodes')).get(node)).status.daemonEndpoints.kubeletEndpoint.Port, port, 'the node tells where its server is (--port)');
    assert.ok(s.node.cpu!.usageNanoCores! > 100_000_000, 'the node is busy too');
    assert.ok(s.node.memory!.workingSetBytes > 0 && s.node.fs!.capacityBytes! > 0 && s.node.runtime!.imageFs!.usedBytes! > 0);
    assert.ok(s.node.systemContainers.find((c) => c.name === 'pods')!.cpu!.usageCoreNanoSeconds > 0, 'the pods\' cgroup');
    const metrics = (await httpsGet(`https://127.0.0.1:${port}/metrics/resource`)).body;
    const line = new RegExp(`^container_cpu_usage_seconds_total\\{container="main",namespace="default",pod="burner"\\} ([\\d.e+-]+) \\d+$`, 'm').exec(metrics);
    assert.ok(line && Number(line[1]) > 1, `the counter in /metrics/resource: ${line?.[0]}`);
    assert.match(metrics, /^node_memory_working_set_bytes \d+ \d+$/m);
    assert.match(metrics, /^pod_cpu_usage_seconds_total\{namespace="default",pod="burner"\} /m);
    const own = (await httpsGet(`https://127.0.0.1:${port}/metrics`)).body;
    assert.match(own, /^kubelet_running_pods \d+$/m);
    assert.match(own, /^kubelet_runtime_operations_total\{operation_type="list_containers"\} \d+$/m);
    await pods().delete('burner', { gracePeriodSeconds: 0 });
  });
});
