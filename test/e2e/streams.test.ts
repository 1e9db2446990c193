// The node streams end to end with the real kubectl (1.27 speaks SPDY; 1.32 tries WebSocket first and falls back
// to SPDY where the agent refuses) and Debian's python3-kubernetes (WebSocket): logs (follow, previous, tail,
// timestamps), exec (exit codes, stdin, a terminal), attach, cp both ways, port-forward, proxy (kubectl proxy,
// pods/proxy, nodes/proxy), through the API server to an agent on the fake runtime; and authorization per
// subresource with RBAC.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { get as httpGet } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { PassThrough, Writable } from 'node:stream';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../../src/testing.js';
import { freePort } from '../support/ports.js';
import { parseAgentOptions } from '../../src/agent/options.js';
import { runAgent, type RunningAgent } from '../../src/agent/agent.js';
import { startAgentServers, type AgentServers } from '../../src/agent/server.js';
import { clientFromFile, type Client } from '../../src/client/rest-client.js';
import { podsRef } from '../../src/agent/status-manager.js';
import { nodesRef } from '../../src/agent/node-status.js';
import { ensureDefaultServiceAccount, quiet, tempDir, waitFor } from '../agent/helpers.js';
import { kubectlPath, kubectlVersions, startKubectlEnv, type KubectlEnv } from './support.js';

const python = '/usr/bin/python3';
const annotation = (what: string) => `agent.k8s.io/fake-${what}`;

/** a local HTTP server: what host-network pods of the fake runtime serve on the node's ports */
async function localHttp(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`served ${req.method} ${req.url}\n`));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

const fetchText = (url: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
  httpGet(url, (res) => { let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => resolve({ status: res.statusCode ?? 0, body })); }).on('error', reject);
});

describe('node streams through the API server to a fake node', () => {
  let server: TestServer;
  let client: Client;
  let agent: RunningAgent;
  let servers: AgentServers;
  let dir: string;
  let web: { server: Server; port: number };

  before(async () => {
    dir = tempDir('streams-');
    writeFileSync(join(dir, 'tokens.csv'), 'viewer-token,viewer,uid-v\n');
    server = await startTestServer({ apiDomain: 'k8s.io', flags: ['--authorization-mode=RBAC', `--token-auth-file=${join(dir, 'tokens.csv')}`] });
    writeFileSync(join(dir, 'ca.crt'), server.caCertPem);
    client = await clientFromFile(server.kubeconfig);
    await ensureDefaultServiceAccount(client);
    const { options } = await parseAgentOptions([
      `--clusterconfig=${server.kubeconfig}`, '--runtime=fake', '--api-domain=k8s.io', '--hostname-override=node-a', `--root-dir=${join(dir, 'root')}`,
      `--cert-dir=${join(dir, 'pki')}`, '--address=127.0.0.1', `--port=${await freePort()}`, '--read-only-port=0', '--healthz-port=0',
      '--node-ip=127.0.0.1', '--pod-cidr=10.200.0.0/24', '--anonymous-auth=false', '--authentication-token-webhook', '--authorization-mode=Webhook',
      `--client-ca-file=${join(dir, 'ca.crt')}`, '--node-status-update-frequency=1s',
    ]);
    agent = await runAgent(options, quiet, { relistMs: 200 });
    servers = await startAgentServers(options, agent.nodes, agent.client);
    web = await localHttp();
    const pods = client.resource(podsRef, 'default');
    await pods.create({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'talker', annotations: { [annotation('log')]: 'hello\nworld', [annotation('log-every')]: '200ms' } },
      spec: { nodeName: 'node-a', containers: [{ name: 'main', image: 'busybox', stdin: true }] },
    });
    await pods.create({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'host', labels: { app: 'host' } },
      spec: { nodeName: 'node-a', hostNetwork: true, containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: web.port }] }] },
    });
    await pods.create({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'restarter', annotations: { [annotation('log')]: 'started', [annotation('run-for')]: '300ms', [annotation('exit-code')]: '1' } },
      spec: { nodeName: 'node-a', containers: [{ name: 'main', image: 'busybox' }] },
    });
    await waitFor('pods Running with addresses', async () => {
      const list = await pods.list();
      return list.items.filter((p: any) => p.status?.phase === 'Running' && p.status.podIP).length >= 2;
    }, 60_000);
    // the viewer may read pods and nothing of their subresources
    await client.request({ method: 'POST', path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    } });
    await client.request({ method: 'POST', path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', body: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
    } });
  }, { timeout: 120_000 });

  const asAdmin = (method: string, path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    httpsRequest(`${server.url}${path}`, { method, cert: server.adminCertPem, key: server.adminKeyPem, ca: server.caCertPem }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject).end();
  });

  after(async () => {
    web?.server.close();
    await servers?.close();
    await agent?.stop();
    client?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const version of kubectlVersions) {
    describe(`kubectl ${version}`, () => {
      let k: KubectlEnv;
      before(async () => { k = await startKubectlEnv(version, 'k8s.io', server); });
      after(async () => { await k?.close(); });

      test('logs, with tail and timestamps; a refused option is a clear error', async () => {
        const all = await k.ok(['logs', 'talker']);
        assert.match(all, /^hello\nworld\n/);
        assert.equal(await k.ok(['logs', 'talker', '--tail=1']).then((s) => s.split('\n').filter(Boolean).length), 1);
        // the reference's node agent prints each time with nine fraction digits, whatever the runtime wrote
        assert.match(await k.ok(['logs', 'talker', '--timestamps', '--tail=1']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z \S/);
        const since = await k.ok(['logs', 'talker', '--since-time=2000-01-01T00:00:00Z', '--timestamps', '--limit-bytes=200']);
        assert.match(since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z hello$/m);
        const bad = await k.run(['logs', 'talker', '-c', 'nope']);
        assert.notEqual(bad.code, 0);
        assert.match(bad.stderr, /container nope is not valid for pod talker/);
      });

      test('logs -f: new lines arrive', async () => {
        const w = k.watch(['logs', '-f', 'talker', '--tail=1']);
        const first = await w.line(/main line \d+/, { timeoutMs: 30_000 });
        const n = Number(/line (\d+)/.exec(first)![1]);
        await w.line(new RegExp(`main line ${n + 2}$`), { timeoutMs: 30_000 });
        await w.stop();
      });

      test('logs --previous after a restart', async () => {
        await waitFor('a restart', async () => {
          const p = await client.resource(podsRef, 'default').get('restarter');
          return (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1;
        }, 60_000);
        assert.equal(await k.ok(['logs', 'restarter', '--previous']), 'started\n');
      });

      test('exec returns the exit code and both output streams', async () => {
        const r = await k.run(['exec', 'talker', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
        assert.equal(r.code, 3, r.stderr);
        assert.equal(r.stdout, 'out\n');
        assert.match(r.stderr, /^err\n/);
        assert.match(r.stderr, /command terminated with exit code 3/);
      });

      test('exec -i passes stdin', async () => {
        assert.equal(await k.ok(['exec', '-i', 'talker', '--', 'cat'], { input: 'through stdin\n' }), 'through stdin\n');
      });

      test('exec -it runs a shell on a terminal', { skip: existsSync('/usr/bin/script') ? false : 'script (util-linux) is not installed' }, async () => {
        const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
          const child = spawn('/usr/bin/script', ['-qec', `${kubectlPath(version)} --kubeconfig ${server.kubeconfig} exec -it talker -- sh`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
          let text = '';
          child.stdout.on('data', (d) => {
            text += d;
            if (/# $/.test(text) && !text.includes('tty works')) child.stdin.write('echo tty works\r');
            else if (/tty works\r\n.*# $/s.test(text)) child.stdin.write('exit 7\r');
          });
          child.on('close', (code) => resolve({ code, text }));
        });
        assert.match(out.text, /\r\ntty works\r\n/);
        assert.equal(out.code, 7, out.text);
      });

      test('attach -i reaches the main process', async () => {
        const r = await k.run(['attach', '-i', 'talker'], { input: 'attached line\n', timeoutMs: 60_000 });
        assert.match(r.stdout, /attached line/);
        assert.match(await k.ok(['logs', 'talker']), /attached line/);
      });

      test('attach without -i follows what the main process writes from then on', async () => {
        const child = spawn(kubectlPath(version), ['--kubeconfig', server.kubeconfig, 'attach', 'talker'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let text = '';
        child.stdout.on('data', (d) => (text += d));
        try {
          await waitFor('a line through attach', async () => /^main line \d+$/m.test(text), 60_000);
        } finally {
          child.kill();
        }
      });

      test('run -i --rm: the main process reads stdin to its end and exits, and the pod is deleted', async () => {
        const name = `once-${version.replace('.', '')}`;
        // stdinOnce (kubectl run -i sets it): the end of the attach's stdin ends the process, so kubectl returns
        const r = await k.run(['run', name, '-i', '--rm', '--restart=Never', '--image=busybox', `--overrides={"spec":{"nodeName":"node-a"}}`, '--', 'cat'],
          { input: 'read once\n', timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /read once/);
        assert.match(r.stdout, new RegExp(`pod "${name}" deleted`));
      });

      test('run -i: the command runs in the simulated shell on what stdin sends, and kubectl ends with its exit code', async () => {
        const name = `shell-${version.replace('.', '')}`;
        const overrides = `--overrides={"spec":{"nodeName":"node-a"}}`;
        // `sh` reads its commands from the attach's stdin: the pod fails with the shell's code, which kubectl returns
        const r = await k.run(['run', name, '-i', '--restart=Never', '--image=busybox', overrides, '--', 'sh'], { input: 'echo from stdin; exit 4\n', timeoutMs: 60_000 });
        assert.equal(r.code, 4, r.stderr);
        assert.match(r.stdout, /^from stdin$/m);
        assert.match(r.stderr, new RegExp(`pod default/${name} terminated \\(Error\\)`));
        const s = (await client.resource(podsRef, 'default').get(name)).status.containerStatuses[0];
        assert.equal(s.state.terminated.exitCode, 4);
        // `sh -c` reads nothing: its output reaches kubectl (through the logs once it has exited) and so does its code
        const once = await k.run(['run', `${name}-c`, '-i', '--rm', '--restart=Never', '--image=busybox', overrides, '--', 'sh', '-c', 'echo hi; exit 3'], { input: '', timeoutMs: 60_000 });
        assert.equal(once.code, 3, once.stderr);
        assert.match(once.stdout, /^hi$/m);
        assert.match(once.stdout, new RegExp(`pod "${name}-c" deleted`));
      });

      test('exec and attach to a container that has exited: container not found, as the kubelet says it', async () => {
        const name = `half-${version.replace('.', '')}`;
        const pods = client.resource(podsRef, 'default');
        await pods.create({
          apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations: { [`${annotation('run-for')}.done`]: '0s' } },
          spec: { nodeName: 'node-a', restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }, { name: 'done', image: 'busybox' }] },
        });
        await waitFor(`${name}'s container done exited`, async () =>
          (await pods.get(name)).status?.containerStatuses?.find((c: any) => c.name === 'done')?.state?.terminated !== undefined);
        for (const args of [['exec', name, '-c', 'done', '--', 'true'], ['attach', name, '-c', 'done']]) {
          const r = await k.run(args, { timeoutMs: 60_000 });
          assert.notEqual(r.code, 0);
          assert.match(r.stderr, /container not found \("done"\)/, `${args[0]}: ${r.stderr}`);
        }
      });

      test('debug -i adds an ephemeral container to a running pod, runs it and attaches to it', async () => {
        // a pod of its own: the other tests' commands would name the ephemeral container among talker's
        const target = `debuggee-${version.replace('.', '')}`;
        const pods = client.resource(podsRef, 'default');
        await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: target }, spec: { nodeName: 'node-a', containers: [{ name: 'main', image: 'busybox' }] } });
        await waitFor(`${target} running`, async () => (await pods.get(target)).status?.phase === 'Running');
        const name = 'debugger';
        // its shell runs what it reads; its stdin stays open (no stdinOnce), so the attach lasts until it exits
        const r = await k.run(['debug', '-i', target, '--image=busybox', '-c', name, '--', 'sh'], { input: 'echo debugging line; exit 6\n', timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^debugging line$/m);
        await waitFor('the ephemeral container terminated with its shell\'s code', async () =>
          (await pods.get(target)).status.ephemeralContainerStatuses?.find((c: any) => c.name === name)?.state.terminated?.exitCode === 6);
        const pod = await pods.get(target);
        const s = pod.status.ephemeralContainerStatuses.find((c: any) => c.name === name);
        assert.equal(s.ready, false);
        assert.equal(pod.status.phase, 'Running');
        assert.ok(pod.status.containerStatuses.every((c: any) => c.ready && c.restartCount === 0));
      });

      test('cp both ways', async () => {
        const local = join(dir, `up-${version}.bin`);
        const back = join(dir, `down-${version}.bin`);
        const data = randomBytes(300 * 1024);
        writeFileSync(local, data);
        await k.ok(['cp', local, `talker:/tmp/file-${version}.bin`]);
        assert.equal(await k.ok(['exec', 'talker', '--', 'ls', '/tmp']).then((s) => s.includes(`file-${version}.bin`)), true);
        await k.ok(['cp', `talker:/tmp/file-${version}.bin`, back]);
        assert.ok(readFileSync(back).equals(data));
      });

      test('port-forward to a host-network pod and to a simulated one', async () => {
        for (const [pod, target, expect] of [['host', web.port, /^served GET \/through$/], ['talker', 8080, /^simulated pod default\/talker, port 8080: GET \/through$/]] as const) {
          const w = k.watch(['port-forward', `pod/${pod}`, `0:${target}`]);
          const line = await w.line(/Forwarding from 127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
          const port = /127\.0\.0\.1:(\d+)/.exec(line)![1];
          const r = await fetchText(`http://127.0.0.1:${port}/through`);
          assert.equal(r.status, 200);
          assert.match(r.body.trim(), expect);
          await w.stop();
        }
      });

      test('proxy: kubectl proxy, pods/proxy and nodes/proxy', async () => {
        assert.match(await k.ok(['get', '--raw', `/api/v1/namespaces/default/pods/host:${web.port}/proxy/some/path?x=1`]), /^served GET \/some\/path\?x=1/);
        const summary = JSON.parse(await k.ok(['get', '--raw', '/api/v1/nodes/node-a/proxy/stats/summary']));
        assert.equal(summary.node.nodeName, 'node-a');
        const w = k.watch(['proxy', '--port=0']);
        const line = await w.line(/Starting to serve on 127\.0\.0\.1:\d+/, { timeoutMs: 60_000 });
        const port = /:(\d+)/.exec(line)![1];
        const r = await fetchText(`http://127.0.0.1:${port}/api/v1/namespaces/default/pods/host:${web.port}/proxy/via-kubectl-proxy`);
        assert.equal(r.body, 'served GET /via-kubectl-proxy\n');
        await w.stop();
      });

      test('authorization per subresource: get pods does not give exec or logs', async () => {
        const config = writeViewerConfig(server, dir);
        const viewer = (args: string[]) => new Promise<{ code: number; stderr: string; stdout: string }>((resolve) => {
          execFile(kubectlPath(version), ['--kubeconfig', config, '--cache-dir', join(dir, `cache-${version}`), ...args], { env: { HOME: dir, PATH: process.env.PATH ?? '' } }, (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }));
        });
        assert.equal((await viewer(['get', 'pod', 'talker'])).code, 0);
        const exec = await viewer(['exec', 'talker', '--', 'echo', 'no']);
        assert.notEqual(exec.code, 0);
        assert.match(exec.stderr, /forbidden: User "viewer" cannot (create|get) resource "pods\/exec"/);
        const logs = await viewer(['logs', 'talker']);
        assert.match(logs.stderr, /forbidden: User "viewer" cannot get resource "pods\/log"/);
      });
    });
  }

  test('python3-kubernetes: exec (output and exit code, a terminal), attach, followed logs and port-forward over WebSocket', { skip: existsSync(python) ? false : 'Debian python3 is not installed' }, async () => {
    const program = `
import sys
from kubernetes import client, config
from kubernetes.stream import stream, portforward
config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
out = stream(core.connect_get_namespaced_pod_exec, "talker", "default", command=["sh", "-c", "echo from python"], stderr=True, stdin=False, stdout=True, tty=False)
print("exec:" + out.strip())
resp = stream(core.connect_get_namespaced_pod_exec, "talker", "default", command=["sh", "-c", "exit 5"], stderr=True, stdin=False, stdout=True, tty=False, _preload_content=False)
resp.run_forever(timeout=60)
print("returncode:" + str(resp.returncode))
pf = portforward(core.connect_get_namespaced_pod_portforward, "host", "default", ports=sys.argv[2])
s = pf.socket(int(sys.argv[2]))
s.setblocking(True)
s.sendall(b"GET /py HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n")
data = b""
while True:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print("portforward:" + data.decode().split("\\r\\n\\r\\n", 1)[1].strip())
# a terminal: the window size on the resize channel, a line typed, the shell's exit code
tty = stream(core.connect_get_namespaced_pod_exec, "talker", "default", command=["sh"], stdin=True, stdout=True, stderr=False, tty=True, _preload_content=False)
tty.write_channel(4, '{"Width": 100, "Height": 40}')
tty.write_stdin("echo on-tty\\r")
seen = ""
while "on-tty\\r\\n" not in seen and tty.is_open():
    tty.update(timeout=1)
    seen += tty.read_stdout() if tty.peek_stdout() else ""
tty.write_stdin("exit 4\\r")
tty.run_forever(timeout=30)
print("tty:" + str("on-tty\\r\\n" in seen) + ":" + str(tty.returncode))
# attach: a line to the main process's stdin comes back on its stdout
attached = stream(core.connect_get_namespaced_pod_attach, "talker", "default", stdin=True, stdout=True, stderr=True, tty=False, _preload_content=False)
attached.write_stdin("attached from python\\n")
seen = ""
while "attached from python" not in seen and attached.is_open():
    attached.update(timeout=1)
    seen += attached.read_stdout() if attached.peek_stdout() else ""
attached.close()
print("attach:" + str("attached from python" in seen))
# logs followed as a stream, as log shippers read them
followed = core.read_namespaced_pod_log("talker", "default", follow=True, tail_lines=1, _preload_content=False)
lines = []
for chunk in followed.stream():
    lines += [l for l in chunk.decode().split("\\n") if l]
    if len(lines) >= 3:
        break
followed.close()
print("follow:" + str(len(lines)))
`;
    const out = await new Promise<string>((resolve, reject) => execFile(python, ['-c', program, server.kubeconfig, String(web.port)], { timeout: 120_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))));
    assert.match(out, /^exec:from python$/m);
    assert.match(out, /^returncode:5$/m);
    assert.match(out, /^portforward:served GET \/py$/m);
    assert.match(out, /^tty:True:4$/m);
    assert.match(out, /^attach:True$/m);
    assert.match(out, /^follow:3$/m);
  });

  test('client-node: Exec, Attach, Log and PortForward', async () => {
    const { KubeConfig, Exec, Attach, Log, PortForward } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(server.kubeconfig);
    const sink = () => { let text = ''; const stream = new Writable({ write(c, _e, cb) { text += c; cb(); } }); return { stream, text: () => text }; };

    const out = sink();
    const status: any = await new Promise((resolve, reject) => {
      new Exec(kc).exec('default', 'talker', 'main', ['sh', '-c', 'echo from node; exit 2'], out.stream, null, null, false, resolve).catch(reject);
    });
    assert.equal(out.text(), 'from node\n');
    assert.equal(status.status, 'Failure');
    assert.equal(status.details.causes[0].message, '2');

    const attached = sink();
    const stdin = new PassThrough();
    const ws: any = await new Attach(kc).attach('default', 'talker', 'main', attached.stream, null, stdin, false);
    stdin.write('attached via client-node\n');
    await waitFor('the echo', () => attached.text().includes('attached via client-node'), 30_000);
    ws.close();

    const logged = sink();
    await new Promise<void>((resolve, reject) => {
      logged.stream.on('finish', resolve);
      new Log(kc).log('default', 'talker', 'main', logged.stream, { tailLines: 1 }).catch(reject);
    });
    assert.match(logged.text(), /^main line \d+\n$|^attached via client-node\n$/);

    const forwarder = new PortForward(kc);
    const local = createNetServer((socket) => { forwarder.portForward('default', 'host', [web.port], socket, null, socket).catch(() => socket.destroy()); });
    await new Promise<void>((r) => local.listen(0, '127.0.0.1', r));
    try {
      const r = await fetchText(`http://127.0.0.1:${(local.address() as AddressInfo).port}/from-client-node`);
      assert.equal(r.body, 'served GET /from-client-node\n');
    } finally {
      local.close();
    }
  });

  test('services/proxy reaches a pod its selector picks', async () => {
    await client.request({ method: 'POST', path: '/api/v1/namespaces/default/services', body: {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' },
      spec: { selector: { app: 'host' }, ports: [{ name: 'http', port: 80, targetPort: web.port }] },
    } });
    const r = await asAdmin('GET', '/api/v1/namespaces/default/services/web:http/proxy/by-service?q=1');
    assert.equal(r.body, 'served GET /by-service?q=1\n');
  });

  test('an exec that does not upgrade is refused', async () => {
    const r = await asAdmin('POST', '/api/v1/namespaces/default/pods/talker/exec?command=true&stdout=1');
    assert.equal(r.status, 400);
    assert.match(r.body, /Upgrade request required/);
  });

  test('the agent refuses a token without nodes/proxy rights and accepts the API server\'s certificate', async () => {
    const node = await client.resource(nodesRef).get('node-a');
    const port = node.status.daemonEndpoints.kubeletEndpoint.Port;
    const r = await new Promise<number>((resolve, reject) => {
      import('node:https').then(({ get }) => get({ host: '127.0.0.1', port, path: '/pods', headers: { authorization: 'Bearer viewer-token' }, rejectUnauthorized: false }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject));
    });
    assert.equal(r, 403);
    // the API server's own certificate: nodes/proxy works (above), and so does the agent's list of pods through it
    assert.match(await client.request({ method: 'GET', path: '/api/v1/nodes/node-a/proxy/pods' }).then((x: any) => x.kind), /PodList/);
  });
});

/** a client configuration of the server's address with no credentials, for --token */
function writeViewerConfig(server: TestServer, dir: string): string {
  const path = join(dir, 'viewer.kubeconfig');
  if (!existsSync(path)) {
    const ca = Buffer.from(server.caCertPem).toString('base64');
    writeFileSync(path, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${server.url}", certificate-authority-data: ${ca}}\nusers:\n- name: v\n  user: {token: viewer-token}\ncontexts:\n- name: c\n  context: {cluster: c, user: v}\ncurrent-context: c\n`);
  }
  return path;
}
