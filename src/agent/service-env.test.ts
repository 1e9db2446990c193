// Service variables as the reference's agent writes them: names, Docker-link variables, IPv6 addresses, the API
// server's Service for every pod and a same-named Service of the pod's namespace over it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { podServiceVariables, serviceFacts, serviceVariables, type ServiceFacts } from './service-env.js';

const svc = (namespace: string, name: string, clusterIP: string, ports: Array<{ name?: string; port: number; protocol?: 'TCP' | 'UDP' | 'SCTP' }>) =>
  serviceFacts({ metadata: { name, namespace }, spec: { clusterIP, ports } })!;

describe('service variables', () => {
  test('each port named, the first as the Docker link, IPv6 in brackets', () => {
    const env = serviceVariables([svc('ns', 'my-db', 'fd00::10', [{ name: 'sql', port: 5432 }, { name: 'metrics', port: 9187, protocol: 'UDP' }])]);
    assert.deepEqual([...env], [
      ['MY_DB_SERVICE_HOST', 'fd00::10'], ['MY_DB_SERVICE_PORT', '5432'], ['MY_DB_SERVICE_PORT_SQL', '5432'], ['MY_DB_SERVICE_PORT_METRICS', '9187'],
      ['MY_DB_PORT', 'tcp://[fd00::10]:5432'],
      ['MY_DB_PORT_5432_TCP', 'tcp://[fd00::10]:5432'], ['MY_DB_PORT_5432_TCP_PROTO', 'tcp'], ['MY_DB_PORT_5432_TCP_PORT', '5432'], ['MY_DB_PORT_5432_TCP_ADDR', 'fd00::10'],
      ['MY_DB_PORT_9187_UDP', 'udp://[fd00::10]:9187'], ['MY_DB_PORT_9187_UDP_PROTO', 'udp'], ['MY_DB_PORT_9187_UDP_PORT', '9187'], ['MY_DB_PORT_9187_UDP_ADDR', 'fd00::10'],
    ]);
  });

  test('headless and ExternalName Services have none', () => {
    assert.equal(serviceFacts({ metadata: { name: 'h', namespace: 'ns' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } }), undefined);
    assert.equal(serviceFacts({ metadata: { name: 'x', namespace: 'ns' }, spec: { type: 'ExternalName', externalName: 'example.com' } }), undefined);
  });

  test('the API server\'s Service for every pod; the namespace\'s with links, one of the same name over it', () => {
    const services = new Map<string, Map<string, ServiceFacts>>([
      ['default', new Map([['kubernetes', svc('default', 'kubernetes', '10.0.0.1', [{ name: 'https', port: 443 }])], ['web', svc('default', 'web', '10.0.0.2', [{ port: 80 }])]])],
      ['app', new Map([['kubernetes', svc('app', 'kubernetes', '10.0.0.9', [{ port: 8443 }])], ['db', svc('app', 'db', '10.0.0.3', [{ port: 5432 }])]])],
    ]);
    const watch = { inNamespace: (ns: string) => services.get(ns) ?? new Map() };
    const unlinked = podServiceVariables(watch, 'kubernetes', 'app', false);
    assert.equal(unlinked.get('KUBERNETES_SERVICE_HOST'), '10.0.0.1');
    assert.equal(unlinked.has('DB_SERVICE_HOST') || unlinked.has('WEB_SERVICE_HOST'), false);
    const linked = podServiceVariables(watch, 'kubernetes', 'app', true);
    assert.equal(linked.get('DB_SERVICE_HOST'), '10.0.0.3');
    assert.equal(linked.get('KUBERNETES_SERVICE_HOST'), '10.0.0.9');
    assert.equal(linked.has('WEB_SERVICE_HOST'), false, 'another namespace\'s Service');
    assert.equal(podServiceVariables(watch, 'kubernetes', 'default', true).get('WEB_SERVICE_PORT'), '80');
  });
});
