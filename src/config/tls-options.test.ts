import { test } from 'node:test';
import assert from 'node:assert/strict';
import { opensslCiphers, parseNamedCertKey, unavailableCipherSuites } from './tls-options.js';
import { createSecureContext, getCiphers } from 'node:tls';
import { parseApiServerOptions } from './apiserver-options.js';

test('cipher suites by their IANA names become OpenSSL\'s, after the TLS 1.3 suites that are always on', () => {
  assert.equal(opensslCiphers([]), undefined);
  assert.equal(opensslCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305']),
    'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305');
  assert.throws(() => opensslCiphers(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-RSA-AES128-GCM-SHA256']),
    /unsupported cipher suite name: ECDHE-RSA-AES128-GCM-SHA256/);
});

test('--tls-sni-cert-key: a certificate and key, with the names after a colon; repeated for more', () => {
  assert.deepEqual(parseNamedCertKey('/a.crt,/a.key'), { certFile: '/a.crt', keyFile: '/a.key', names: [] });
  assert.deepEqual(parseNamedCertKey('/a.crt,/a.key:*.example.com, example.com'), { certFile: '/a.crt', keyFile: '/a.key', names: ['*.example.com', 'example.com'] });
  assert.throws(() => parseNamedCertKey('/a.crt'), /--tls-sni-cert-key: expected comma separated certificate and key file paths/);
  assert.throws(() => parseNamedCertKey('/a.crt,/a.key,/b.key'), /expected comma separated certificate and key file paths/);
  const { options } = parseApiServerOptions(['--tls-sni-cert-key=/a.crt,/a.key:a.example,b.example', '--tls-sni-cert-key=/b.crt,/b.key']);
  assert.deepEqual(options.tlsSniCertKeys, [
    { certFile: '/a.crt', keyFile: '/a.key', names: ['a.example', 'b.example'] },
    { certFile: '/b.crt', keyFile: '/b.key', names: [] },
  ]);
});

test('--tls-cipher-suites: the reference\'s insecure suites this TLS library lacks (RC4) are left out with a warning, not a failed start', () => {
  // OpenSSL 3, Node's, has no RC4: a list naming only RC4 suites used to stop the start with OpenSSL's 'no cipher match'
  assert.ok(!getCiphers().includes('rc4-sha'));
  assert.deepEqual(unavailableCipherSuites(['TLS_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']), ['TLS_RSA_WITH_RC4_128_SHA']);
  assert.equal(opensslCiphers(['TLS_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256']),
    'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256');
  const { options, warnings } = parseApiServerOptions(['--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA,TLS_ECDHE_RSA_WITH_RC4_128_SHA']);
  assert.ok(warnings.some(w => /^flag --tls-cipher-suites: TLS_RSA_WITH_RC4_128_SHA, TLS_ECDHE_RSA_WITH_RC4_128_SHA not offered: this server's TLS library \(OpenSSL .*\) does not have them$/.test(w)), warnings.join('\n'));
  assert.doesNotThrow(() => createSecureContext({ ciphers: options.tlsCiphers }));
});
