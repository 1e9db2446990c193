import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecryptError, decryptValue, describeEncrypted, encryptValue, provider } from './providers.js';
import { secretboxOpen, secretboxSeal } from './secretbox.js';

const bytes = (n: number, from = 0) => Buffer.from(Array.from({ length: n }, (_, i) => from + i));
const key32 = bytes(32);
const storageKey = '/registry/core/secrets/default/s1';
const plain = Buffer.from('{"kind":"Secret","data":{"a":"cGxhaW4="}}');
const text = (v: Uint8Array) => Buffer.from(v).toString('latin1');

// vectors made outside this code: python's `cryptography` (AES) and libsodium's crypto_secretbox_easy (secretbox)
const cbcVector = Buffer.from('000102030405060708090a0b0c0d0e0f1e99f42a87db9ef8ab2a289efc82058de0bd73e9648c4d58d474952f282ed48834a646743a4fa77aeab73c3044e1e358', 'hex');
const gcmVector = Buffer.from('000102030405060708090a0be84ecca7087fd56e698104e944c6042a9f047e87278cdfcc9d03900f2e66c12bfdccbaa0c0bd959e3d3df70d5122674760e6662fd7a8fdf399', 'hex');
const secretboxMessage = Buffer.from('hello secretbox, a message longer than one sixty-four byte salsa block to test counters '.repeat(2));
const secretboxVector = Buffer.from('a1e81fbeeee2bea1e7bf7499ef17e3ff6adcf5a55596bd8cd38f46e055ebdb341ecb18ca81d5387ac16962f865e5aeedda4f80702e59bb8b9b733711696ba91cecf6c16d60a65b2677847377badeed0563e92002ab5768fed6af6b9733b7cdf03be2e373c28d0822fafee54b17c696a399bb8c0f8db642eb231a5fe6d92fe6591f4ab626b845276c32ac7acb857ff653d0652d6b5eb669706045444dafe9822c174ed66c4c4b017d8b6bcb1d0553e984ee5f5f4daea5f304fd958d523cca91c7', 'hex');

test('secretbox seals and opens as libsodium does', () => {
  const nonce = bytes(24, 100);
  assert.equal(secretboxSeal(secretboxMessage, nonce, key32).toString('hex'), secretboxVector.toString('hex'));
  assert.deepEqual(secretboxOpen(secretboxVector, nonce, key32), secretboxMessage);
  const altered = Buffer.from(secretboxVector);
  altered[40] ^= 1;
  assert.equal(secretboxOpen(altered, nonce, key32), undefined);
  assert.equal(secretboxOpen(secretboxVector, nonce, bytes(32, 1)), undefined);
  assert.deepEqual(secretboxOpen(secretboxSeal(Buffer.alloc(0), nonce, key32), nonce, key32), Buffer.alloc(0));
});

test('aescbc and aesgcm read values sealed by another implementation', () => {
  const cbc = [provider('aescbc', [{ name: 'key1', secret: key32 }])];
  assert.deepEqual(Buffer.from(decryptValue(cbc, Buffer.concat([Buffer.from('k8s:enc:aescbc:v1:key1:'), cbcVector]), storageKey)), plain);
  const gcm = [provider('aesgcm', [{ name: 'key1', secret: key32.subarray(0, 16) }])];
  const gcmValue = Buffer.concat([Buffer.from('k8s:enc:aesgcm:v1:key1:'), gcmVector]);
  assert.deepEqual(Buffer.from(decryptValue(gcm, gcmValue, storageKey)), plain);
  // the storage key is authenticated: the same value under another key does not open
  assert.throws(() => decryptValue(gcm, gcmValue, '/registry/core/secrets/default/s2'), /failed to decrypt with aesgcm key "key1": message authentication failed/);
});

for (const kind of ['aescbc', 'aesgcm', 'secretbox'] as const) {
  test(`${kind}: round trip, prefix, wrong key`, () => {
    const providers = [provider(kind, [{ name: 'k1', secret: key32 }])];
    const sealed = encryptValue(providers, plain, storageKey);
    assert.ok(text(sealed).startsWith(`k8s:enc:${kind}:v1:k1:`));
    assert.ok(!text(sealed).includes('cGxhaW4='));
    assert.notDeepEqual(Buffer.from(encryptValue(providers, plain, storageKey)), Buffer.from(sealed), 'a fresh IV or nonce each time');
    assert.deepEqual(Buffer.from(decryptValue(providers, sealed, storageKey)), plain);
    assert.equal(describeEncrypted(sealed), `${kind} v1 key "k1"`);
    // the same key name with another secret
    assert.throws(() => decryptValue([provider(kind, [{ name: 'k1', secret: bytes(32, 7) }])], sealed, storageKey),
      (e: Error) => e instanceof DecryptError && e.message.startsWith(`failed to decrypt with ${kind} key "k1"`));
    // a key of another name
    assert.throws(() => decryptValue([provider(kind, [{ name: 'k2', secret: key32 }])], sealed, storageKey),
      new RegExp(`no matching key was found for the provided ${kind} transformer`));
    // identity alone refuses encrypted data; another provider kind does not match at all
    assert.throws(() => decryptValue([provider('identity')], sealed, storageKey), /identity transformer tried to read encrypted data/);
    assert.throws(() => decryptValue([provider(kind === 'aescbc' ? 'aesgcm' : 'aescbc', [{ name: 'k1', secret: key32 }])], sealed, storageKey), /no matching prefix found/);
  });
}

test('the first provider and its first key write; every listed one reads (rotation)', () => {
  const old = provider('aescbc', [{ name: 'old', secret: key32 }]);
  const sealedOld = encryptValue([old], plain, storageKey);
  const rotated = [provider('aescbc', [{ name: 'new', secret: bytes(32, 3) }, { name: 'old', secret: key32 }])];
  assert.ok(text(encryptValue(rotated, plain, storageKey)).startsWith('k8s:enc:aescbc:v1:new:'));
  assert.deepEqual(Buffer.from(decryptValue(rotated, sealedOld, storageKey)), plain);
  // identity first: writes plain, still reads what aescbc wrote
  const decrypting = [provider('identity'), old];
  assert.equal(encryptValue(decrypting, plain, storageKey), plain);
  assert.deepEqual(Buffer.from(decryptValue(decrypting, sealedOld, storageKey)), plain);
  // plain data is read only with identity in the list, as the reference reads it
  assert.equal(decryptValue([old, provider('identity')], plain, storageKey), plain);
  assert.throws(() => decryptValue([old], plain, storageKey), /no matching prefix found/);
});
