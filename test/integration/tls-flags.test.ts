// --tls-min-version and --tls-cipher-suites, as a TLS client sees them in the handshake.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:tls';
import { startTestServer, type TestServer } from '../../src/testing.js';

/** the protocol and cipher a handshake agreed on, or the error that ended it */
function handshake(port: number, o: { maxVersion?: 'TLSv1.2' | 'TLSv1.3'; minVersion?: 'TLSv1.2' | 'TLSv1.3'; ciphers?: string }): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'], ...o }, () => {
      resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
      socket.end();
    });
    socket.on('error', (e) => resolve(`error: ${e.message}`));
  });
}

describe('serving TLS flags', () => {
  let onlyTls13: TestServer;
  let oneSuite: TestServer;
  before(async () => {
    [onlyTls13, oneSuite] = await Promise.all([
      startTestServer({ flags: ['--tls-min-version=VersionTLS13'] }),
      startTestServer({ flags: ['--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'] }),
    ]);
  });
  after(async () => { await Promise.all([onlyTls13?.close(), oneSuite?.close()]); });

  test('--tls-min-version=VersionTLS13 refuses a TLS 1.2 client', async () => {
    assert.match(await handshake(onlyTls13.port, { maxVersion: 'TLSv1.2' }), /^error: .*(protocol version|alert)/i);
    assert.match(await handshake(onlyTls13.port, {}), /^TLSv1\.3 /);
  });

  test('--tls-cipher-suites offers only the suites named to TLS 1.2 clients; TLS 1.3 stays on', async () => {
    assert.match(await handshake(oneSuite.port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }), /^error: .*handshake failure/i);
    assert.equal(await handshake(oneSuite.port, { maxVersion: 'TLSv1.2' }), 'TLSv1.2 ECDHE-ECDSA-AES256-GCM-SHA384');
    assert.match(await handshake(oneSuite.port, { minVersion: 'TLSv1.3' }), /^TLSv1\.3 TLS_/);
  });
});
