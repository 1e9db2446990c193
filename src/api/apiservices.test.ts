import { test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from './naming.js';
import { backendAddress, builtinPriority, compareVersions, customResourcePriority } from './apiservices.js';
import type { APIService } from './types/apiregistration-v1.js';
import type { Endpoints, Service } from './types/core-v1.js';

const apiService = (port = 443): APIService => ({
  metadata: { name: 'v1.example.com' },
  spec: { group: 'example.com', version: 'v1', service: { namespace: 'ns', name: 'api', port }, groupPriorityMinimum: 100, versionPriority: 10 },
});
const service = (ports: Array<{ name?: string; port: number }>): Service => ({ metadata: { name: 'api', namespace: 'ns' }, spec: { ports } });
const endpoints = (ports: Array<{ name?: string; port: number }>, ip = '127.0.0.1'): Endpoints =>
  ({ metadata: { name: 'api', namespace: 'ns' }, subsets: [{ addresses: [{ ip }], ports }] });

test('a backend is reached at a ready address of its Service\'s endpoints, on the port of the same name', () => {
  assert.deepEqual(backendAddress(apiService(), service([{ name: 'https', port: 443 }]), endpoints([{ name: 'https', port: 8443 }])), { ok: true, host: '127.0.0.1', port: 8443 });
  assert.deepEqual(backendAddress(apiService(), { metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: 'api.example.com' } }, undefined),
    { ok: true, host: 'api.example.com', port: 443 });
});

test('each way a backend cannot be reached has the reference\'s reason', () => {
  const reason = (s?: Service, e?: Endpoints, port?: number) => { const r = backendAddress(apiService(port), s, e); return r.ok ? 'ok' : r.reason; };
  assert.equal(reason(undefined, undefined), 'ServiceNotFound');
  assert.equal(reason(service([{ port: 443 }]), undefined, 444), 'ServicePortError');
  assert.equal(reason(service([{ port: 443 }]), undefined), 'EndpointsNotFound');
  assert.equal(reason(service([{ name: 'https', port: 443 }]), endpoints([{ name: 'other', port: 1 }])), 'MissingEndpoints');
  assert.equal(reason(service([{ port: 443 }]), { metadata: { name: 'api' }, subsets: [{ notReadyAddresses: [{ ip: '127.0.0.1' }], ports: [{ port: 1 }] }] }), 'MissingEndpoints');
});

test('the built-in priorities hold in either domain; other group versions get the custom resources\' priority', () => {
  for (const domain of ['cluster.io', 'k8s.io'] as const) {
    const names = naming(domain);
    assert.deepEqual(builtinPriority(names, 'apps', 'v1'), { group: 17800, version: 15 });
    assert.deepEqual(builtinPriority(names, names.group('rbac.authorization'), 'v1'), { group: 17000, version: 15 });
    assert.equal(builtinPriority(names, 'example.com', 'v1'), undefined);
  }
  assert.equal(customResourcePriority.group, 1000);
});

test('versions sort GA, beta, alpha, newest first, other names last', () => {
  assert.deepEqual(['v1alpha1', 'foo', 'v1', 'v2beta1', 'v2', 'v1beta2', 'bar'].sort(compareVersions), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1alpha1', 'bar', 'foo']);
});
