// What the built-in signers and the node client approver accept, in the reference's order and words: node
// requests need exactly the node usages (key encipherment optional), client requests client auth among the
// client usages; a node renewing as itself is approved by selfnodeclient, then by nodeclient.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { CertificateRequest } from '../pki/pki.js';
import { approvalGrounds, kubeletClientProblem, kubeletServingProblem } from './csr-approving.js';
import { apiServerClientProblem } from './csr-signing.js';
import type { CertificateSigningRequest } from './types.js';

const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const request = (r: Partial<CertificateRequest>): CertificateRequest =>
  ({ commonName: 'system:node:n1', organizations: ['system:nodes'], subject: [], dnsNames: [], ips: [], uris: [], emailAddresses: [], publicKey, ...r });
const csr = (usages: string[], username = 'system:bootstrap:abcdef'): CertificateSigningRequest =>
  ({ metadata: { name: 'c' }, spec: { request: '', signerName: 'x/y', usages, username } });
const clientUsages = csr(['digital signature', 'client auth']);

test('kube-apiserver-client-kubelet: the node subject, no alternative names, exactly the node client usages', () => {
  assert.equal(kubeletClientProblem(clientUsages, request({})), undefined);
  assert.equal(kubeletClientProblem(csr(['key encipherment', 'client auth', 'digital signature']), request({})), undefined, 'with key encipherment too (RSA)');
  const usages = 'usages did not match [client auth digital signature key encipherment]';
  assert.equal(kubeletClientProblem(csr(['client auth']), request({})), usages);
  assert.equal(kubeletClientProblem(csr(['client auth', 'digital signature', 'server auth']), request({})), usages);
  assert.equal(kubeletClientProblem(clientUsages, request({ organizations: ['system:nodes', 'devs'] })), 'subject organization is not system:nodes');
  assert.equal(kubeletClientProblem(clientUsages, request({ dnsNames: ['n1'], ips: ['10.0.0.1'] })), 'DNS subjectAltNames are not allowed');
  assert.equal(kubeletClientProblem(clientUsages, request({ emailAddresses: ['n@x'], ips: ['10.0.0.1'] })), 'Email subjectAltNames are not allowed');
  assert.equal(kubeletClientProblem(clientUsages, request({ ips: ['10.0.0.1'] })), 'IP subjectAltNames are not allowed');
  assert.equal(kubeletClientProblem(clientUsages, request({ uris: ['spiffe://n1'] })), 'URI subjectAltNames are not allowed');
  assert.equal(kubeletClientProblem(csr(['client auth']), request({ commonName: 'n1' })), 'subject common name does not begin with system:node:', 'the subject before the usages');
});

test('kubelet-serving: the node group, a DNS name or IP address, exactly the node serving usages, then the node name', () => {
  const serving = csr(['digital signature', 'server auth']);
  assert.equal(kubeletServingProblem(serving, request({ dnsNames: ['n1'] })), undefined);
  assert.equal(kubeletServingProblem(csr(['server auth', 'key encipherment', 'digital signature']), request({ ips: ['10.0.0.1'] })), undefined);
  assert.equal(kubeletServingProblem(serving, request({})), 'DNS or IP subjectAltName is required');
  assert.equal(kubeletServingProblem(serving, request({ dnsNames: ['n1'], emailAddresses: ['n@x'] })), 'Email subjectAltNames are not allowed');
  assert.equal(kubeletServingProblem(serving, request({ dnsNames: ['n1'], uris: ['spiffe://n1'] })), 'URI subjectAltNames are not allowed');
  assert.equal(kubeletServingProblem(csr(['server auth']), request({ dnsNames: ['n1'], commonName: 'n1' })), 'usages did not match [digital signature key encipherment server auth]');
  assert.equal(kubeletServingProblem(serving, request({ dnsNames: ['n1'], commonName: 'n1' })), 'subject common name does not begin with system:node:');
});

test('kube-apiserver-client: the first usage not a client one, else a missing client auth', () => {
  assert.equal(apiServerClientProblem(csr(['client auth'])), undefined);
  assert.equal(apiServerClientProblem(csr(['key encipherment', 'client auth', 'digital signature'])), undefined);
  assert.equal(apiServerClientProblem(csr(['client auth', 'server auth', 'code signing'])), 'invalid usage for client certificate: server auth');
  assert.equal(apiServerClientProblem(csr(['digital signature'])), 'missing required usage for client certificate: client auth');
});

test('the approver asks selfnodeclient for a renewal by the node itself, then nodeclient; nothing for other requests', () => {
  assert.deepEqual(approvalGrounds(csr(['digital signature', 'client auth'], 'system:node:n1'), request({})), [
    { subresource: 'selfnodeclient', message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' },
    { subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
  ]);
  assert.deepEqual(approvalGrounds(clientUsages, request({})), [
    { subresource: 'nodeclient', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
  ]);
  assert.deepEqual(approvalGrounds(csr(['client auth'], 'system:node:n1'), request({})), [], 'not the node client usages');
});
