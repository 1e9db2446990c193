// Authenticators and authorizers that call out, each against a real HTTPS service on loopback: OpenID Connect
// (discovery and keys), the token-review webhook, the authorization webhook (both with caching), and the
// authenticating proxy (client certificate from its own CA, allowed names, header mapping).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, decodeJwt, exportJWK } from 'jose';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { createCertificateAuthority } from '../../src/pki/certificates.js';
import { call, fakeHttpsService, issueClientCert, writeWebhookConfig, type FakeService, type Identity } from './auth-support.js';
import { waitFor } from '../support/wait.js';

describe('remote authentication and authorization services', { concurrency: 1 }, () => {
  let server: TestServer;
  let dir: string;
  let issuer: FakeService, tokenHook: FakeService, authzHook: FakeService;
  let flakyFailed = false;
  const oidcKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const proxyCa = createCertificateAuthority('front-proxy-ca', 3600);
  let proxy: Identity, intruder: Identity;
  const as = (who: Identity, method: string, path: string, opts?: Parameters<typeof call>[4]) => call(server, who, method, path, opts);
  const whoami = (who: Identity, headers?: Record<string, string | string[]>) =>
    as(who, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {}, headers });
  /** an ID token; `exp: null` leaves the expiry out */
  const idToken = (claims: Record<string, unknown>, opts: { exp?: number | null; aud?: string; key?: typeof oidcKey.privateKey } = {}) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer.url).setAudience(opts.aud ?? 'cluster-client').setIssuedAt();
    if (opts.exp !== null) jwt.setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600);
    return jwt.sign(opts.key ?? oidcKey.privateKey);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'auth-remote-'));
    const jwk = { ...(await exportJWK(oidcKey.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    issuer = await fakeHttpsService(dir, 'issuer', req => req.url === '/.well-known/openid-configuration'
      ? { issuer: issuer.url, jwks_uri: `${issuer.url}/keys` } : { keys: [jwk] });
    tokenHook = await fakeHttpsService(dir, 'token-hook', (_req, body, res) => {
      // an ID token that names a webhook user (one the OpenID authenticator refuses, to show the webhook is asked after it)
      const claims = String(body?.spec?.token ?? '').split('.').length === 3 ? decodeJwt(body.spec.token) : undefined;
      if (typeof claims?.webhook_user === 'string') return { apiVersion: body.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: claims.webhook_user } } };
      if (body?.spec?.token === 'hook-mistyped') return { apiVersion: body.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'm', groups: 'admins', extra: { a: 'b' } } } };
      if (body?.spec?.token === 'hook-null-extra') return { apiVersion: body.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'n', extra: { a: null, b: ['1'] } } } };
      if (body?.spec?.token === 'hook-broken') { res.writeHead(503, { 'content-type': 'text/plain' }).end('lost the connection to db.internal:5432'); return undefined; }
      // fails once with a 500, which is tried again, then answers
      if (body?.spec?.token === 'hook-flaky' && !flakyFailed) { flakyFailed = true; res.writeHead(500).end('try again'); return undefined; }
      if (body?.spec?.token === 'hook-flaky') return { apiVersion: body.apiVersion, kind: 'TokenReview', status: { authenticated: true, user: { username: 'flaky' } } };
      const good = body?.spec?.token === 'hook-good';
      return { apiVersion: body.apiVersion, kind: 'TokenReview', status: good
        ? { authenticated: true, user: { username: 'hook-user', uid: '42', groups: ['hookers'], extra: { team: ['a'] } } }
        : { authenticated: false, error: 'token rejected by the hook' } };
    });
    authzHook = await fakeHttpsService(dir, 'authz-hook', (_req, body, res) => {
      const r = body?.spec?.resourceAttributes;
      if (r?.resource === 'widgets') { res.writeHead(503, { 'content-type': 'text/plain' }).end('policy store unavailable'); return undefined; }
      const allowed = body?.spec?.user === 'hook-user' && r?.resource === 'configmaps' && r?.verb === 'list';
      const denied = r?.resource === 'secrets';
      return { apiVersion: body.apiVersion, kind: 'SubjectAccessReview', status: { allowed, ...(denied ? { denied: true, reason: 'secrets are off limits' } : {}) } };
    });
    const tokenHookConfig = join(dir, 'token-hook.json');
    writeWebhookConfig(tokenHookConfig, tokenHook, '/review');
    const authzHookConfig = join(dir, 'authz-hook.json');
    writeWebhookConfig(authzHookConfig, authzHook, '/authorize');
    const proxyCaFile = join(dir, 'proxy-ca.crt');
    writeFileSync(proxyCaFile, proxyCa.certPem);
    proxy = await issueClientCert(proxyCa, 'front-proxy');
    intruder = await issueClientCert(proxyCa, 'intruder');
    server = await startTestServer({ flags: [
      '--authorization-mode=RBAC,Webhook', `--authorization-webhook-config-file=${authzHookConfig}`, '--authorization-webhook-version=v1',
      `--authentication-token-webhook-config-file=${tokenHookConfig}`,
      `--oidc-issuer-url=${issuer.url}`, '--oidc-client-id=cluster-client', `--oidc-ca-file=${issuer.caFile}`, '--oidc-username-claim=email',
      '--oidc-groups-claim=groups', '--oidc-groups-prefix=oidc:', '--oidc-required-claim=tenant=blue',
      `--requestheader-client-ca-file=${proxyCaFile}`, '--requestheader-allowed-names=front-proxy', '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ] });
  });
  after(async () => {
    await server?.close();
    for (const s of [issuer, tokenHook, authzHook]) await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('OpenID Connect: valid, wrong signature, expired or no expiry, wrong audience, missing claim', async () => {
    const good = await idToken({ email: 'jane@example.com', email_verified: true, groups: ['eng', 'ops'], tenant: 'blue' });
    // the issuer's keys are read in the background from the start: tokens are refused until they are known
    const r = await waitFor('the OpenID keys to be known', async () => { const res = await whoami({ token: good }); return res.status === 201 && res; });
    assert.deepEqual(r.json.status.userInfo, { username: 'jane@example.com', groups: ['oidc:eng', 'oidc:ops', 'system:authenticated'] });
    assert.ok(issuer.requests.some(q => q.path === '/.well-known/openid-configuration'));
    // an issuer whose clock runs ahead: its fresh token's nbf is seconds away, within the reference's minute of leeway
    const ahead = await whoami({ token: await idToken({ email: 'jane@example.com', tenant: 'blue', nbf: Math.floor(Date.now() / 1000) + 30 }) });
    assert.equal(ahead.status, 201, ahead.body);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const bad: Array<[string, Promise<string>]> = [
      ['foreign key', idToken({ email: 'jane@example.com', tenant: 'blue' }, { key: other.privateKey })],
      ['expired', idToken({ email: 'jane@example.com', tenant: 'blue' }, { exp: Math.floor(Date.now() / 1000) - 60 })],
      ['no expiry', idToken({ email: 'jane@example.com', tenant: 'blue' }, { exp: null })],
      ['expired a few seconds ago', idToken({ email: 'jane@example.com', tenant: 'blue' }, { exp: Math.floor(Date.now() / 1000) - 5 })],
      ['not valid for two minutes', idToken({ email: 'jane@example.com', tenant: 'blue', nbf: Math.floor(Date.now() / 1000) + 120 })],
      ['audience', idToken({ email: 'jane@example.com', tenant: 'blue' }, { aud: 'someone-else' })],
      ['required claim', idToken({ email: 'jane@example.com', tenant: 'red' })],
      ['unverified email', idToken({ email: 'jane@example.com', email_verified: false, tenant: 'blue' })],
      ['no user claim', idToken({ tenant: 'blue' })],
    ];
    for (const [why, token] of bad) {
      const res = await whoami({ token: await token });
      assert.equal(res.status, 401, why);
      assert.equal(res.json.reason, 'Unauthorized');
    }
  });

  test('a token the OpenID authenticator refuses is still offered to the webhook after it, as the reference\'s union does; refused by both, it is a 401', async () => {
    const good = await idToken({ email: 'jane@example.com', tenant: 'blue' });
    await waitFor('the OpenID keys to be known', async () => (await whoami({ token: good })).status === 201);
    const refusedByOidc = await idToken({ email: 'jane@example.com', tenant: 'red', webhook_user: 'via-hook' });
    const r = await whoami({ token: refusedByOidc });
    assert.equal(r.status, 201, r.body);
    assert.equal(r.json.status.userInfo.username, 'via-hook');
    assert.equal((await whoami({ token: await idToken({ email: 'jane@example.com', tenant: 'red' }) })).status, 401);
  });

  test('token-review webhook: accepted, rejected, cached', async () => {
    const before = tokenHook.requests.length;
    const r = await whoami({ token: 'hook-good' });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.status.userInfo, { username: 'hook-user', uid: '42', groups: ['hookers', 'system:authenticated'], extra: { team: ['a'] } });
    const sent = tokenHook.requests[before];
    assert.equal(sent.body.apiVersion, 'authentication.cluster.io/v1beta1');
    assert.equal(sent.body.spec.token, 'hook-good');
    assert.equal(sent.headers.authorization, 'Bearer apiserver-secret');
    await whoami({ token: 'hook-good' });
    assert.equal(tokenHook.requests.length, before + 1, 'the second call is answered from the cache');
    const bad = await whoami({ token: 'hook-bad' });
    assert.equal(bad.status, 401);
    // the caller is told only Unauthorized, as by the reference; a review shows the webhook's reason
    assert.equal(bad.json.message, 'Unauthorized');
    const review = await as({ certPem: server.adminCertPem, keyPem: server.adminKeyPem }, 'POST', '/apis/authentication.cluster.io/v1/tokenreviews',
      { body: { apiVersion: 'authentication.cluster.io/v1', kind: 'TokenReview', spec: { token: 'hook-bad' } } });
    assert.match(review.json.status.error, /token rejected by the hook/);
    // a webhook that fails is the server's concern: the caller, not authenticated, learns nothing of it
    const broken = await whoami({ token: 'hook-broken' });
    assert.equal(broken.status, 401);
    assert.equal(broken.json.message, 'Unauthorized');
    // a user of the wrong types is the webhook's fault too; an extra key without values is no extra
    const mistyped = await whoami({ token: 'hook-mistyped' });
    assert.equal(mistyped.status, 401, mistyped.body);
    assert.equal(mistyped.json.message, 'Unauthorized');
    const nullExtra = await whoami({ token: 'hook-null-extra' });
    assert.equal(nullExtra.status, 201, nullExtra.body);
    assert.deepEqual(nullExtra.json.status.userInfo, { username: 'n', groups: ['system:authenticated'], extra: { b: ['1'] } });
    // a 500 is a transient failure, tried again as the reference tries it
    const flaky = await whoami({ token: 'hook-flaky' });
    assert.equal(flaky.status, 201, flaky.body);
    assert.equal(flaky.json.status.userInfo.username, 'flaky');
  });

  test('authorization webhook: allow, explicit deny, no opinion, cached', async () => {
    const hookUser: Identity = { token: 'hook-good' };
    const before = authzHook.requests.length;
    assert.equal((await as(hookUser, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    const sent = authzHook.requests[before].body;
    assert.equal(sent.apiVersion, 'authorization.cluster.io/v1');
    assert.deepEqual(sent.spec.groups, ['hookers', 'system:authenticated']);
    // empty fields are left out, as the reference's encoding leaves them out
    assert.deepEqual(sent.spec.resourceAttributes, { namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps' });
    assert.equal((await as(hookUser, 'GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal(authzHook.requests.length, before + 1, 'allowed answers are cached');
    const denied = await as(hookUser, 'GET', '/api/v1/namespaces/default/secrets');
    assert.equal(denied.status, 403);
    assert.match(denied.json.message, /: secrets are off limits$/);
    assert.equal((await as(hookUser, 'DELETE', '/api/v1/namespaces/default/configmaps/x')).status, 403);
    // RBAC comes first: the discovery role answers without asking the webhook
    const n = authzHook.requests.length;
    assert.equal((await as(hookUser, 'GET', '/version')).status, 200);
    assert.equal(authzHook.requests.length, n);
    // the webhook cannot list rules: the review has RBAC's and says the list may be incomplete, in the reference's words
    const rules = await as(hookUser, 'POST', '/apis/authorization.cluster.io/v1/selfsubjectrulesreviews', { body: { spec: { namespace: 'default' } } });
    assert.equal(rules.status, 201, rules.body);
    assert.equal(rules.json.status.incomplete, true);
    assert.equal(rules.json.status.evaluationError, 'webhook authorizer does not support user rule resolution');
    assert.ok(rules.json.status.nonResourceRules.some((r: any) => r.nonResourceURLs.includes('/version')), 'RBAC rules are still listed');
  });

  test('authorization webhook that fails: a 500 when nothing else allows, as the reference answers (not a refusal), and an evaluation error in reviews', async () => {
    const hookUser: Identity = { token: 'hook-good' };
    const r = await as(hookUser, 'GET', '/apis/example.com/v1/namespaces/default/widgets');
    assert.equal(r.status, 500, r.body);
    assert.equal(r.json.reason, 'InternalError');
    assert.match(r.json.message, /^Internal error occurred: authorization webhook failed: the webhook answered 503/);
    const review = await as({ certPem: server.adminCertPem, keyPem: server.adminKeyPem }, 'POST', '/apis/authorization.cluster.io/v1/subjectaccessreviews', {
      body: { spec: { user: 'hook-user', resourceAttributes: { namespace: 'default', verb: 'get', group: 'example.com', resource: 'widgets' } } } });
    assert.equal(review.status, 201, review.body);
    assert.equal(review.json.status.allowed, false);
    assert.match(review.json.status.evaluationError, /authorization webhook failed/);
  });

  test('authenticating proxy: trusted certificate and name, headers mapped; others ignored', async () => {
    const headers = { 'X-Remote-User': 'pat', 'X-Remote-Group': 'g1', 'X-Remote-Extra-Acme.com%2Fproject': 'p1' };
    const r = await whoami(proxy, headers);
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.status.userInfo, { username: 'pat', groups: ['g1', 'system:authenticated'], extra: { 'acme.com/project': ['p1'] } });
    // a certificate from the proxy CA with a name not allowed: neither a proxy nor a user
    assert.equal((await whoami(intruder, headers)).status, 401);
    // headers without the proxy's certificate are ignored: anonymous, who may not ask
    assert.equal((await whoami({}, headers)).status, 403);
    // the proxy certificate alone, without the headers, is no user either
    assert.equal((await whoami(proxy)).status, 401);
    // admin certificates still work alongside
    assert.equal((await whoami({ certPem: server.adminCertPem, keyPem: server.adminKeyPem })).json.status.userInfo.username, 'admin');
  });

  test('authenticating proxy: each header value is one group or extra value, a comma in it kept (an LDAP DN is one group), as the reference reads them', async () => {
    const r = await whoami(proxy, {
      'X-Remote-User': 'pat', 'X-Remote-Group': ['cn=admins,ou=groups,dc=example', 'dev', ''],
      'X-Remote-Extra-Scopes': ['read,write', 'admin'], 'X-Remote-Extra-Reason': 'on call, paged',
    });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(r.json.status.userInfo, {
      username: 'pat', groups: ['cn=admins,ou=groups,dc=example', 'dev', 'system:authenticated'],
      extra: { scopes: ['read,write', 'admin'], reason: ['on call, paged'] },
    });
    // the first user header value is the user
    const twice = await whoami(proxy, { 'X-Remote-User': ['first', 'second'] });
    assert.equal(twice.json.status.userInfo.username, 'first');
  });

  test('authenticating proxy: extra keys named like Object members (__proto__, constructor) are plain keys, not a 500', async () => {
    const r = await whoami(proxy, { 'X-Remote-User': 'pat', 'X-Remote-Extra-__proto__': 'p1', 'X-Remote-Extra-Constructor': 'c1' });
    assert.equal(r.status, 201, r.body);
    assert.match(r.body, /"extra":\{"__proto__":\["p1"\],"constructor":\["c1"\]\}/);
  });
});

test('a start with an unusable file of an authentication, authorization or front-proxy flag is refused naming the flag', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'auth-files-'));
  try {
    const garbage = join(dir, 'garbage.pem'), missing = join(dir, 'missing');
    writeFileSync(garbage, 'not a certificate\n');
    writeFileSync(join(dir, 'empty.kubeconfig'), 'apiVersion: v1\nkind: Config\n');
    const other = createCertificateAuthority('other', 3600);
    const pair = await issueClientCert(other, 'front-proxy-client');
    writeFileSync(join(dir, 'proxy.crt'), pair.certPem);
    writeFileSync(join(dir, 'other.key'), other.keyPem);
    for (const [flags, message] of [
      [[`--token-auth-file=${missing}`], /^Error: --token-auth-file: ENOENT/],
      [[`--authentication-token-webhook-config-file=${join(dir, 'empty.kubeconfig')}`], /^Error: --authentication-token-webhook-config-file: the client configuration has no cluster/],
      [['--authorization-mode=Webhook', `--authorization-webhook-config-file=${join(dir, 'empty.kubeconfig')}`], /^Error: --authorization-webhook-config-file: the client configuration has no cluster/],
      [[`--requestheader-client-ca-file=${garbage}`], /^Error: --requestheader-client-ca-file: /],
      [[`--proxy-client-cert-file=${garbage}`, `--proxy-client-key-file=${garbage}`], /^Error: --proxy-client-cert-file .*garbage\.pem: no PEM certificate/],
      [[`--proxy-client-cert-file=${join(dir, 'proxy.crt')}`, `--proxy-client-key-file=${join(dir, 'other.key')}`], /^Error: --proxy-client-key-file .*other\.key: the key is not the one of --proxy-client-cert-file/],
    ] as const) await assert.rejects(startTestServer({ flags: [...flags] }), message, flags.join(' '));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('OpenID Connect: while the issuer does not answer (or trickles its answer), tokens are refused at once (the keys are read apart from requests), and accepted once it answers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oidc-slow-'));
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let answering = false;
  const trickles = new Set<NodeJS.Timeout>();
  const issuer: FakeService = await fakeHttpsService(dir, 'slow-issuer', (req, _body, res) => {
    if (!answering) {
      // an issuer that is stuck: it trickles its answer and never ends it
      res.writeHead(200, { 'content-type': 'application/json' }).write('{');
      const t = setInterval(() => res.write(' '), 200);
      trickles.add(t);
      res.on('close', () => { clearInterval(t); trickles.delete(t); });
      return new Promise(() => {});
    }
    return req.url === '/.well-known/openid-configuration' ? { issuer: issuer.url, jwks_uri: `${issuer.url}/keys` } : { keys: [jwk] };
  });
  const server = await startTestServer({ flags: [`--oidc-issuer-url=${issuer.url}`, '--oidc-client-id=cluster-client', `--oidc-ca-file=${issuer.caFile}`,
    '--oidc-username-claim=email', '--controller-manager=false'] });
  try {
    const token = await new SignJWT({ email: 'jane@example.com' }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer.url)
      .setAudience('cluster-client').setIssuedAt().setExpirationTime('10m').sign(key.privateKey);
    const whoami = () => call(server, { token }, 'POST', '/apis/authentication.cluster.io/v1beta1/selfsubjectreviews', { body: {} });
    await waitFor('the server to ask the issuer', async () => issuer.requests.length > 0);
    const asked = issuer.requests.length;
    for (let i = 0; i < 5; i++) {
      const r = await whoami();
      assert.equal(r.status, 401, r.body);
      assert.equal(r.json.message, 'Unauthorized');
    }
    assert.equal(issuer.requests.length, asked, 'requests do not make the server call the issuer');
    answering = true;
    const ok = await waitFor('the keys to be read on the next try', async () => { const r = await whoami(); return r.status === 201 && r; }, 60_000, 200);
    assert.equal(ok.json.status.userInfo.username, 'jane@example.com');
  } finally {
    await server.close();
    for (const t of trickles) clearInterval(t);
    await issuer.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
