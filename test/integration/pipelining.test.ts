// HTTP/1.1 pipelining under a client that sends requests by the thousand in one go and reads nothing back: the
// server serves a few of a connection's requests at a time and reads the connection again only once their answers
// have gone out, as the reference's server reads a connection's next request only after answering the last. Served
// all at once, their answers (here of 100 KB each) would pile up in memory for a client that never takes them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tlsConnect } from 'node:tls';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { until } from '../support/wait.js';

let server: TestServer;
let client: Client;
before(async () => {
  server = await startTestServer();
  client = await clientFromFile(server.kubeconfig);
});
after(async () => {
  client?.close();
  await server?.close();
});

/** how many requests of the exempt flow (system:masters) priority and fairness has decided on, admitted or not */
async function decidedRequests(): Promise<number> {
  const text = await client.request<string>({ method: 'GET', path: '/metrics', accept: 'text/plain' });
  let sum = 0;
  for (const line of String(text).split('\n')) if (line.startsWith('apiserver_flowcontrol_request_wait_duration_seconds_count{') && line.includes('flow_schema="exempt"')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

test('thousands of pipelined requests whose answers are never read are served a few at a time, not all at once', async () => {
  const cms = client.resource({ group: '', version: 'v1', resource: 'configmaps' }, 'default');
  await cms.create({ metadata: { name: 'large' }, data: { payload: 'x'.repeat(100_000) } });
  const { port } = new URL(server.url);
  const socket = tlsConnect({ host: '127.0.0.1', port: Number(port), ca: server.caCertPem, cert: server.adminCertPem, key: server.adminKeyPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject); });
  try {
    const before = await decidedRequests();
    socket.pause();   // nothing the server sends is read
    const pipelined = 2000;
    socket.write('GET /api/v1/namespaces/default/configmaps/large HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(pipelined));
    await until(async () => await decidedRequests() - before > 10, 'the first pipelined requests to be served');
    // requests from another connection, each of which waits its turn behind any pipelined one already read
    for (let i = 0; i < 20; i++) await cms.get('large');
    const served = await decidedRequests() - before;
    assert.ok(served < pipelined / 2, `${served} requests decided on (of ${pipelined} pipelined and about 40 others) while the client read nothing`);
    // once the client reads, every request is answered in order
    let answers = 0, tail = '';
    socket.on('data', (d: Buffer) => {
      const text = tail + d.toString('latin1');
      answers += text.split('HTTP/1.1 200 OK\r\n').length - 1;
      tail = text.slice(-20);
    });
    socket.resume();
    await until(() => answers === pipelined, () => `every pipelined request to be answered: ${answers} of ${pipelined}`);
  } finally {
    socket.destroy();
  }
});
