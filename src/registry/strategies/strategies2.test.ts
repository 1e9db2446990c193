// CertificateSigningRequests, CSI drivers, volume attachments, runtime classes, events/v1 and APIServices: unit checks of their strategies.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import type { StatusCause } from '../../api/meta.js';
import { naming } from '../../api/naming.js';
import { createCertificateAuthority } from '../../pki/certificates.js';
import { certificateRequestProblem, certificateSigningRequests, issuedCertificateProblem } from './certificates.js';
import { eventsV1 } from './events.js';
import { apiServices } from './apiservices.js';
import { volumeAttachments } from './storage.js';

const ctx = { names: naming(), now: '2024-01-01T00:00:00Z', user: { username: 'carol', uid: 'u-1', groups: ['devs', 'system:authenticated'] } };
const text = (cs: StatusCause[]) => cs.map(c => `${c.field}: ${c.message}`);

async function requestPem(): Promise<string> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=carol', keys, signingAlgorithm: alg })).toString('pem');
}

describe('CertificateSigningRequest strategy', () => {
  test('a signed request passes; a tampered signature, another block type and no PEM do not', async () => {
    const pem = await requestPem();
    assert.equal(certificateRequestProblem(Buffer.from(pem)), '');
    const der = Buffer.from(pem.split('\n').filter(l => !l.startsWith('-----')).join(''), 'base64');
    der[der.length - 2] ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.equal(certificateRequestProblem(Buffer.from(tampered)), 'x509: ECDSA verification failure');
    assert.equal(certificateRequestProblem(Buffer.from(pem.replaceAll('CERTIFICATE REQUEST', 'PUBLIC KEY'))), 'PEM block type must be CERTIFICATE REQUEST');
    assert.equal(certificateRequestProblem(Buffer.from('nothing')), 'PEM block type must be CERTIFICATE REQUEST');
  });

  test('status.certificate holds CERTIFICATE blocks only', () => {
    const { certPem, keyPem } = createCertificateAuthority('ca', 600);
    assert.equal(issuedCertificateProblem(Buffer.from(certPem)), '');
    assert.equal(issuedCertificateProblem(Buffer.from(certPem + keyPem)), 'only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"');
    assert.equal(issuedCertificateProblem(Buffer.from('text')), 'must contain at least one CERTIFICATE PEM block');
  });

  test('create records the requester and clears what the body claimed; updates keep the spec', async () => {
    const obj: any = { metadata: { name: 'x' }, spec: { username: 'mallory', groups: ['system:masters'], signerName: 'example.com/s' }, status: { conditions: [{ type: 'Approved' }] } };
    await certificateSigningRequests.prepareForCreate!(obj, ctx);
    assert.deepEqual([obj.spec.username, obj.spec.uid, obj.spec.groups, obj.spec.extra, obj.status], ['carol', 'u-1', ['devs', 'system:authenticated'], undefined, {}]);
    const next: any = { metadata: { name: 'x' }, spec: { signerName: 'example.com/other' }, status: { certificate: 'eA==' } };
    await certificateSigningRequests.prepareForUpdate!(next, obj, ctx);
    assert.deepEqual([next.spec, next.status], [obj.spec, obj.status]);
  });

  test('the legacy signer, a short lifetime, and Approved with Denied are refused; decisions cannot be taken back through /status', async () => {
    const base = { metadata: { name: 'x' }, spec: { request: Buffer.from(await requestPem()).toString('base64'), usages: ['client auth'] } };
    const bad: any = { ...base, spec: { ...base.spec, signerName: `${naming().labelDomain}/legacy-unknown`, expirationSeconds: 60 },
      status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'False' }] } };
    assert.deepEqual(text(certificateSigningRequests.validate!(bad)), [
      `spec.signerName: Invalid value: "${naming().labelDomain}/legacy-unknown": the legacy signerName is not allowed via this API version`,
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
      'status.conditions[1].status: Unsupported value: "False": supported values: "True"',
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ]);
    const approved: any = { ...base, spec: { ...base.spec, signerName: 'example.com/s' }, status: { conditions: [{ type: 'Approved', status: 'True' }] } };
    assert.deepEqual(certificateSigningRequests.validateStatusUpdate!(approved, approved), []);
    assert.deepEqual(text(certificateSigningRequests.validateStatusUpdate!({ ...approved, status: {} }, approved)),
      ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
    assert.deepEqual(text(certificateSigningRequests.validate!({ ...approved, spec: { ...approved.spec, signerName: 'nodomain/s' } })),
      ['spec.signerName: Invalid value: "nodomain": should be a domain with at least two segments separated by dots']);
  });
});

describe('events/v1, APIService and VolumeAttachment strategies', () => {
  test('an events/v1 Event names the fields as the reference does', () => {
    const e = { metadata: { name: 'e', namespace: 'ns' }, eventTime: '2024-01-01T00:00:00.000000Z', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'ns' }, deprecatedCount: 3 };
    assert.deepEqual(text(eventsV1.validate!(e as any)), ['reportingController: Required value',
      'reportingController: Invalid value: "": name part must be non-empty',
      "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'reportingInstance: Required value', 'action: Required value', 'reason: Required value', 'count: Invalid value: "": needs to be unset']);
    assert.deepEqual(text(eventsV1.validateUpdate!({ ...e, note: 'changed' } as any, e as any)).filter(x => x.startsWith('message')), ['message: Invalid value: "changed": field is immutable']);
  });

  test('a local APIService is available at once; a service port defaults to 443', async () => {
    const local: any = { metadata: { name: 'v1.example.com' }, spec: { group: 'example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } };
    await apiServices.prepareForCreate!(local, ctx);
    assert.deepEqual(local.status.conditions.map((c: any) => [c.type, c.status, c.reason]), [['Available', 'True', 'Local']]);
    const remote: any = { ...local, spec: { ...local.spec, service: { namespace: 'ns', name: 's' } } };
    await apiServices.prepareForCreate!(remote, ctx);
    assert.deepEqual([remote.spec.service.port, remote.status], [443, {}]);
    assert.deepEqual(apiServices.validate!(remote), []);
  });

  test('a VolumeAttachment spec never changes', () => {
    const va: any = { metadata: { name: 'v' }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } };
    const moved = { ...va, spec: { ...va.spec, nodeName: 'n2' } };
    assert.deepEqual(volumeAttachments.validateUpdate!(moved, va).map(c => c.field), ['spec']);
  });
});
