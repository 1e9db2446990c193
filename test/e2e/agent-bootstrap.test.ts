// Node TLS bootstrap against a real API server over HTTPS with Node and RBAC authorization: an agent process
// (fake runtime) given only a bootstrap token asks for its client certificate, which the csrapproving controller
// approves and the signer signs; the agent writes it and --clusterconfig and registers its node as
// `system:node:<name>`, which the token could not. With --rotate-certificates it asks again with its own identity
// before the certificate expires (--cluster-signing-duration shortens the life) and keeps working with the new one.
// With --rotate-server-certificates it asks for its serving certificate, which waits for `kubectl certificate
// approve`; its server completes no TLS handshake until then. Restarted, it goes on with the certificates it kept.
// The bindings that let bootstrap tokens ask and nodes renew are not part of the server's default policy (as in
// the reference, where kubeadm creates them); the test makes them as an administrator would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { execFile } from 'node:child_process';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, createClient, isForbidden, type Client } from '../../src/client/rest-client.js';
import { freePort } from '../support/ports.js';
import { waitFor } from '../support/cluster.js';
import * as jose from 'jose';

const agentMain = new URL('../../src/main/agent.js', import.meta.url).pathname;
const nodes = { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false };
const secrets = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const leases = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
const csrs = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const roles = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true };
const roleBindings = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true };
const bindings = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false };
const signingSeconds = 140;
const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
const run = promisify(execFile);

describe('agent TLS bootstrap', () => {
  let server: TestServer;
  let admin: Client;
  let root: string;
  let agent: ChildProcess | undefined;
  let agentLog = '';
  const tokenId = 'join01';
  const tokenSecret = 'abcdef0123456789';
  before(async () => {
    server = await startTestServer({ apiDomain: 'k8s.io', flags: [
      '--authorization-mode=Node,RBAC', '--use-service-account-credentials=true', '--enable-bootstrap-token-auth',
      `--cluster-signing-duration=${signingSeconds}s`, '--controllers=*,bootstrapsigner',
    ] });
    admin = await clientFromFile(server.kubeconfig);
    root = mkdtempSync(join(tmpdir(), 'agent-bootstrap-'));
    await admin.resource(secrets, 'kube-system').create({
      apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${tokenId}` },
      stringData: {
        'token-id': tokenId, 'token-secret': tokenSecret, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true',
        'auth-extra-groups': 'system:bootstrappers:nodes',
      },
    });
  });
  after(async () => {
    agent?.kill('SIGKILL');
    admin.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  const binding = (name: string, role: string, group: string) => admin.resource(bindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
  });
  const pemOf = (file: string) => new X509Certificate(readFileSync(file, 'utf8'));

  test('an agent with only a bootstrap token ends with its own signed certificate, and renews it before expiry', async () => {
    await binding('bootstrap-may-ask', 'system:node-bootstrapper', 'system:bootstrappers:nodes');
    await binding('bootstrap-auto-approve', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:bootstrappers:nodes');
    await binding('nodes-auto-renew', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes');

    const bootstrapFile = join(root, 'bootstrap.conf');
    writeFileSync(bootstrapFile, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'bootstrap',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64') } }],
      users: [{ name: 'token', user: { token: `${tokenId}.${tokenSecret}` } }],
      contexts: [{ name: 'bootstrap', context: { cluster: 'c', user: 'token' } }],
    }));
    // the token by itself may not register a node
    const bootstrap = createClient({ ...admin.config, certPem: undefined, keyPem: undefined, token: `${tokenId}.${tokenSecret}` });
    const refused = await waitFor('the token to authenticate', async () => {
      const e = await bootstrap.resource(nodes).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'joiner' } }).then(() => undefined, (x) => x);
      return isForbidden(e) && e;
    });
    assert.ok(refused);
    bootstrap.close();

    const agentPort = await freePort();
    const clusterconfig = join(root, 'agent.conf');
    const certDir = join(root, 'pki');
    agent = spawn(process.execPath, [agentMain, `--bootstrap-kubeconfig=${bootstrapFile}`, `--clusterconfig=${clusterconfig}`, `--cert-dir=${certDir}`,
      '--rotate-certificates', '--rotate-server-certificates', '--node-ip=127.0.0.1', '--runtime=fake', '--hostname-override=joiner', `--root-dir=${join(root, 'root')}`, '--node-status-update-frequency=1s',
      '--api-domain=k8s.io', '--address=127.0.0.1', `--port=${agentPort}`, '--read-only-port=0', '--healthz-port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    agent.stdout!.on('data', (d) => { agentLog += d; });
    agent.stderr!.on('data', (d) => { agentLog += d; });

    const node = await waitFor('the node registered and Ready', async () => {
      const n = await admin.resource(nodes).get('joiner').catch(() => undefined);
      return n?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') && n;
    }, 60_000).catch((e) => { throw new Error(`${(e as Error).message}\n${agentLog}`); });
    assert.equal(node.metadata.name, 'joiner');

    // the request, made with the token, approved by the controller and signed
    const [first] = (await admin.resource(csrs).list()).items.filter((c: any) => c.spec.signerName !== 'kubernetes.io/kubelet-serving');
    assert.equal(first.spec.username, `system:bootstrap:${tokenId}`);
    assert.equal(first.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
    assert.equal(first.status.conditions.find((c: any) => c.type === 'Approved')?.reason, 'AutoApproved');

    // the certificate and key in --cert-dir, and --clusterconfig using them
    const config = JSON.parse(readFileSync(clusterconfig, 'utf8'));
    const current = join(certDir, 'agent-client-current.pem');
    assert.equal(config.users[0].user['client-certificate'], current);
    assert.equal(config.users[0].user['client-key'], current);
    assert.equal(config.clusters[0].cluster.server, server.url);
    const cert = pemOf(current);
    assert.equal(cert.subject.split('\n').sort().join(','), 'CN=system:node:joiner,O=system:nodes');
    assert.ok(cert.checkIssued(new X509Certificate(server.caCertPem)), 'signed by the cluster CA');
    assert.equal(cert.raw.toString('base64'), new X509Certificate(Buffer.from(first.status.certificate, 'base64')).raw.toString('base64'));
    const life = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 1000;
    const renewFrom = Date.parse(cert.validFrom) + 0.7 * life * 1000;
    process.stdout.write(`# joined: certificate for system:node:joiner valid ${life} s (renewal due from ${Math.round((renewFrom - Date.now()) / 1000)} s from now)\n`);

    // rotation: a second request, made as the node itself, approved as a renewal; the agent moves to it
    const renewed = await waitFor('a renewed certificate', async () => {
      const mine = (await admin.resource(csrs).list()).items.filter((c: any) => c.spec.username === 'system:node:joiner' && c.status?.certificate);
      const now = pemOf(current);
      return mine.length > 0 && now.serialNumber !== cert.serialNumber && { csr: mine[0], cert: now };
    }, (signingSeconds + 30) * 1000, 500).catch((e) => { throw new Error(`${(e as Error).message}\n${agentLog}`); });
    const renewedAt = Date.now();
    assert.ok(renewedAt >= renewFrom - 2000, `renewed ${Math.round((renewFrom - renewedAt) / 1000)} s before 70 % of the life`);
    assert.ok(renewedAt < Date.parse(cert.validTo), 'renewed before expiry');
    assert.ok(renewed.csr.status.conditions.some((c: any) => c.type === 'Approved' && c.message?.includes('self')), JSON.stringify(renewed.csr.status));
    assert.notEqual(renewed.cert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), cert.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), 'a new key');
    process.stdout.write(`# renewed at ${Math.round((renewedAt - Date.parse(cert.validFrom)) / life / 10)} % of the first certificate's life\n`);

    // still the node after the switch: its Lease keeps being renewed
    const renewTime = async () => Date.parse((await admin.resource(leases, 'kube-node-lease').get('joiner')).spec.renewTime);
    const before = await renewTime();
    await waitFor('the Lease renewed after the rotation', async () => (await renewTime()) > Math.max(before, renewedAt));
    assert.match(agentLog, /client certificate signed/);
  });

  test('--rotate-server-certificates: the serving certificate waits for an administrator, then the agent serves with it', async () => {
    assert.ok(agent, 'the agent of the test before');
    const serving = await waitFor('the serving certificate request', async () =>
      (await admin.resource(csrs).list()).items.find((c: any) => c.spec.signerName === 'kubernetes.io/kubelet-serving'));
    assert.equal(serving.spec.username, 'system:node:joiner');
    assert.deepEqual([...serving.spec.usages].sort(), ['digital signature', 'server auth']);
    assert.ok(!serving.status?.conditions?.length, 'not approved by anyone but an administrator');
    const agentPort = Number(/--port=(\d+)/.exec(agent!.spawnargs.join(' '))![1]);
    const handshake = () => new Promise<X509Certificate>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: agentPort, ca: server.caCertPem }, () => {
        resolve(new X509Certificate(socket.getPeerX509Certificate()!.raw));
        socket.end();
      });
      socket.on('error', reject);
    });
    await assert.rejects(handshake(), 'no handshake before the certificate is signed');
    await run(kubectl, ['--kubeconfig', server.kubeconfig, 'certificate', 'approve', serving.metadata.name]);
    const cert = await waitFor('the agent serving with the signed certificate', () => handshake().catch(() => undefined), 60_000, 200);
    assert.equal(cert.subject.split('\n').sort().join(','), 'CN=system:node:joiner,O=system:nodes');
    assert.ok(cert.checkIssued(new X509Certificate(server.caCertPem)), 'signed by the cluster CA');
    assert.ok(cert.checkIP('127.0.0.1') && cert.checkHost('joiner'), cert.subjectAltName);
  });

  test('restarted, the agent goes on with the certificates it keeps, asking for none', async () => {
    assert.ok(agent, 'the agent of the tests before');
    const before = (await admin.resource(csrs).list()).items.length;
    const args = agent!.spawnargs.slice(1);
    const stopped = new Promise((r) => agent!.once('exit', r));
    agent!.kill('SIGTERM');
    await stopped;
    const ready = async () => (await admin.resource(nodes).get('joiner')).status?.conditions?.find((c: any) => c.type === 'Ready');
    await waitFor('the node not ready after the stop', async () => (await ready())?.status !== 'True');
    agentLog = '';
    agent = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    agent.stdout!.on('data', (d) => { agentLog += d; });
    agent.stderr!.on('data', (d) => { agentLog += d; });
    await waitFor('the node Ready again', async () => (await ready())?.status === 'True', 60_000)
      .catch((e) => { throw new Error(`${(e as Error).message}\n${agentLog}`); });
    assert.doesNotMatch(agentLog, /asking for one with the credentials/);
    // the renewal loop may have asked for a client certificate meanwhile; nothing was asked with the token or for serving
    const after = (await admin.resource(csrs).list()).items;
    assert.equal(after.filter((c: any) => c.spec.username.startsWith('system:bootstrap:')).length, 1);
    assert.equal(after.filter((c: any) => c.spec.signerName === 'kubernetes.io/kubelet-serving').length, 1);
    assert.ok(after.length >= before);
  });

  test('cluster-info: the default policy lets only the bootstrap signer at it, as the reference; an installer opens it to anonymous reads', async () => {
    // what the server's policy holds in the public namespace: the signer's Role and RoleBinding, nothing for anonymous users
    const names = async (ref: typeof roles) => (await admin.resource(ref, 'kube-public').list()).items.map((o: any) => o.metadata.name);
    assert.deepEqual(await names(roles), ['system:controller:bootstrap-signer']);
    assert.deepEqual(await names(roleBindings), ['system:controller:bootstrap-signer']);
    const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: ${server.url}\n`;
    await admin.resource(configMaps, 'kube-public').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } });
    const anonymous = createClient({ ...admin.config, certPem: undefined, keyPem: undefined });
    try {
      const denied = await anonymous.resource(configMaps, 'kube-public').get('cluster-info').then(() => undefined, (e) => e);
      assert.ok(isForbidden(denied), `anonymous read: ${denied}`);
      // what a cluster installer adds (kubeadm's bootstrap-signer-clusterinfo Role and RoleBinding)
      await admin.resource(roles, 'kube-public').create({
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'cluster-info-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] }],
      });
      await admin.resource(roleBindings, 'kube-public').create({
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'cluster-info-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cluster-info-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
      });
      const info = await waitFor('the signed cluster-info, read anonymously', async () => {
        const cm = await anonymous.resource(configMaps, 'kube-public').get('cluster-info').catch(() => undefined);
        return cm?.data?.[`jws-kubeconfig-${tokenId}`] && cm;
      });
      const [header, , signature] = info.data[`jws-kubeconfig-${tokenId}`].split('.');
      const verified = await jose.flattenedVerify({ protected: header, payload: Buffer.from(info.data.kubeconfig).toString('base64url'), signature },
        new TextEncoder().encode(`${tokenId}.${tokenSecret}`));
      assert.equal(new TextDecoder().decode(verified.payload), kubeconfig);
      // the binding names one object: the rest of the namespace stays closed
      assert.ok(isForbidden(await anonymous.resource(configMaps, 'kube-public').list().then(() => undefined, (e) => e)));
    } finally {
      anonymous.close();
    }
  });
});
