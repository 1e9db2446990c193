// CertificateSigningRequests: the request's PEM and signature, the requester recorded, decisions that stay decided.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import type { ApiObject } from '../../../../api/meta.js';
import { naming } from '../../../../api/naming.js';
import { createCertificateAuthority } from '../../../../pki/certificates.js';
import { ctx, strategyOf, text } from '../../testing/strategy.js';
import { certificateRequestProblem, duplicateCauses, goBytes, issuedCertificateProblem } from './strategy.js';

const certificateSigningRequests = strategyOf('certificates', 'certificatesigningrequests');

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
    const obj: ApiObject = { metadata: { name: 'x' }, spec: { username: 'mallory', groups: ['system:masters'], signerName: 'example.com/s' }, status: { conditions: [{ type: 'Approved' }] } };
    await certificateSigningRequests.prepareForCreate!(obj, ctx);
    const spec = obj.spec as Record<string, unknown>;
    assert.deepEqual([spec.username, spec.uid, spec.groups, spec.extra, obj.status], ['carol', 'u-1', ['devs', 'system:authenticated'], undefined, {}]);
    const next: ApiObject = { metadata: { name: 'x' }, spec: { signerName: 'example.com/other' }, status: { certificate: 'eA==' } };
    await certificateSigningRequests.prepareForUpdate!(next, obj, ctx);
    assert.deepEqual([next.spec, next.status], [obj.spec, obj.status]);
  });

  test('the legacy signer, a short lifetime, and Approved with Denied are refused; decisions cannot be taken back through /status', async () => {
    const base = { metadata: { name: 'x' }, spec: { request: Buffer.from(await requestPem()).toString('base64'), usages: ['client auth'] } };
    const bad: ApiObject = { ...base, spec: { ...base.spec, signerName: `${naming().labelDomain}/legacy-unknown`, expirationSeconds: 60 },
      status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'False' }] } };
    assert.deepEqual(text(certificateSigningRequests.validate!(bad, ctx)), [
      `spec.signerName: Invalid value: "${naming().labelDomain}/legacy-unknown": the legacy signerName is not allowed via this API version`,
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
      'status.conditions[1].status: Unsupported value: "False": supported values: "True"',
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ]);
    const approved = { ...base, spec: { ...base.spec, signerName: 'example.com/s' }, status: { conditions: [{ type: 'Approved', status: 'True' }] } };
    assert.deepEqual(certificateSigningRequests.validateStatusUpdate!(approved, approved), []);
    assert.deepEqual(text(certificateSigningRequests.validateStatusUpdate!({ ...approved, status: {} }, approved)),
      ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
    assert.deepEqual(text(certificateSigningRequests.validate!({ ...approved, spec: { ...approved.spec, signerName: 'nodomain/s' } }, ctx)),
      ['spec.signerName: Invalid value: "nodomain": should be a domain with at least two segments separated by dots']);
  });

  test('approval adds a decision, but neither adds the opposite one nor removes one', async () => {
    const base = { metadata: { name: 'x' }, spec: { request: Buffer.from(await requestPem()).toString('base64'), usages: ['client auth'], signerName: 'example.com/s' } };
    const pending = { ...base, status: {} };
    const approved = { ...base, status: { conditions: [{ type: 'Approved', status: 'True' }] } };
    const approval = (next: ApiObject, old: ApiObject) => text(certificateSigningRequests.validateSubresourceUpdate!('approval', next, old));
    assert.deepEqual(approval(approved, pending), []);
    assert.deepEqual(approval({ ...base, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }] } }, approved),
      ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
    assert.deepEqual(approval(pending, approved), ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
  });

  test('through /status the held decisions stay as they were, however the client spelled them back', async () => {
    const base = { metadata: { name: 'x' }, spec: { request: Buffer.from(await requestPem()).toString('base64'), usages: ['client auth'], signerName: 'example.com/s' } };
    const held = { type: 'Approved', status: 'True', reason: 'R', lastUpdateTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z' };
    const old: ApiObject = { ...base, status: { conditions: [held] } };
    const { certPem } = createCertificateAuthority('signed', 600);
    const sent = { ...held, lastUpdateTime: '2026-01-01T00:00:00+00:00', lastTransitionTime: '2026-01-01T00:00:00+00:00' };
    const next: ApiObject = { ...base, status: { conditions: [sent, { type: 'Failed', status: 'True' }], certificate: Buffer.from(certPem).toString('base64') } };
    await certificateSigningRequests.prepareForSubresourceUpdate!('status', next, old, ctx);
    assert.deepEqual((next.status as any).conditions[0], held);
    assert.deepEqual(certificateSigningRequests.validateStatusUpdate!(next, old), []);
    // adding or dropping one is still refused
    const added: ApiObject = { ...base, status: { conditions: [sent, { type: 'Denied', status: 'True' }] } };
    await certificateSigningRequests.prepareForSubresourceUpdate!('status', added, old, ctx);
    assert.deepEqual(text(certificateSigningRequests.validateStatusUpdate!(added, old)), [
      'status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
      'status.conditions: Forbidden: updates may not add a condition of type "Denied"',
    ]);
  });

  test('a condition written without times gets them: now, or the transition time of the same condition held before', async () => {
    const old: ApiObject = { metadata: { name: 'x' }, status: { conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' }] } };
    const next: ApiObject = { metadata: { name: 'x' }, status: { conditions: [{ type: 'Failed', status: 'True' }, { type: 'Approved', status: 'True', lastUpdateTime: '2023-01-01T00:00:00Z' }] } };
    await certificateSigningRequests.prepareForSubresourceUpdate!('approval', next, old, ctx);
    assert.deepEqual((next.status as any).conditions, [
      { type: 'Failed', status: 'True', lastUpdateTime: ctx.now, lastTransitionTime: '2020-01-01T00:00:00Z' },
      { type: 'Approved', status: 'True', lastUpdateTime: '2023-01-01T00:00:00Z', lastTransitionTime: ctx.now },
    ]);
  });

  // timings compared within this run, with wide bounds: no wall-clock budget
  const timed = (f: () => unknown) => { const t = performance.now(); f(); return performance.now() - t; };

  test('a request that is not PEM is printed as Go prints bytes, in time linear in its size and small beside serialising it', () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) & 255));
    assert.equal(goBytes(bytes), `[]byte{${[...bytes].map(x => `0x${x.toString(16)}`).join(', ')}}`);
    assert.equal(goBytes(Buffer.alloc(0)), '[]byte{}');
    const big = Buffer.alloc(1 << 21, 0xab);
    goBytes(big); // warmed
    let text = '';
    const printing = timed(() => { text = goBytes(big); });
    const serialising = timed(() => JSON.stringify({ message: text }));
    // a string per byte, joined, took ten times as long as serialising the result
    assert.ok(printing < 3 * serialising + 50, `printing ${printing.toFixed(0)} ms, serialising ${serialising.toFixed(0)} ms`);
  });

  test('duplicate usages are found in time linear in the list', async () => {
    const request = Buffer.from(await requestPem()).toString('base64');
    const causes = certificateSigningRequests.validate!({ metadata: { name: 'x' }, spec: { request, signerName: 'example.com/s', usages: ['client auth', 'server auth', 'client auth'] } }, ctx);
    assert.deepEqual(text(causes), ['spec.usages[2]: Duplicate value: "client auth"']);
    const list = (n: number) => [...Array.from({ length: n }, (_, i) => `u${i}`), 'u0'];
    const [small, large] = [list(2000), list(16_000)];
    // the fastest of several runs of each, so that a pause of the collector or of the machine counts for neither
    const fastest = (l: string[]) => Math.min(...Array.from({ length: 15 }, () => timed(() => duplicateCauses('spec.usages', l))));
    fastest(small);
    const ratio = fastest(large) / fastest(small);
    // 8 times the usages: about 8 times the work; a search before each usage made it 64
    assert.ok(ratio < 32, `8 times the usages took ${ratio.toFixed(1)} times as long`);
  });
});
