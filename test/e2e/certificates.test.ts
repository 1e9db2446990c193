// Certificates and bootstrap tokens, with the reference's names and unmodified kubectl: an approved client
// request is signed for the requested subject and lifetime, and the certificate authenticates as that user; a
// node's client request made with a bootstrap token is approved and signed without anyone; a serving request
// the signer may not sign fails; the token cleaner deletes an expired token; the bootstrap signer signs
// `cluster-info` for each signing token, readable anonymously, and the signature verifies with the token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { X509Certificate, webcrypto } from 'node:crypto';
import { Agent, request } from 'node:https';
import * as jose from 'jose';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { clientFromFile, createClient, type Client } from '../../src/client/rest-client.js';
import { waitFor } from '../support/cluster.js';

const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
const run = promisify(execFile);
const csrs = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false };
const secrets = { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true };
const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** a new EC key and a PKCS #10 request for it, PEM */
async function certificateRequest(subject: string, altNames: Array<{ type: 'dns' | 'email'; value: string }> = []) {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject, keys: keys as CryptoKeyPair, signingAlgorithm: alg,
    extensions: altNames.length ? [new x509.SubjectAlternativeNameExtension(altNames)] : [],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { csrPem: csr.toString('pem'), keyPem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n` };
}

describe('certificates and bootstrap tokens', () => {
  let server: TestServer;
  let admin: Client;
  const tokenId = 'abcdef';
  const tokenSecret = '0123456789abcdef';
  before(async () => {
    server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--enable-bootstrap-token-auth', '--controllers=*,tokencleaner,bootstrapsigner', '--cluster-signing-duration=48h'] });
    admin = await clientFromFile(server.kubeconfig);
  });
  after(async () => { admin.close(); await server.close(); });

  const signed = (name: string) => waitFor(`the certificate of ${name}`, async () => {
    const c = await admin.resource(csrs).get(name);
    return c.status?.certificate && Buffer.from(c.status.certificate, 'base64').toString('utf8');
  });
  /** who the server says a client certificate is */
  const whoAmI = (certPem: string, keyPem: string) => new Promise<any>((resolve, reject) => {
    const url = new URL(server.url);
    const req = request({
      host: url.hostname, port: url.port, method: 'POST', path: '/apis/authentication.k8s.io/v1beta1/selfsubjectreviews',
      agent: new Agent({ ca: server.caCertPem, cert: certPem, key: keyPem }), headers: { 'content-type': 'application/json' },
    }, async (res) => {
      let body = '';
      for await (const chunk of res) body += chunk;
      resolve(JSON.parse(body));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'SelfSubjectReview' }));
  });

  test('kubectl certificate approve: the signed certificate authenticates as the requested user, for the requested time', async () => {
    const { csrPem, keyPem } = await certificateRequest('CN=jane,O=devs');
    await admin.resource(csrs).create({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'jane' },
      spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth', 'digital signature'], expirationSeconds: 7200 },
    });
    const { stdout } = await run(kubectl, ['--kubeconfig', server.kubeconfig, 'certificate', 'approve', 'jane']);
    assert.match(stdout, /approved/);
    // kubectl sends the condition without a transition time; the server sets it
    const approved = (await admin.resource(csrs).get('jane')).status.conditions.find((c: any) => c.type === 'Approved');
    assert.equal(approved.reason, 'KubectlApprove');
    assert.ok(approved.lastTransitionTime && approved.lastUpdateTime, JSON.stringify(approved));
    const certPem = await signed('jane');
    const cert = new X509Certificate(certPem);
    assert.ok(cert.checkIssued(new X509Certificate(server.caCertPem)), 'signed by the server CA');
    const lifeMs = Date.parse(cert.validTo) - Date.now();
    assert.ok(lifeMs > 7100_000 && lifeMs <= 7200_000, `valid for ${lifeMs} ms, asked 7200 s`);
    const review = await whoAmI(certPem, keyPem);
    assert.equal(review.status.userInfo.username, 'jane');
    assert.ok(review.status.userInfo.groups.includes('devs'), JSON.stringify(review.status.userInfo));
  });

  test('a node client request made with a bootstrap token is approved and signed without anyone', async () => {
    await admin.resource(secrets, 'kube-system').create({
      apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${tokenId}` },
      stringData: { 'token-id': tokenId, 'token-secret': tokenSecret, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true' },
    });
    const bootstrap = createClient({ ...admin.config, certPem: undefined, keyPem: undefined, token: `${tokenId}.${tokenSecret}` });
    try {
      const { csrPem, keyPem } = await certificateRequest('CN=system:node:n1,O=system:nodes');
      await waitFor('the token to authenticate', async () => {
        await bootstrap.resource(csrs).create({
          apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'node-n1' },
          spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
        });
        return true;
      });
      const approved = (await admin.resource(csrs).get('node-n1')).spec;
      assert.equal(approved.username, `system:bootstrap:${tokenId}`);
      const certPem = await signed('node-n1');
      const csr = await admin.resource(csrs).get('node-n1');
      assert.equal(csr.status.conditions.find((c: any) => c.type === 'Approved')?.reason, 'AutoApproved');
      // the default lifetime is --cluster-signing-duration, less the 5 minutes the start is backdated (a long life)
      const lifeMs = Date.parse(new X509Certificate(certPem).validTo) - Date.now();
      assert.ok(lifeMs > 48 * 3_600_000 - 400_000 && lifeMs <= 48 * 3_600_000 - 300_000, `valid for ${lifeMs} ms`);
      const review = await whoAmI(certPem, keyPem);
      assert.equal(review.status.userInfo.username, 'system:node:n1');
      assert.ok(review.status.userInfo.groups.includes('system:nodes'));
    } finally {
      bootstrap.close();
    }
  });

  test('an approved serving request the signer may not sign fails with the reason', async () => {
    const { csrPem } = await certificateRequest('CN=system:node:n2,O=system:nodes', [{ type: 'dns', value: 'n2.example' }, { type: 'email', value: 'n2@example.com' }]);
    await admin.resource(csrs).create({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'serving-n2' },
      spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kubelet-serving', usages: ['digital signature', 'server auth'] },
    });
    await run(kubectl, ['--kubeconfig', server.kubeconfig, 'certificate', 'approve', 'serving-n2']);
    const failed = await waitFor('the Failed condition', async () =>
      (await admin.resource(csrs).get('serving-n2')).status?.conditions?.find((c: any) => c.type === 'Failed'));
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'Email subjectAltNames are not allowed');
  });

  test('a node renewing as itself is approved as a self renewal; a node request without the node usages waits, and fails once approved', async () => {
    const node = createClient({ ...admin.config, impersonate: { user: 'system:node:n3', groups: ['system:nodes'] } });
    try {
      const renewal = await certificateRequest('CN=system:node:n3,O=system:nodes');
      await node.resource(csrs).create({
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'renew-n3' },
        spec: { request: Buffer.from(renewal.csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'key encipherment', 'client auth'] },
      });
      await signed('renew-n3');
      const approved = (await admin.resource(csrs).get('renew-n3')).status.conditions.find((c: any) => c.type === 'Approved');
      assert.deepEqual([approved.reason, approved.message], ['AutoApproved', 'Auto approving self kubelet client certificate after SubjectAccessReview.']);
      // client auth alone is not the node client usages: the approver leaves it to an administrator, and the signer refuses it
      const bare = await certificateRequest('CN=system:node:n3,O=system:nodes');
      await node.resource(csrs).create({
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'bare-n3' },
        spec: { request: Buffer.from(bare.csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['client auth'] },
      });
    } finally {
      node.close();
    }
    // a later request the approver handles, so that bare-n3 was seen and passed over by the time it is approved
    const later = await certificateRequest('CN=system:node:n4,O=system:nodes');
    await admin.resource(csrs).create({
      apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'later-n4' },
      spec: { request: Buffer.from(later.csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] },
    });
    await signed('later-n4');
    assert.equal((await admin.resource(csrs).get('bare-n3')).status?.conditions, undefined, 'not approved by the controller');
    await run(kubectl, ['--kubeconfig', server.kubeconfig, 'certificate', 'approve', 'bare-n3']);
    const failed = await waitFor('the Failed condition', async () =>
      (await admin.resource(csrs).get('bare-n3')).status?.conditions?.find((c: any) => c.type === 'Failed'));
    assert.deepEqual([failed.reason, failed.message], ['SignerValidationFailure', 'usages did not match [client auth digital signature key encipherment]']);
  });

  test('the token cleaner deletes an expired bootstrap token, by its expiration alone', async () => {
    const expired = new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    const soon = new Date(Date.now() + 2000).toISOString().replace(/\.\d+Z$/, 'Z');
    for (const [id, expiration] of [['oldtok', expired], ['sooner', soon], ['keeper', '']]) {
      await admin.resource(secrets, 'kube-system').create({
        apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${id}` },
        stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', ...(expiration ? { expiration } : {}) },
      });
    }
    // as the reference, the expiration alone counts: a Secret whose token is malformed goes too, and a time that is
    // not RFC 3339 (a date alone) has expired
    for (const [id, data] of [['malfrm', { 'token-secret': 'short', expiration: expired }], ['dateon', { 'token-secret': '0123456789abcdef', expiration: '2099-01-01' }]] as const) {
      await admin.resource(secrets, 'kube-system').create({
        apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${id}` }, stringData: { 'token-id': id, ...data },
      });
    }
    const gone = (id: string) => async () => admin.resource(secrets, 'kube-system').get(`bootstrap-token-${id}`).then(() => false, () => true);
    await waitFor('the malformed expired token to go', gone('malfrm'));
    await waitFor('the token with a date alone to go', gone('dateon'));
    await waitFor('the expired token to go', gone('oldtok'));
    await waitFor('the token expiring in 2 s to go', gone('sooner'));
    await admin.resource(secrets, 'kube-system').get('bootstrap-token-keeper');
  });

  test('cluster-info carries a JWS per signing token, readable anonymously, verifying with the token', async () => {
    const kubeconfig = `apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    server: ${server.url}\n`;
    await admin.resource(configMaps, 'kube-public').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info' }, data: { kubeconfig } });
    const anonymous = createClient({ ...admin.config, certPem: undefined, keyPem: undefined });
    try {
      const info = await waitFor('the signature', async () => {
        const cm = await anonymous.resource(configMaps, 'kube-public').get('cluster-info');
        return cm.data[`jws-kubeconfig-${tokenId}`] && cm;
      });
      const [header, , signature] = info.data[`jws-kubeconfig-${tokenId}`].split('.');
      const verified = await jose.flattenedVerify({ protected: header, payload: Buffer.from(info.data.kubeconfig).toString('base64url'), signature },
        new TextEncoder().encode(`${tokenId}.${tokenSecret}`));
      assert.equal(new TextDecoder().decode(verified.payload), kubeconfig);
      assert.equal(verified.protectedHeader?.kid, tokenId);
      // a token that may not sign has no signature; one deleted loses it
      assert.equal(info.data['jws-kubeconfig-keeper'], undefined);
      await admin.resource(secrets, 'kube-system').delete(`bootstrap-token-${tokenId}`);
      await waitFor('the signature to go', async () => !(await anonymous.resource(configMaps, 'kube-public').get('cluster-info')).data[`jws-kubeconfig-${tokenId}`]);
    } finally {
      anonymous.close();
    }
  });
});
