// Client credential plugins, spec 5.6, rule by rule, with real plugin scripts against a real server: the command
// relative to the configuration file, apiVersion v1 and v1beta1 (the answer must match), env and args,
// installHint, provideClusterInfo, interactiveMode with and without a terminal, the input variable, token and
// client certificate outputs, caching until expiry / a 401 / the end of the process, a new TLS handshake when the
// certificate changes, and the node agent authenticating through a plugin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { loadClientConfig, ClientConfigError } from '../../src/config/client-config.js';
import { createClient, ApiError } from '../../src/client/rest-client.js';
import { isInteractive } from '../../src/client/exec-credential.js';
import { generateKeyPair, issueLeaf } from '../../src/pki/certificates.js';
import { naming } from '../../src/api/naming.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent } from '../../src/agent/agent.js';

const clusterctl = new URL('../../bin/clusterctl.js', import.meta.url).pathname;

interface Run { code: number; stdout: string; stderr: string }
const run = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) => new Promise<Run>((resolve) => {
  execFile(file, args, { env: { PATH: process.env.PATH, HOME: tmpdir(), ...env }, timeout: 30_000 }, (err, stdout, stderr) =>
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
});

describe('exec credential plugins (spec 5.6)', () => {
  let server: TestServer;
  let dir: string;
  let caKeyPem: string;
  const execGroup = (d: 'cluster.io' | 'k8s.io' = 'cluster.io') => naming(d).group('client.authentication');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'exec-plugin-'));
    writeFileSync(join(dir, 'tokens.csv'), 'good-token,alice,uid-a,"system:masters"\nbob-token,bob,uid-b,"system:masters"\n');
    server = await startTestServer({ flags: [`--token-auth-file=${join(dir, 'tokens.csv')}`] });
    caKeyPem = readFileSync(join(server.dataDir, 'pki', 'ca.key'), 'utf8');
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A plugin script: it records its input variable, arguments, environment and whether stdin is a terminal,
   * counts its runs, and prints what `answer` (shell that sets STATUS) says.
   */
  function plugin(name: string, answer: string, apiVersion = `${execGroup()}/v1`, infoVar = 'CLUSTER_EXEC_INFO'): string {
    const folder = join(dir, name);
    mkdirSync(join(folder, 'bin'), { recursive: true });
    const path = join(folder, 'bin', 'plugin.sh');
    writeFileSync(path, `#!/bin/bash
n=$(( $(cat "${folder}/count" 2>/dev/null || echo 0) + 1 )); echo $n > "${folder}/count"
printf '%s' "$${infoVar}" > "${folder}/input.json"
echo "$@" > "${folder}/args"
echo "$PLUGIN_GREETING" > "${folder}/env"
if [ -t 0 ]; then echo yes > "${folder}/stdin-tty"; else echo no > "${folder}/stdin-tty"; fi
${answer}
echo "{\\"apiVersion\\":\\"${apiVersion}\\",\\"kind\\":\\"ExecCredential\\",\\"status\\":$STATUS}"
`);
    chmodSync(path, 0o755);
    return folder;
  }
  const runs = (folder: string) => Number(readFileSync(join(folder, 'count'), 'utf8'));
  const input = (folder: string) => JSON.parse(readFileSync(join(folder, 'input.json'), 'utf8'));

  /** a client-configuration file next to the plugin, naming it by a relative path */
  function kubeconfig(folder: string, exec: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
    const path = join(folder, 'config');
    writeFileSync(path, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'k', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64'), ...cluster } }],
      users: [{ name: 'u', user: { exec: { command: './bin/plugin.sh', ...exec } } }],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    }));
    return path;
  }

  const whoami = async (config: string) => {
    const client = createClient(await loadClientConfig(config), { execIO: { stdinIsTerminal: false } });
    try {
      const group = server.names.group('authentication');
      const review = await client.request({ method: 'POST', path: `/apis/${group}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${group}/v1beta1`, kind: 'SelfSubjectReview' } });
      return review.status.userInfo.username as string;
    } finally {
      client.close();
    }
  };

  test('a token; the command is relative to the file; args and env reach it; the input names the version and is not interactive', async () => {
    const folder = plugin('token', `STATUS='{"token":"good-token"}'`);
    const config = kubeconfig(folder, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never', args: ['--flag', 'x'], env: [{ name: 'PLUGIN_GREETING', value: 'hello' }] });
    assert.equal((await loadClientConfig(config)).exec?.command, join(folder, 'bin', 'plugin.sh'));
    assert.equal(await whoami(config), 'alice');
    assert.equal(readFileSync(join(folder, 'args'), 'utf8').trim(), '--flag x');
    assert.equal(readFileSync(join(folder, 'env'), 'utf8').trim(), 'hello');
    assert.deepEqual(input(folder), { apiVersion: `${execGroup()}/v1`, kind: 'ExecCredential', spec: { interactive: false } });
  });

  test('v1beta1 works, defaults interactiveMode to IfAvailable; v1 requires it', async () => {
    const folder = plugin('beta', `STATUS='{"token":"good-token"}'`, `${execGroup()}/v1beta1`);
    assert.equal(await whoami(kubeconfig(folder, { apiVersion: `${execGroup()}/v1beta1` })), 'alice');
    assert.equal((await loadClientConfig(join(folder, 'config'))).exec?.interactiveMode, 'IfAvailable');
    const v1 = plugin('v1-no-mode', `STATUS='{"token":"good-token"}'`);
    await assert.rejects(loadClientConfig(kubeconfig(v1, { apiVersion: `${execGroup()}/v1` })), (e: Error) => e instanceof ClientConfigError && /needs interactiveMode/.test(e.message));
    await assert.rejects(loadClientConfig(kubeconfig(v1, { apiVersion: 'client.authentication.example/v1', interactiveMode: 'Never' })), /not supported/);
    await assert.rejects(loadClientConfig(kubeconfig(v1, { interactiveMode: 'Never' })), /needs an apiVersion/);
    await assert.rejects(loadClientConfig(kubeconfig(v1, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Sometimes' })), /not one of Never, IfAvailable, Always/);
  });

  test('the answer must be in the version the configuration names', async () => {
    const folder = plugin('mismatch', `STATUS='{"token":"good-token"}'`, `${execGroup()}/v1beta1`);
    await assert.rejects(whoami(kubeconfig(folder, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' })),
      (e: Error) => /answered in "client\.authentication\.cluster\.io\/v1beta1", but its configuration names client\.authentication\.cluster\.io\/v1/.test(e.message));
  });

  test('in the reference domain the input variable is the reference\'s', async () => {
    const folder = plugin('k8s-domain', `STATUS='{"token":"good-token"}'`, `${execGroup('k8s.io')}/v1`, 'KUBERNETES_EXEC_INFO');
    assert.equal(await whoami(kubeconfig(folder, { apiVersion: `${execGroup('k8s.io')}/v1`, interactiveMode: 'Never' })), 'alice');
    assert.equal(input(folder).apiVersion, `${execGroup('k8s.io')}/v1`);
  });

  test('provideClusterInfo: spec.cluster with the server, CA data and the cluster\'s exec extension as config', async () => {
    const folder = plugin('cluster-info', `STATUS='{"token":"good-token"}'`);
    const config = kubeconfig(folder, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never', provideClusterInfo: true },
      { 'tls-server-name': 'localhost', extensions: [{ name: `${execGroup()}/exec`, extension: { audience: 'tests', region: 'here' } }, { name: 'other', extension: { no: 1 } }] });
    assert.equal(await whoami(config), 'alice');
    assert.deepEqual(input(folder).spec.cluster, {
      server: server.url, 'tls-server-name': 'localhost', 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64'),
      config: { audience: 'tests', region: 'here' },
    });
  });

  test('a missing command shows the installHint', async () => {
    const folder = plugin('missing', '');
    const config = kubeconfig(folder, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never', command: './bin/not-installed', installHint: 'Install it with: apt-get install not-installed' });
    await assert.rejects(whoami(config), (e: Error) => /executable .*not-installed not found\n\nInstall it with: apt-get install not-installed/.test(e.message));
  });

  test('failures: a non-zero exit with its stderr, no token nor certificate, a certificate without its key', async () => {
    const exit = plugin('exit', `echo 'no session, log in first' >&2; exit 3`);
    await assert.rejects(whoami(kubeconfig(exit, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' })), /failed with exit code 3: no session, log in first/);
    const empty = plugin('empty', `STATUS='{}'`);
    await assert.rejects(whoami(kubeconfig(empty, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' })), /neither a token nor a client certificate and key/);
    const half = plugin('half', `STATUS='{"clientCertificateData":"x"}'`);
    await assert.rejects(whoami(kubeconfig(half, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' })), /certificate without its key/);
  });

  /** a client certificate of this server's CA, valid for `seconds`, as JSON string escapes */
  const certFor = (user: string) => {
    const key = generateKeyPair();
    const cert = issueLeaf({ certPem: server.caCertPem, keyPem: caKeyPem }, key.publicKey, { commonName: user, organizations: ['system:masters'], usages: ['digital signature', 'key encipherment', 'client auth'], ttlSeconds: 3600 });
    return { cert, key: key.keyPem };
  };

  test('a client certificate and key; cached until expirationTimestamp, then a new one over a new TLS connection', async () => {
    const folder = join(dir, 'certs');
    mkdirSync(folder, { recursive: true });
    for (const user of ['carol', 'dave']) {
      const { cert, key } = certFor(user);
      writeFileSync(join(folder, `${user}.json`), JSON.stringify({ clientCertificateData: cert, clientKeyData: key }).replace(/}$/, ''));
    }
    // the first run answers carol's certificate with an expiry 2 s ahead; later runs dave's, for an hour
    const p = plugin('cert', `if [ "$n" = 1 ]; then F=carol; E=$(date -u -d '+2 sec' +%Y-%m-%dT%H:%M:%SZ); else F=dave; E=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ); fi
STATUS="$(cat "${folder}/$F.json"),\\"expirationTimestamp\\":\\"$E\\"}"`);
    const client = createClient(await loadClientConfig(kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' })));
    const group = server.names.group('authentication');
    const who = async () => (await client.request({ method: 'POST', path: `/apis/${group}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${group}/v1beta1`, kind: 'SelfSubjectReview' } })).status.userInfo.username;
    try {
      assert.equal(await who(), 'carol');
      assert.equal(await who(), 'carol');
      assert.equal(runs(p), 1, 'cached while the certificate is valid');
      // once the expiry the plugin set has passed, the next request runs it again and presents dave's certificate
      let user = 'carol';
      for (let i = 0; user === 'carol'; i++) {
        if (i > 400) throw new Error('the plugin was not run again after its credential expired');
        await new Promise((r) => setTimeout(r, 25));
        user = await who();
      }
      assert.equal(user, 'dave');
      assert.equal(runs(p), 2);
    } finally {
      client.close();
    }
  });

  test('without an expiry a token is kept until the server answers 401; then the plugin runs again and the request is retried', async () => {
    const p = plugin('refresh', `if [ "$n" = 1 ]; then STATUS='{"token":"revoked-token"}'; else STATUS='{"token":"bob-token"}'; fi`);
    const config = kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' });
    assert.equal(await whoami(config), 'bob');
    assert.equal(runs(p), 2, 'run once, refused with 401, run again');
    // another client in the same process shares the cached credential: no third run
    assert.equal(await whoami(config), 'bob');
    assert.equal(runs(p), 2);
  });

  test('a plugin whose fresh token is refused too: the 401 reaches the caller', async () => {
    const p = plugin('always-bad', `STATUS='{"token":"nobody-knows-me"}'`);
    await assert.rejects(whoami(kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' })), (e: unknown) => e instanceof ApiError && e.code === 401);
    assert.equal(runs(p), 2);
  });

  test('interactive modes without a terminal: Never and IfAvailable run non-interactively; Always fails', async () => {
    for (const mode of ['Never', 'IfAvailable']) {
      const p = plugin(`no-tty-${mode}`, `STATUS='{"token":"good-token"}'`);
      const r = await run(process.execPath, [clusterctl, '--kubeconfig', kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: mode }), 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'alice');
      assert.equal(input(p).spec.interactive, false);
      assert.equal(readFileSync(join(p, 'stdin-tty'), 'utf8').trim(), 'no');
    }
    const p = plugin('no-tty-Always', `STATUS='{"token":"good-token"}'`);
    const r = await run(process.execPath, [clusterctl, '--kubeconfig', kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Always' }), 'get', 'namespaces']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /interactiveMode Always, but standard input is not a terminal/);
    assert.ok(!existsSync(join(p, 'count')), 'the plugin never ran');
  });

  test('interactive modes with a terminal: IfAvailable and Always get the terminal as stdin; Never does not', { skip: !existsSync('/usr/bin/script') && 'script(1) is not installed' }, async () => {
    for (const [mode, interactive] of [['IfAvailable', true], ['Always', true], ['Never', false]] as const) {
      const p = plugin(`tty-${mode}`, `STATUS='{"token":"good-token"}'`);
      const config = kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: mode });
      // script(1) runs the command on a new pseudo-terminal
      const r = await run('/usr/bin/script', ['-qec', `${process.execPath} ${clusterctl} --kubeconfig ${config} auth whoami -o jsonpath={.status.userInfo.username}`, '/dev/null']);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.match(r.stdout, /alice/);
      assert.equal(input(p).spec.interactive, interactive, mode);
      assert.equal(readFileSync(join(p, 'stdin-tty'), 'utf8').trim(), interactive ? 'yes' : 'no', mode);
    }
  });

  test('standard input taken by the command (a manifest from -) is unavailable to the plugin even on a terminal', () => {
    const exec = { apiVersion: `${execGroup()}/v1`, command: 'x', args: [] as string[], env: [], provideClusterInfo: false };
    assert.throws(() => isInteractive({ ...exec, interactiveMode: 'Always' }, { stdinIsTerminal: true, stdinUnavailable: true }), /standard input is in use/);
    assert.equal(isInteractive({ ...exec, interactiveMode: 'IfAvailable' }, { stdinIsTerminal: true, stdinUnavailable: true }), false);
    assert.equal(isInteractive({ ...exec, interactiveMode: 'IfAvailable' }, { stdinIsTerminal: true }), true);
    assert.equal(isInteractive({ ...exec, interactiveMode: 'Never' }, { stdinIsTerminal: true }), false);
  });

  test('the node agent authenticates through a plugin from its client configuration', async () => {
    const p = plugin('agent', `STATUS='{"token":"good-token"}'`);
    const config = kubeconfig(p, { apiVersion: `${execGroup()}/v1`, interactiveMode: 'Never' });
    const { options } = await parseAgentOptions([`--clusterconfig=${config}`, '--runtime=fake', '--hostname-override=exec-node', `--root-dir=${join(dir, 'agent-root')}`]);
    const agent = await runAgent(options, { info() {}, warn() {} }, { leaseDurationSeconds: 1, relistMs: 50 });
    try {
      const nodes = server.client.resource({ group: '', version: 'v1', resource: 'nodes' });
      for (let i = 0; ; i++) {
        const node = await nodes.get('exec-node').catch(() => undefined);
        if (node) break;
        if (i > 400) throw new Error('the agent did not register its node');
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(runs(p) >= 1);
    } finally {
      await agent.stop();
    }
  });

  /** a client-configuration file in `folder` whose user is `user` */
  function userConfig(folder: string, user: Record<string, unknown>): string {
    mkdirSync(folder, { recursive: true });
    const path = join(folder, 'config');
    writeFileSync(path, JSON.stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'k', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64') } }],
      users: [{ name: 'u', user }], contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
    }));
    return path;
  }

  test('tokenFile is relative to the configuration and read again by a long-lived client: the token rotated on disk replaces a refused one', async () => {
    const folder = join(dir, 'token-file');
    const config = userConfig(folder, { tokenFile: 'token' });
    writeFileSync(join(folder, 'token'), 'revoked-token\n');
    const client = createClient(await loadClientConfig(config));
    try {
      // rotated after the client was made: the kept token is refused, the file is read again and the request retried
      writeFileSync(join(folder, 'token'), 'good-token\n');
      const group = server.names.group('authentication');
      const review = await client.request<any>({ method: 'POST', path: `/apis/${group}/v1beta1/selfsubjectreviews`, body: { apiVersion: `${group}/v1beta1`, kind: 'SelfSubjectReview' } });
      assert.equal(review.status.userInfo.username, 'alice');
    } finally {
      client.close();
    }
  });

  test('an auth-provider user is refused with a clear error naming the plugin to use, unless a token is given on the command line', async () => {
    for (const [name, hint] of [['gcp', /gke-gcloud-auth-plugin/], ['azure', /kubelogin/], ['oidc', /kubelogin/], ['other', /exec credential plugin/]] as const) {
      const config = userConfig(join(dir, `auth-provider-${name}`), { 'auth-provider': { name, config: { 'id-token': 'x' } } });
      await assert.rejects(loadClientConfig(config), (e: Error) => e instanceof ClientConfigError && new RegExp(`auth-provider "${name}" is not supported`).test(e.message) && hint.test(e.message));
    }
    const config = userConfig(join(dir, 'auth-provider-overridden'), { 'auth-provider': { name: 'gcp' } });
    const r = await run(process.execPath, [clusterctl, '--kubeconfig', config, '--token=good-token', 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'alice');
    const refused = await run(process.execPath, [clusterctl, '--kubeconfig', config, 'auth', 'whoami']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /auth-provider "gcp" is not supported/);
  });
});
