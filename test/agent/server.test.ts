// The agent's own endpoints: healthz; the authenticated server (client certificates of
// --client-ca-file, bearer tokens through TokenReview, anonymous refused when off, authorization
// through SubjectAccessReview); the read-only port without authentication.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { createCertificateAuthority, generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { tempDir, ensureDefaultServiceAccount, servedAgent, pod, waitFor } from './helpers.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { podLogDirectory } from '../../src/agent/sandbox.js';
import { fakeAnnotation } from '../../src/agent/options.js';

interface Answer { status: number; body: string }
const fetchIt = (url: string, opts: { token?: string; cert?: string; key?: string } = {}) => new Promise<Answer>((resolve, reject) => {
  const headers = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
  const done = (res: any) => {
    let body = '';
    res.on('data', (d: Buffer) => (body += d));
    res.on('end', () => resolve({ status: res.statusCode, body }));
  };
  const req = url.startsWith('https:')
    ? httpsRequest(url, { headers, rejectUnauthorized: false, cert: opts.cert, key: opts.key }, done)
    : httpRequest(url, { headers }, done);
  req.on('error', reject).end();
});

describe('agent endpoints', () => {
  let server: TestServer;
  let client: Client;
  let served: Awaited<ReturnType<typeof servedAgent>>;
  let dir: string;
  let clientCert: { cert: string; key: string };
  let ports: { main: number; readOnly: number; healthz: number };

  before(async () => {
    dir = tempDir('agent-server-');
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,uid-a,"system:masters"\n');
    server = await startTestServer({ flags: [`--token-auth-file=${join(dir, 'tokens.csv')}`] });
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    const ca = createCertificateAuthority('agent-clients', 3600);
    writeFileSync(join(dir, 'clients-ca.crt'), ca.certPem);
    const pair = generateKeyPair();
    clientCert = { cert: issueLeaf(ca, pair.publicKey, { commonName: 'carol', organizations: ['ops'], usages: ['digital signature', 'client auth'], ttlSeconds: 3600 }), key: pair.keyPem };
    const [main, readOnly, healthz] = [await freePort(), await freePort(), await freePort()];
    served = await servedAgent(client, server.kubeconfig, dir, 'served', 'listed', [
      `--port=${main}`, `--read-only-port=${readOnly}`, `--healthz-port=${healthz}`, '--anonymous-auth=false',
      '--authentication-token-webhook', '--authorization-mode=Webhook', `--client-ca-file=${join(dir, 'clients-ca.crt')}`,
    ]);
    ports = served.servers.ports;
  });

  after(async () => {
    await served?.close();
    client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('healthz answers ok on its own port', async () => {
    assert.deepEqual(await fetchIt(`http://127.0.0.1:${ports.healthz}/healthz`), { status: 200, body: 'ok' });
  });

  test('without credentials, or with a bad token, the server answers 401', async () => {
    assert.equal((await fetchIt(`https://127.0.0.1:${ports.main}/pods`)).status, 401);
    assert.equal((await fetchIt(`https://127.0.0.1:${ports.main}/pods`, { token: 'nope' })).status, 401);
  });

  test('a token the API server knows, checked by TokenReview and SubjectAccessReview, lists the pods', async () => {
    const r = await fetchIt(`https://127.0.0.1:${ports.main}/pods`, { token: 'alice-token' });
    assert.equal(r.status, 200);
    const list = JSON.parse(r.body);
    assert.equal(list.kind, 'PodList');
    assert.deepEqual(list.items.map((p: any) => p.metadata.name), ['listed']);
  });

  test('a client certificate of --client-ca-file is accepted', async () => {
    const r = await fetchIt(`https://127.0.0.1:${ports.main}/runningpods/`, clientCert);
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body).items.map((p: any) => p.metadata.name), ['listed']);
    assert.equal((await fetchIt(`https://127.0.0.1:${ports.main}/containerLogs/default/none/c`, clientCert)).status, 404);
  });

  test('the log of a container waiting to start is refused with its reason, as the reference\'s kubelet answers', async () => {
    const pods = client.resource(podsRef, 'default');
    const env = [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'absent', key: 'k' } } }];
    await pods.create(pod('unconfigured', 'served', { containers: [{ name: 'main', image: 'busybox', env }] }));
    await waitFor('CreateContainerConfigError', async () => (await pods.get('unconfigured')).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError');
    const r = await fetchIt(`https://127.0.0.1:${ports.main}/containerLogs/default/unconfigured/main`, clientCert);
    assert.equal(r.status, 400, r.body);
    assert.match(r.body, /container "main" in pod "unconfigured" is waiting to start: CreateContainerConfigError/);
    await pods.delete('unconfigured', { gracePeriodSeconds: 0 });
    await waitFor('the pod gone from the agent', () => !served.agent.nodes[0]!.workers.pods().some((x) => x.pod.metadata.name === 'unconfigured'));
  });

  test('in a crash loop, the previous log is that of the instance that just ended, as the reference reads the last termination', async () => {
    const pods = client.resource(podsRef, 'default');
    const annotations = { [fakeAnnotation(server.names, 'run-for')]: '50ms', [fakeAnnotation(server.names, 'exit-code')]: '1', [fakeAnnotation(server.names, 'log')]: 'started' };
    await pods.create(pod('looping', 'served', { annotations }));
    try {
      // the first exit restarts at once, the second waits 10 s: the status names the second instance as the last termination
      const looping = await waitFor('CrashLoopBackOff after a restart', async () => {
        const p = await pods.get('looping');
        const s = p.status?.containerStatuses?.[0];
        return s?.state?.waiting?.reason === 'CrashLoopBackOff' && s.restartCount >= 1 && p;
      });
      const last = looping.status.containerStatuses[0].lastState.terminated.containerID as string;
      const attempt = Number(last.split('/').pop());
      assert.ok(attempt >= 1, last);
      // each instance's log file gets a line of its own, so the answer says whose log it is
      const logs = join(logDirOf(looping), 'main');
      for (const n of [attempt - 1, attempt]) appendFileSync(join(logs, `${n}.log`), `${new Date().toISOString()} stdout F instance ${n}\n`);
      const read = (query: string) => fetchIt(`https://127.0.0.1:${ports.main}/containerLogs/default/looping/main${query}`, clientCert);
      const previous = await read('?previous=true');
      assert.equal(previous.status, 200, previous.body);
      assert.equal(previous.body, `started\ninstance ${attempt}\n`);
      assert.equal((await read('')).body, `started\ninstance ${attempt}\n`);
    } finally {
      await pods.delete('looping', { gracePeriodSeconds: 0 });
      await waitFor('the pod gone from the agent', () => !served.agent.nodes[0]!.workers.pods().some((x) => x.pod.metadata.name === 'looping'));
    }
  });

  const logDirOf = (p: any) => podLogDirectory(join(dir, 'root'), p);

  test('/configz serves the configuration in force, as a --config file writes it', async () => {
    const r = await fetchIt(`https://127.0.0.1:${ports.main}/configz`, { token: 'alice-token' });
    assert.equal(r.status, 200, r.body);
    const config = JSON.parse(r.body).agentconfig;
    assert.equal(config.kind, 'AgentConfiguration');
    assert.equal(config.port, ports.main);
    assert.equal(config.readOnlyPort, ports.readOnly);
    assert.deepEqual(config.authentication.anonymous, { enabled: false });
    assert.equal(config.authentication.webhook.cacheTTL, '2m0s');
    assert.equal(config.authorization.mode, 'Webhook');
    assert.deepEqual(config.evictionHard, { 'imagefs.available': '15%', 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%' });
    assert.equal(config.clusterAPIQPS, 50);
    // what it serves is a configuration file the agent reads back to the same options
    const file = join(dir, 'configz.json');
    writeFileSync(file, JSON.stringify(config));
    const again = await parseAgentOptions([`--config=${file}`, `--clusterconfig=${server.kubeconfig}`]);
    assert.deepEqual(again.warnings, []);
    assert.equal(again.options.port, ports.main);
    assert.equal(again.options.authorizationMode, 'Webhook');
    assert.deepEqual(again.options.evictionHard, (await parseAgentOptions([])).options.evictionHard);
    assert.equal((await fetchIt(`https://127.0.0.1:${ports.main}/configz`)).status, 401);
  });

  test('the read-only port serves pods without authentication', async () => {
    const r = await fetchIt(`http://127.0.0.1:${ports.readOnly}/pods`);
    assert.equal(r.status, 200);
    assert.equal(JSON.parse(r.body).items.length, 1);
  });
});
