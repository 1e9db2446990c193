import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proxyableAddress, splitSchemeNamePort } from './connection.js';

test('proxy names split as [scheme:]name[:port]', () => {
  assert.deepEqual(splitSchemeNamePort('web'), { scheme: '', name: 'web', port: '' });
  assert.deepEqual(splitSchemeNamePort('web:8080'), { scheme: '', name: 'web', port: '8080' });
  assert.deepEqual(splitSchemeNamePort('https:web:8443'), { scheme: 'https', name: 'web', port: '8443' });
  assert.throws(() => splitSchemeNamePort('ftp:web:21'), /expected \[scheme:\]name\[:port\]/);
});

test('unspecified, link-local and multicast addresses are not proxied to', () => {
  for (const ip of ['10.0.0.5', '127.0.0.1', '192.168.1.1', 'fd00::1']) assert.equal(proxyableAddress(ip), true, ip);
  for (const ip of ['0.0.0.0', '169.254.169.254', '224.0.0.1', '::', 'fe80::1', 'ff02::1']) assert.equal(proxyableAddress(ip), false, ip);
});
