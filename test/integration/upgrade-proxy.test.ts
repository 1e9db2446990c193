// Upgraded requests through the API server (exec, attach, port-forward) whose client goes away early: the tunnel to
// the node agent is not kept, and the request ends, however early the client left.
import { test } from 'node:test';
import { request } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { startTestServer } from '../../src/testing.js';
import { until } from '../support/wait.js';

const podsRef = { group: '', version: 'v1', resource: 'pods' };

test('an exec whose client leaves before the node agent has switched protocols ends, and so does its tunnel', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ nodes: 1 });
  try {
    const pods = server.client.resource(podsRef, 'default');
    await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'target' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await until(async () => (await pods.get('target')).status?.phase === 'Running', 'the pod Running');
    const auth = { ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem };
    const running = () => new Promise<number>((resolve, reject) => {
      request(`${server.url}/metrics`, auth, res => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(text.split('\n').filter(l => l.startsWith('apiserver_longrunning_requests') && l.includes('subresource="exec"'))
          .reduce((n, l) => n + Number(l.split(' ').pop()), 0)));
      }).on('error', reject).end();
    });
    const port = Number(new URL(server.url).port);
    const protocol = server.names.group('v4.channel');
    // each client sends its request and is gone at once, or a little later: while the server is still reaching the agent
    await Promise.all([0, 0, 1, 2, 5, 10].map(delay => new Promise<void>((resolve) => {
      const socket = tlsConnect({ port, host: '127.0.0.1', ...auth, ALPNProtocols: ['http/1.1'] }, () => {
        socket.write(`GET /api/v1/namespaces/default/pods/target/exec?command=sleep&command=1000&stdin=true&stdout=true HTTP/1.1\r\nHost: x\r\n`
          + `Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
        setTimeout(() => { socket.destroy(); resolve(); }, delay);
      });
      socket.on('error', () => resolve());
    })));
    await until(async () => (await running()) === 0, 'no exec left running once every client had gone');
  } finally {
    await server.close();
  }
});
