// Pod DNS settings by policy (unit).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResolvConf, podDns } from '../../src/agent/dns.js';

const resolv = 'nameserver 192.0.2.53\nnameserver 192.0.2.54 # second\nsearch corp.example lab.example\noptions timeout:2 rotate\n';
const settings = { clusterDns: ['10.96.0.10'], clusterDomain: 'cluster.local', resolvConf: '/etc/resolv.conf' };
const dns = (spec: object, s = settings) => podDns({ metadata: { name: 'p', namespace: 'shop', uid: 'u' }, spec: { containers: [], ...spec } }, s, () => resolv);

describe('pod DNS', () => {
  test('resolv.conf is parsed', () => {
    assert.deepEqual(parseResolvConf(resolv), { servers: ['192.0.2.53', '192.0.2.54'], searches: ['corp.example', 'lab.example'], options: ['timeout:2', 'rotate'] });
  });

  test('ClusterFirst: the cluster DNS, the namespace search path, then the host searches; ndots:5', () => {
    assert.deepEqual(dns({}), {
      servers: ['10.96.0.10'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', 'lab.example'],
      options: ['ndots:5'],
    });
  });

  test('host network: ClusterFirst inherits the host; ClusterFirstWithHostNet does not', () => {
    assert.deepEqual(dns({ hostNetwork: true }).servers, ['192.0.2.53', '192.0.2.54']);
    assert.deepEqual(dns({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }).servers, ['10.96.0.10']);
  });

  test('without --cluster-dns ClusterFirst falls back to Default; an empty --resolv-conf gives nothing', () => {
    assert.deepEqual(dns({}, { ...settings, clusterDns: [] }).servers, ['192.0.2.53', '192.0.2.54']);
    assert.deepEqual(dns({ dnsPolicy: 'Default' }, { ...settings, resolvConf: '' }), { servers: [], searches: [], options: [] });
  });

  test('None takes only dnsConfig; dnsConfig is appended and its options override', () => {
    const dnsConfig = { nameservers: ['192.0.2.1'], searches: ['x.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] };
    assert.deepEqual(dns({ dnsPolicy: 'None', dnsConfig }), { servers: ['192.0.2.1'], searches: ['x.example'], options: ['ndots:2', 'edns0'] });
    assert.deepEqual(dns({ dnsConfig }).options, ['ndots:2', 'edns0']);
    assert.deepEqual(dns({ dnsConfig }).servers, ['10.96.0.10', '192.0.2.1']);
  });
});
