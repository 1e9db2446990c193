// Service-account token signing and verification with generated, RSA and ECDSA keys; lookup revocation.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { naming } from '../api/naming.js';
import { serviceAccountTokens } from './service-account.js';

const dir = mkdtempSync(join(tmpdir(), 'sa-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const names = naming();
const base = { keyFiles: [], certDir: join(dir, 'pki'), issuers: ['https://issuer'], apiAudiences: ['api'] };
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const sa = { name: 'bot', uid: 'uid-1' };

describe('service-account tokens', () => {
  test('a generated signing key is kept in the PKI folder and reused', async () => {
    const a = serviceAccountTokens(names, base);
    assert.ok(existsSync(join(dir, 'pki', 'sa.key')));
    const { token } = await a.sign({ namespace: 'ns', serviceAccount: sa, audiences: ['api'], expirationSeconds: 600 });
    const b = serviceAccountTokens(names, base);
    const user = await b.authenticator().authenticate(bearer(token));
    assert.deepEqual(user, { username: 'system:serviceaccount:ns:bot', uid: 'uid-1', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'], audiences: ['api'] });
  });

  test('RSA and ECDSA signing keys verify through --service-account-key-file public keys', async () => {
    for (const [type, opts] of [['rsa', { modulusLength: 2048 }], ['ec', { namedCurve: 'secp384r1' }]] as const) {
      const { privateKey, publicKey } = generateKeyPairSync(type as 'rsa', opts as { modulusLength: number });
      const keyFile = join(dir, `${type}.key`), pubFile = join(dir, `${type}.pub`);
      writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
      writeFileSync(pubFile, publicKey.export({ type: 'spki', format: 'pem' }));
      const signer = serviceAccountTokens(names, { ...base, signingKeyFile: keyFile });
      const { token } = await signer.sign({ namespace: 'ns', serviceAccount: sa, audiences: ['api'], expirationSeconds: 600 });
      const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
      assert.equal(header.alg, type === 'rsa' ? 'RS256' : 'ES384');
      // a verifier with a different signing key of its own accepts the token through the key file
      const verifier = serviceAccountTokens(names, { ...base, certDir: join(dir, `other-${type}`), keyFiles: [pubFile] });
      assert.equal((await verifier.authenticator().authenticate(bearer(token)))?.username, 'system:serviceaccount:ns:bot');
      const stranger = serviceAccountTokens(names, { ...base, certDir: join(dir, `stranger-${type}`) });
      await assert.rejects(Promise.resolve(stranger.authenticator().authenticate(bearer(token))), (e: any) => e.code === 401);
    }
  });

  test('expired tokens, other issuers, other audiences and revoked accounts', async () => {
    let now = Date.now();
    const t = serviceAccountTokens(names, base, () => now);
    const { token } = await t.sign({ namespace: 'ns', serviceAccount: sa, audiences: ['api'], expirationSeconds: 600 });
    const other = await t.sign({ namespace: 'ns', serviceAccount: sa, audiences: ['elsewhere'], expirationSeconds: 600 });
    const auth = t.authenticator(async (resource, _ns, name) => (resource === 'serviceaccounts' && name === 'bot' ? { metadata: { name, uid: 'uid-1' } } : undefined));
    assert.ok(await auth.authenticate(bearer(token)));
    await assert.rejects(Promise.resolve(auth.authenticate(bearer(other.token))), /audiences/);
    assert.deepEqual((await auth.authenticate({ ...bearer(other.token), audiences: ['elsewhere'] }))?.audiences, ['elsewhere']);
    const foreignIssuer = serviceAccountTokens(names, { ...base, issuers: ['https://other'] });
    assert.equal(await foreignIssuer.authenticator().authenticate(bearer(token)), undefined, 'another issuer\'s token is not ours to judge');
    const revoked = t.authenticator(async () => undefined);
    await assert.rejects(Promise.resolve(revoked.authenticate(bearer(token))), /has been deleted/);
    now += 601_000;
    await assert.rejects(Promise.resolve(auth.authenticate(bearer(token))), /expired/);
  });
});
