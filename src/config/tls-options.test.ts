import { test } from 'node:test';
import assert from 'node:assert/strict';
import { opensslCiphers } from './tls-options.js';

test('cipher suites by their IANA names become OpenSSL\'s, after the TLS 1.3 suites that are always on', () => {
  assert.equal(opensslCiphers([]), undefined);
  assert.equal(opensslCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305']),
    'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305');
  assert.throws(() => opensslCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256']),
    /unsupported cipher suite name: ECDHE-RSA-AES128-GCM-SHA256/);
});
