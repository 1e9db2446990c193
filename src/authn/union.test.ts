import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { unionAuthenticator } from './union.js';
import { parseTokenFile, tokenFileAuthenticator } from './token-file.js';
import type { Authenticator } from './types.js';
import { unauthorized } from '../api/status.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const fixed = (username: string): Authenticator => ({ authenticate: req => (req.headers.authorization === `Bearer ${username}` ? { username, groups: ['g'] } : undefined) });

describe('authenticator union', () => {
  test('first success decides and joins system:authenticated', async () => {
    const u = unionAuthenticator([fixed('a'), fixed('b')], true);
    assert.deepEqual(await u({ headers: { authorization: 'Bearer b' } }), { username: 'b', groups: ['g', 'system:authenticated'] });
  });
  test('an unknown bearer token is 401, never anonymous; no credential is anonymous when allowed', async () => {
    const u = unionAuthenticator([fixed('a')], true);
    await assert.rejects(u({ headers: { authorization: 'Bearer zzz' } }), (e: any) => e.code === 401);
    assert.deepEqual(await u({ headers: {} }), { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    await assert.rejects(unionAuthenticator([fixed('a')], false)({ headers: {} }), (e: any) => e.code === 401);
    await assert.rejects(u({ headers: {}, peerCertificateError: 'unknown authority' }), (e: any) => e.code === 401);
  });
  test('an authenticator that refuses a credential does not end the search (a later one may accept it); its refusal answers when none does', async () => {
    const strict: Authenticator = { authenticate: () => { throw unauthorized('Unauthorized: expired'); } };
    const async: Authenticator = { authenticate: async () => { throw unauthorized('Unauthorized: not yet'); } };
    assert.equal((await unionAuthenticator([strict, async, fixed('a')], true)({ headers: { authorization: 'Bearer a' } })).username, 'a');
    await assert.rejects(unionAuthenticator([strict, async, fixed('a')], true)({ headers: { authorization: 'Bearer b' } }), /expired/);
    // a refused credential is never anonymous, even when anonymous requests are allowed
    await assert.rejects(unionAuthenticator([strict], true)({ headers: {} }), /expired/);
  });
});

describe('static token file', () => {
  test('CSV rules: quoted group lists, at least three columns', () => {
    const t = parseTokenFile('t1,alice,1,"a,b"\nt2,bob,2,c,d\n\n t3 , carol , 3\n');
    assert.deepEqual(t.get('t1'), { username: 'alice', uid: '1', groups: ['a', 'b'] });
    assert.deepEqual(t.get('t2'), { username: 'bob', uid: '2', groups: ['c', 'd'] });
    assert.deepEqual(t.get('t3'), { username: 'carol', uid: '3', groups: [] });
    assert.throws(() => parseTokenFile('t1,alice\n'), /at least 3 columns/);
    // line numbers count blank lines; quotes out of place, or left open, refuse the file as the reference does
    assert.throws(() => parseTokenFile('t1,alice,1\n\nt2,bob\n', 'tokens.csv'), /tokens.csv: line 3: at least 3 columns/);
    assert.throws(() => parseTokenFile('t1,alice,1,"a,b\n', 'tokens.csv'), /tokens.csv: line 1, column 16: a quoted field is not closed/);
    assert.throws(() => parseTokenFile('t1,al"ice,1\n', 'tokens.csv'), /line 1, column 6: a quote inside a field that is not quoted/);
    assert.throws(() => parseTokenFile('t1,alice,1,"a"b\n', 'tokens.csv'), /line 1, column 15: text after a quoted field/);
    assert.deepEqual(parseTokenFile('t1,alice,1, "a,""b"""\n').get('t1'), { username: 'alice', uid: '1', groups: ['a', '"b"'] });
  });
  test('valid, invalid and missing tokens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'token-file-'));
    try {
      writeFileSync(join(dir, 't.csv'), 'secret,alice,1\n');
      const a = tokenFileAuthenticator(join(dir, 't.csv'));
      assert.equal((await a.authenticate({ headers: { authorization: 'Bearer secret' } }))?.username, 'alice');
      assert.equal(await a.authenticate({ headers: { authorization: 'Bearer secreT' } }), undefined);
      assert.equal(await a.authenticate({ headers: {} }), undefined);
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });
});
