// kubectl 1.27 and 1.32, unmodified, against a k8s.io-mode server with RBAC: `auth can-i` (allowed, denied,
// --list), `auth whoami`, `create token`, `--as` and `--as-group`, and a token user and a client-certificate
// user each seeing only what their roles allow.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { issueClientCert, serverCa, writeKubeconfig, type Identity } from './auth-support.js';

const versions = ['1.27', '1.32'] as const;

for (const version of versions) {
  describe(`kubectl ${version} auth commands (k8s.io mode, RBAC)`, { concurrency: 1 }, () => {
    let server: TestServer;
    let dir: string;
    const configs: Record<string, string> = {};
    const kubectl = (who: string, args: string[]) => new Promise<{ code: number; stdout: string; stderr: string }>(resolve => {
      execFile(`/usr/lib/google-cloud-sdk/bin/kubectl.${version}`, ['--kubeconfig', configs[who], '--cache-dir', join(dir, `cache-${who}`), ...args],
        { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }, timeout: 30_000, killSignal: 'SIGKILL' },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
    });
    const ok = async (who: string, args: string[]) => {
      const r = await kubectl(who, args);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} as ${who}: ${r.stderr}${r.stdout}`);
      return r.stdout;
    };

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'auth-kubectl-'));
      const tokens = join(dir, 'tokens.csv');
      writeFileSync(tokens, 'alice-token,alice,1001,"dev,qa"\n');
      server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--authorization-mode=Node,RBAC', `--token-auth-file=${tokens}`] });
      const carol: Identity = await issueClientCert(serverCa(server), 'carol', ['auditors']);
      configs.admin = server.kubeconfig;
      configs.alice = writeKubeconfig(join(dir, 'alice.kubeconfig'), server, { token: 'alice-token' });
      configs.carol = writeKubeconfig(join(dir, 'carol.kubeconfig'), server, carol);
      const manifest = join(dir, 'rbac.json');
      writeFileSync(manifest, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader', namespace: 'team' },
          rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-reads-pods', namespace: 'team' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' }, subjects: [{ kind: 'User', name: 'alice' }] },
        { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'auditors-view', namespace: 'team' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'auditors' }] },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'team' }, data: { a: '1' } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hidden', namespace: 'team' }, stringData: { p: 'x' } },
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'team' } },
      ] }));
      await ok('admin', ['apply', '-f', manifest]);
    });
    after(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('auth can-i: allowed says yes, denied says no (exit 1)', async () => {
      assert.equal((await ok('alice', ['auth', 'can-i', 'list', 'pods', '-n', 'team'])).trim(), 'yes');
      const denied = await kubectl('alice', ['auth', 'can-i', 'delete', 'pods', '-n', 'team']);
      assert.equal(denied.code, 1);
      assert.equal(denied.stdout.trim(), 'no');
      assert.equal((await kubectl('alice', ['auth', 'can-i', 'list', 'pods', '-n', 'default'])).stdout.trim(), 'no');
      assert.equal((await ok('admin', ['auth', 'can-i', '*', '*'])).trim(), 'yes');
    });

    test('auth can-i --list shows the rules the user holds in the namespace', async () => {
      const out = await ok('alice', ['auth', 'can-i', '--list', '-n', 'team']);
      const podsRow = out.split('\n').find(l => /^pods\s/.test(l));
      assert.ok(podsRow, out);
      assert.match(podsRow!, /\[get list watch\]/);
      assert.match(out, /selfsubjectaccessreviews\.authorization\.k8s\.io/);
      assert.doesNotMatch(out, /^secrets/m);
    });

    test('auth whoami names the token user and its groups', async () => {
      const out = await ok('alice', ['auth', 'whoami', '-o', 'json']);
      const status = JSON.parse(out).status.userInfo;
      assert.equal(status.username, 'alice');
      assert.equal(status.uid, '1001');
      assert.deepEqual(status.groups, ['dev', 'qa', 'system:authenticated']);
    });

    test('create token: a service-account token that authenticates as the account', async () => {
      const token = (await ok('admin', ['create', 'token', 'robot', '-n', 'team', '--duration=15m'])).trim();
      assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      configs.robot = writeKubeconfig(join(dir, 'robot.kubeconfig'), server, { token });
      const who = JSON.parse(await ok('robot', ['auth', 'whoami', '-o', 'json'])).status.userInfo;
      assert.equal(who.username, 'system:serviceaccount:team:robot');
      assert.deepEqual(who.groups, ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated']);
      assert.equal((await kubectl('robot', ['get', 'pods', '-n', 'team'])).code, 1);
      // a token user cannot mint tokens without the right to
      const refused = await kubectl('alice', ['create', 'token', 'robot', '-n', 'team']);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /forbidden/i);
    });

    test('--as and --as-group: allowed for admins, checked for everyone else', async () => {
      assert.equal((await ok('admin', ['auth', 'can-i', 'list', 'pods', '-n', 'team', '--as=alice'])).trim(), 'yes');
      assert.equal((await kubectl('admin', ['auth', 'can-i', 'list', 'secrets', '-n', 'team', '--as=alice'])).stdout.trim(), 'no');
      const who = JSON.parse(await ok('admin', ['auth', 'whoami', '-o', 'json', '--as=dave', '--as-group=auditors'])).status.userInfo;
      assert.equal(who.username, 'dave');
      assert.deepEqual(who.groups, ['auditors', 'system:authenticated']);
      // the root CA publisher (its own service account under RBAC) may have added kube-root-ca.crt by now
      const listed = (await ok('admin', ['get', 'configmaps', '-n', 'team', '--as=dave', '--as-group=auditors', '-o', 'name'])).trim().split('\n');
      assert.deepEqual(listed.filter((n) => n !== 'configmap/kube-root-ca.crt'), ['configmap/settings']);
      const forged = await kubectl('alice', ['get', 'pods', '-n', 'team', '--as=admin']);
      assert.equal(forged.code, 1);
      assert.match(forged.stderr, /users "admin" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope/);
    });

    test('a token user and a certificate user each see only what their roles allow', async () => {
      assert.equal((await ok('alice', ['get', 'pods', '-n', 'team', '-o', 'name'])).trim(), '');
      const aliceCm = await kubectl('alice', ['get', 'configmaps', '-n', 'team']);
      assert.equal(aliceCm.code, 1);
      assert.match(aliceCm.stderr, /configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team"/);
      assert.equal((await ok('carol', ['get', 'configmaps', 'settings', '-n', 'team', '-o', 'name'])).trim(), 'configmap/settings');
      const carolSecret = await kubectl('carol', ['get', 'secret', 'hidden', '-n', 'team']);
      assert.equal(carolSecret.code, 1);
      assert.match(carolSecret.stderr, /secrets "hidden" is forbidden: User "carol" cannot get resource "secrets"/);
      const carolWrite = await kubectl('carol', ['delete', 'configmap', 'settings', '-n', 'team']);
      assert.equal(carolWrite.code, 1);
      assert.match(carolWrite.stderr, /forbidden/);
    });
  });
}
