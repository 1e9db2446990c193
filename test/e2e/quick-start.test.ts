// The quick start as a newcomer meets it: `npm start` (scripts/start.sh) with its secure defaults, stock kubectl
// 1.27 and 1.32 on the everyday commands with the configuration it writes, anonymous requests refused all but
// health and version, and a start that refuses (a port in use, a CA it cannot use) having written nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath, kubectlVersions } from './support.js';

const repo = new URL('../../../', import.meta.url).pathname;
const startScript = join(repo, 'scripts/start.sh');
const built = existsSync(join(repo, 'dist/bin/apiserver.js'));

interface Started { child: ChildProcess; log: () => string; port: number; exited: Promise<number | null> }

/** `npm start -- <args>` as a child; resolves when the server says it is serving, rejects when it exits first */
function npmStart(args: string[]): Promise<Started> {
  const child = spawn('bash', [startScript, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise<number | null>(r => child.once('exit', code => r(code)));
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      log += d;
      const m = /serving on https:\/\/[^ ]+:(\d+)/.exec(log);
      if (m) resolve({ child, log: () => log, port: Number(m[1]), exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(code => reject(Object.assign(new Error(`exited ${code}: ${log}`), { code, log })));
  });
}

/** a graceful stop; one that takes past a minute is cut short (a slow shutdown is not what these tests check) */
async function stop(s: Started | undefined) {
  if (!s || s.child.exitCode !== null) return;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 60_000);
  await s.exited;
  clearTimeout(timer);
}

/** an anonymous HTTPS request (no client certificate) */
function anonymous(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, res => {
      let body = '';
      res.on('data', d => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject).end();
  });
}

const kubectl = (version: string, kubeconfig: string, home: string, args: string[]) => new Promise<{ code: number; out: string }>(resolve => {
  execFile(kubectlPath(version as '1.27'), ['--kubeconfig', kubeconfig, '--cache-dir', join(home, `cache-${version}`), ...args],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }, timeout: 120_000 },
    (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: `${stdout}${stderr}` }));
});

const waitFor = async (what: string, check: () => Promise<boolean>, ms = 60_000) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) { if (await check()) return; await new Promise(r => setTimeout(r, 200)); }
  assert.fail(`timed out waiting for ${what}`);
};

describe('npm start, fresh', { skip: built ? false : 'the bundled program is missing (npm run build)' }, () => {
  let dir: string;
  let server: Started;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'quick-start-'));
    server = await npmStart(['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`]);
  });
  after(async () => { await stop(server); rmSync(dir, { recursive: true, force: true }); });

  test('logs where it listens and how it authorizes', () => {
    assert.match(server.log(), /serving on https:\/\/127\.0\.0\.1:\d+ \(storage: sqlite, API domain: k8s\.io, authorization: Node,RBAC\)/);
  });

  test('anonymous requests read health and version, nothing else', async () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) assert.equal((await anonymous(server.port, path)).status, 200, path);
    for (const path of ['/api/v1/secrets', '/api/v1/namespaces/kube-system/secrets', '/api/v1/namespaces', '/apis', '/metrics']) {
      const r = await anonymous(server.port, path);
      assert.equal(r.status, 403, `${path}: ${r.body}`);
      assert.match(r.body, /User \\"system:anonymous\\" cannot/);
    }
  });

  for (const version of kubectlVersions) {
    test(`stock kubectl ${version}: the everyday commands with data/admin.kubeconfig`, { skip: existsSync(kubectlPath(version)) ? false : `kubectl ${version} missing` }, async () => {
      const home = mkdtempSync(join(dir, `home-${version}-`));
      const k = (...args: string[]) => kubectl(version, join(dir, 'data', 'admin.kubeconfig'), home, args);
      const ok = async (...args: string[]) => { const r = await k(...args); assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.out}`); return r.out; };
      const ns = `qs-${version.replace('.', '-')}`;
      await ok('create', 'namespace', ns);
      assert.match(await ok('get', 'namespaces'), /NAME\s+STATUS\s+AGE[\s\S]*kube-system\s+Active/);
      await ok('-n', ns, 'create', 'deployment', 'web', '--image=nginx', '--replicas=2');
      await ok('-n', ns, 'create', 'configmap', 'settings', '--from-literal=a=1');
      await ok('-n', ns, 'create', 'secret', 'generic', 'token', '--from-literal=t=x');
      assert.match(await ok('-n', ns, 'get', 'deployments'), /NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s*\nweb\s+0\/2/);
      assert.match(await ok('-n', ns, 'get', 'configmaps'), /NAME\s+DATA\s+AGE[\s\S]*settings\s+1/);
      // the controllers act as their own service accounts: the deployment's pods appear
      await waitFor('the pods of the deployment', async () => (await k('-n', ns, 'get', 'pods', '-o', 'name')).out.split('\n').filter(Boolean).length === 2);
      assert.match(await ok('-n', ns, 'get', 'pods'), /NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE[\s\S]*web-\S+\s+0\/1\s+Pending/);
      await waitFor('the deployment\'s revision and status', async () =>
        /^1 2$/.test((await k('-n', ns, 'get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision} {.status.updatedReplicas}')).out));
      assert.equal((await ok('auth', 'can-i', 'create', 'pods')).trim(), 'yes');
      assert.equal((await k('auth', 'can-i', 'create', 'pods', '--as=someone')).out.trim(), 'no');
      assert.match(await ok('-n', ns, 'describe', 'deployment', 'web'), /Replicas:\s+2 desired/);
      await ok('-n', ns, 'scale', 'deployment', 'web', '--replicas=1');
      await ok('-n', ns, 'label', 'configmap', 'settings', 'tier=web');
      const manifest = join(home, 'cm.yaml');
      writeFileSync(manifest, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: ${ns}\ndata:\n  k: v\n`);
      await ok('apply', '-f', manifest);
      await ok('apply', '--server-side', '-f', manifest);
      assert.match(await ok('api-resources'), /deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/);
      await ok('explain', 'deployment.spec.replicas');
      await ok('-n', ns, 'delete', 'configmap', 'applied', 'settings');
      await ok('delete', 'namespace', ns, '--wait=false');
    });
  }

  test('no controller, each acting as its own service account, is refused anything', () => {
    assert.doesNotMatch(server.log(), /User "system:serviceaccount:kube-system:[^"]+" cannot/);
  });
});

describe('npm start refuses with nothing written', { skip: built ? false : 'the bundled program is missing (npm run build)' }, () => {
  const listing = (root: string) => (existsSync(root) ? readdirSync(root, { recursive: true }).map(String).sort()
    .map(f => `${f} ${statSync(join(root, f)).isFile() ? readFileSync(join(root, f)).toString('base64') : ''}`) : []);

  test('a port in use, before any store or certificate is made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quick-start-port-'));
    const taken = createServer();
    await new Promise<void>(r => taken.listen(0, '127.0.0.1', () => r()));
    try {
      const port = (taken.address() as { port: number }).port;
      const err = await npmStart([`--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`]).then(
        s => { void stop(s); assert.fail('started on a port in use'); }, (e: { code: number; log: string }) => e);
      assert.notEqual(err.code, 0);
      assert.match(err.log, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`));
      assert.ok(!existsSync(join(dir, 'data', 'store.db')));
      assert.ok(!existsSync(join(dir, 'data', 'pki', 'ca.crt')));
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a CA certificate that is garbage, and the admin key stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quick-start-ca-'));
    try {
      const data = join(dir, 'data');
      const args = ['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${data}`];
      await stop(await npmStart(args));
      writeFileSync(join(data, 'pki', 'ca.crt'), 'garbage\n');
      const before = listing(join(data, 'pki'));
      const err = await npmStart(args).then(s => { void stop(s); assert.fail('started with a garbage CA'); }, (e: { code: number; log: string }) => e);
      assert.notEqual(err.code, 0);
      assert.match(err.log, /ca\.crt: not a certificate with its matching private key in ca\.key\. Nothing was changed/);
      assert.deepEqual(listing(join(data, 'pki')), before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
