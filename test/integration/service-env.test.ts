// What in-cluster clients find in their containers' environment: the API server's Service as <VENDOR>_SERVICE_HOST/
// _PORT (and its Docker-link variables) in every pod, whatever enableServiceLinks says; the Services of the pod's own
// namespace with enableServiceLinks (not headless ones, not other namespaces'); a variable the container sets itself
// wins, and $(VAR) in values sees the services' variables. The serving certificate the server makes covers the
// Service's cluster IP and DNS names, so a client following those variables verifies it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { waitFor } from '../support/wait.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };
const servicesRef = { group: '', version: 'v1', resource: 'services' };
const namespacesRef = { group: '', version: 'v1', resource: 'namespaces' };

describe('service environment variables of containers', () => {
  let server: TestServer;
  before(async () => { server = await startTestServer({ nodes: 1 }); });
  after(async () => { await server?.close(); });

  /** the variables a pod's init container starts with, as its `env` prints them (an init container runs it to its end) */
  async function envOf(namespace: string, name: string, spec: { env?: unknown[]; enableServiceLinks?: boolean }): Promise<Map<string, string>> {
    await server.client.resource(podsRef, namespace).create({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: {
        ...(spec.enableServiceLinks === undefined ? {} : { enableServiceLinks: spec.enableServiceLinks }),
        initContainers: [{ name: 'probe', image: 'busybox', command: ['env'], env: spec.env ?? [] }],
        containers: [{ name: 'main', image: 'busybox' }],
      },
    });
    await waitFor(`the init container of ${name} to end`, async () =>
      (await server.client.resource(podsRef, namespace).get(name)).status?.initContainerStatuses?.[0]?.state?.terminated);
    const text = await server.client.request<string>({ method: 'GET', path: `/api/v1/namespaces/${namespace}/pods/${name}/log?container=probe` });
    return new Map(text.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  }

  test('the API server\'s Service always; the namespace\'s Services with enableServiceLinks', async () => {
    const api = await server.client.resource(servicesRef, 'default').get(server.names.vendor);
    const ip: string = api.spec.clusterIP;
    const port: number = api.spec.ports[0].port;
    const V = server.names.vendor.toUpperCase();
    await server.client.resource(namespacesRef).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    const shop = server.client.resource(servicesRef, 'shop');
    const web = await shop.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web-front' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, protocol: 'UDP' }] } });
    await shop.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'headless' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } });
    await server.client.resource(servicesRef, 'default').create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'elsewhere' }, spec: { ports: [{ port: 81 }] } });
    const webIp: string = web.spec.clusterIP;

    const linked = await envOf('shop', 'linked', { env: [
      { name: 'API', value: `https://$(${V}_SERVICE_HOST):$(${V}_SERVICE_PORT)` },
      { name: 'WEB_FRONT_SERVICE_PORT', value: 'mine' },
    ] });
    assert.equal(linked.get(`${V}_SERVICE_HOST`), ip);
    assert.equal(linked.get(`${V}_SERVICE_PORT`), String(port));
    assert.equal(linked.get(`${V}_PORT`), `tcp://${ip}:${port}`);
    assert.equal(linked.get(`${V}_PORT_${port}_TCP_ADDR`), ip);
    assert.equal(linked.get('API'), `https://${ip}:${port}`);
    assert.equal(linked.get('WEB_FRONT_SERVICE_HOST'), webIp);
    assert.equal(linked.get('WEB_FRONT_SERVICE_PORT'), 'mine', 'the container\'s own value wins');
    assert.equal(linked.get('WEB_FRONT_SERVICE_PORT_DNS'), '53');
    assert.equal(linked.get('WEB_FRONT_PORT'), `tcp://${webIp}:80`);
    assert.equal(linked.get('WEB_FRONT_PORT_53_UDP'), `udp://${webIp}:53`);
    assert.equal(linked.get('WEB_FRONT_PORT_53_UDP_PROTO'), 'udp');
    assert.equal(linked.get('WEB_FRONT_PORT_53_UDP_PORT'), '53');
    assert.equal(linked.get('WEB_FRONT_PORT_53_UDP_ADDR'), webIp);
    assert.ok(![...linked.keys()].some((k) => k.startsWith('HEADLESS_') || k.startsWith('ELSEWHERE_')), [...linked.keys()].join(' '));

    const unlinked = await envOf('shop', 'unlinked', { enableServiceLinks: false });
    assert.equal(unlinked.get(`${V}_SERVICE_HOST`), ip);
    assert.equal(unlinked.get(`${V}_SERVICE_PORT`), String(port));
    assert.ok(![...unlinked.keys()].some((k) => k.startsWith('WEB_FRONT_')), [...unlinked.keys()].join(' '));
  });

  test('the serving certificate covers the API server\'s Service: its cluster IP and <vendor>.default.svc', async () => {
    const api = await server.client.resource(servicesRef, 'default').get(server.names.vendor);
    const url = new URL(server.url);
    const cert = await new Promise<{ subjectaltname?: string }>((resolve, reject) => {
      const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.caCertPem, servername: `${server.names.vendor}.default.svc`, ALPNProtocols: ['h2'] }, () => {
        resolve(socket.getPeerCertificate());
        socket.end();
      });
      socket.once('error', reject);
    });
    const sans = (cert.subjectaltname ?? '').split(', ');
    const v = server.names.vendor;
    for (const name of [`DNS:${v}.default.svc`, `DNS:${v}.default`, `DNS:${v}`, `IP Address:${api.spec.clusterIP}`]) assert.ok(sans.includes(name), `${name} in ${sans.join(', ')}`);
  });
});
