import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenSysctl, sysctlNamespace, unsafeSysctlProblem } from './sysctls.js';
import type { AgentPod } from './objects.js';

const pod = (sysctls: string[], spec: Partial<AgentPod['spec']> = {}): AgentPod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u' },
  spec: { containers: [{ name: 'm', image: 'x' }], securityContext: { sysctls: sysctls.map((name) => ({ name, value: '1' })) }, ...spec },
});

test('namespaces: IPC for the shared-memory, message and semaphore sysctls, network for net.*, the host for the rest', () => {
  for (const n of ['kernel.shm_rmid_forced', 'kernel.msgmax', 'kernel.sem', 'fs.mqueue.msg_max', 'kernel/shmmax']) assert.equal(sysctlNamespace(n), 'ipc', n);
  for (const n of ['net.core.somaxconn', 'net/ipv4/conf/eth0.1/rp_filter']) assert.equal(sysctlNamespace(n), 'net', n);
  for (const n of ['kernel.pid_max', 'vm.swappiness', 'kernel.semx', 'fs.file-max']) assert.equal(sysctlNamespace(n), undefined, n);
});

test('--allowed-unsafe-sysctls takes only namespaced names and patterns', () => {
  for (const ok of ['net.core.somaxconn', 'net.*', 'kernel.shm*', 'kernel.msg*', 'fs.mqueue.*', 'net/ipv4/ip_forward']) assert.equal(unsafeSysctlProblem(ok), undefined, ok);
  assert.equal(unsafeSysctlProblem('kernel.pid_max'), 'the sysctl "kernel.pid_max" is not known to be namespaced');
  assert.equal(unsafeSysctlProblem('vm.*'), 'the sysctl "vm.*" is not known to be namespaced');
  assert.equal(unsafeSysctlProblem('Net.Core'), '"Net.Core" is not a sysctl name or pattern');
  assert.equal(unsafeSysctlProblem('net..x'), '"net..x" is not a sysctl name or pattern');
});

test('admission: safe and allowed sysctls pass, unless the pod shares that namespace with the host; the first refused is named', () => {
  assert.equal(forbiddenSysctl(pod(['kernel.shm_rmid_forced', 'net.ipv4.tcp_syncookies']), []), undefined);
  assert.equal(forbiddenSysctl(pod(['net.ipv4.tcp_syncookies', 'net.core.somaxconn', 'kernel.msgmax']), []), '"net.core.somaxconn" not allowlisted');
  assert.equal(forbiddenSysctl(pod(['net.core.somaxconn', 'kernel.msgmax']), ['net.*', 'kernel.msg*']), undefined);
  assert.equal(forbiddenSysctl(pod(['net/core/somaxconn']), ['net.core.somaxconn']), undefined, 'slashes as separators');
  assert.equal(forbiddenSysctl(pod(['net.ipv4.tcp_syncookies'], { hostNetwork: true }), []), '"net.ipv4.tcp_syncookies" not allowed with host net enabled');
  assert.equal(forbiddenSysctl(pod(['kernel.shm_rmid_forced'], { hostIPC: true }), []), '"kernel.shm_rmid_forced" not allowed with host ipc enabled');
  assert.equal(forbiddenSysctl(pod(['kernel.shm_rmid_forced'], { hostNetwork: true }), []), undefined, 'an IPC sysctl with the host network');
});
