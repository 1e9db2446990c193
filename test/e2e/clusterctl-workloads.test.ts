// clusterctl beside kubectl: workloads and the rest (rollout, certificates, top, pod streams, config files, completion).
// See clusterctl-support.ts for how the three environments compare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { parse } from 'yaml';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import { clusterctlPath, comparedSuite, out, rowsWithoutAge, runBare, type Env } from './clusterctl-support.js';
import { namespaceManifest, tableRows, type Manifest, type Run } from './support.js';

comparedSuite('clusterctl does what kubectl does: workloads and the rest', async (e) => {
  await e.ok(['create', '-f', e.manifest('ns.yaml', [namespaceManifest('e2e')])]);
  await e.ok(['create', 'deployment', 'web', '--image=nginx:1.25', '-n', 'e2e']);
}, ({ same, envs, kubectl, clusterctls, setup }) => {
  test('rollout restart, status, history and undo, with the test standing in for the Deployment controller', async () => {
    await same(['rollout', 'restart', 'deployment/web', '-n', 'e2e'], out);
    await same(['rollout', 'status', 'deployment/web', '-n', 'e2e', '--watch=false'], out);
    // what the controller would do: two ReplicaSets with revisions, and a finished status
    await Promise.all(envs().map(async (e) => {
      const d = e.server.client.resource({ group: 'apps', version: 'v1', resource: 'deployments' }, 'e2e');
      const rs = e.server.client.resource({ group: 'apps', version: 'v1', resource: 'replicasets' }, 'e2e');
      const dep = await d.get('web');
      const revision = `deployment.${e.server.names.labelDomain}/revision`;
      const template = (image: string, hash: string) => ({ ...dep.spec.template, metadata: { ...dep.spec.template.metadata, labels: { app: 'web', 'pod-template-hash': hash } }, spec: { ...dep.spec.template.spec, containers: [{ ...dep.spec.template.spec.containers[0], image }] } });
      for (const [n, image, hash] of [[1, 'nginx:1.24', 'aaa'], [2, 'nginx:1.25', 'bbb']] as const) {
        await rs.create({
          metadata: { name: `web-${hash}`, labels: { app: 'web', 'pod-template-hash': hash }, annotations: { [revision]: String(n) }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: dep.metadata.uid, controller: true }] },
          spec: { replicas: 0, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } }, template: template(image, hash) },
        });
      }
      await d.patch('web', { metadata: { annotations: { [revision]: '2' } } }, 'merge');
      const now = await d.get('web');
      await d.status.patch('web', { status: { observedGeneration: now.metadata.generation, replicas: 3, updatedReplicas: 3, availableReplicas: 3, readyReplicas: 3 } });
    }));
    await same(['rollout', 'status', 'deployment/web', '-n', 'e2e'], out);
    await same(['rollout', 'history', 'deployment/web', '-n', 'e2e'], (r) => rowsWithoutAge(r.stdout));
    await same(['rollout', 'undo', 'deployment/web', '-n', 'e2e', '--to-revision=1'], out);
    await same(['get', 'deploy', 'web', '-n', 'e2e', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'], out);
    await same(['rollout', 'pause', 'deployment/web', '-n', 'e2e'], out);
    await same(['rollout', 'resume', 'deployment/web', '-n', 'e2e'], out);
  });

  test('certificate approve and deny', async () => {
    const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=someone', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } });
    await Promise.all(envs().map((e) => Promise.all(['approve-me', 'deny-me'].map((name) => e.ok(['create', '-f', e.manifest(`${name}.yaml`, [{
      apiVersion: `${e.server.names.group('certificates')}/v1`, kind: 'CertificateSigningRequest', metadata: { name },
      spec: { request: Buffer.from(csr.toString('pem')).toString('base64'), signerName: `${e.server.names.labelDomain}/kube-apiserver-client`, usages: ['client auth'] },
    }])])))));
    await same(['certificate', 'approve', 'approve-me'], out);
    await same(['certificate', 'deny', 'deny-me'], out);
    await same(['get', 'csr', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[0].type}{" "}{end}'], out);
    await same(['certificate', 'deny', 'approve-me'], (r) => ({ code: r.code }));
  });

  test('top: the metrics API is not served (it comes with aggregation, issue 16): the same clear error', async () => {
    await same(['top', 'pod'], (r) => ({ code: r.code, stderr: r.stderr.trim() }));
    await same(['top', 'node'], (r) => ({ code: r.code, stderr: r.stderr.trim() }));
  });

  // The pod has no node, so the server can reach no agent: whatever it answers (a refusal today, the agent's answer once
  // node streams are served), clusterctl reports it as kubectl does, after sending the reference's requests.
  test('logs, exec, port-forward and cp send the reference\'s requests and report the server\'s answer as kubectl does', async () => {
    await setup([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'e2e' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as Manifest]);
    await Promise.all(envs().map((e) => e.server.client.resource({ group: '', version: 'v1', resource: 'pods' }, 'e2e').status.patch('p', { status: { phase: 'Running' } })));
    const firstLine = (r: Run) => ({ code: r.code, error: r.stderr.split('\n').find((l) => l.startsWith('Error from server')) ?? '' });
    for (const e of clusterctls()) {
      const metricsBefore = await e.server.client.request({ method: 'GET', path: '/metrics' });
      const [logs, kubectlLogs] = await Promise.all([e.run(['logs', 'p', '-n', 'e2e', '--tail=5']), kubectl().run(['logs', 'p', '-n', 'e2e', '--tail=5'])]);
      // a pod with no node has an empty log, as the reference answers
      assert.deepEqual([logs.code, logs.stdout], [0, '']);
      assert.deepEqual([logs.code, logs.stdout, firstLine(logs)], [kubectlLogs.code, kubectlLogs.stdout, firstLine(kubectlLogs)]);
      const exec = await e.run(['exec', 'p', '-n', 'e2e', '--', 'date']);
      assert.equal(exec.code, 1);
      assert.match(exec.stderr, /^Error from server \(\w+\): /m);
      const cp = await e.run(['cp', 'e2e/p:/etc/hostname', join(tmpdir(), 'never-written')]);
      assert.equal(cp.code, 1);
      // the requests reached the subresources the reference uses, as GET for log and as upgrades for exec
      const metrics = await e.server.client.request({ method: 'GET', path: '/metrics' });
      const count = (text: string, verb: string, sub: string) => text.split('\n')
        .filter((l) => l.startsWith('apiserver_request_total{') && l.includes(`verb="${verb}"`) && l.includes('resource="pods"') && l.includes(`subresource="${sub}"`))
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      assert.ok(count(metrics, 'GET', 'log') > count(metricsBefore, 'GET', 'log'), 'GET pods/log');
      assert.ok(count(metrics, 'GET', 'exec') + count(metrics, 'CONNECT', 'exec') + count(metrics, 'POST', 'exec') > count(metricsBefore, 'GET', 'exec') + count(metricsBefore, 'CONNECT', 'exec') + count(metricsBefore, 'POST', 'exec'), 'pods/exec');
      // port-forward listens, and a connection through it ends with the server's answer
      const pf = e.watch(['port-forward', 'pod/p', ':8080', '-n', 'e2e']);
      const line = await pf.line(/^Forwarding from 127\.0\.0\.1:\d+ -> 8080/);
      const port = Number(/:(\d+) ->/.exec(line)![1]);
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('close', () => resolve()).on('error', () => resolve());
      });
      await pf.stop();
    }
  });

  test('config: contexts and KUBECONFIG merging, the same files written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'config-e2e-'));
    try {
      const file = (name: string, doc: object) => { const p = join(dir, name); writeFileSync(p, JSON.stringify(doc)); return p; };
      const cluster = (name: string, server: string) => ({ name, cluster: { server } });
      const base = (label: string) => ({
        a: file(`${label}-a`, { apiVersion: 'v1', kind: 'Config', clusters: [cluster('one', 'https://one.test')], users: [{ name: 'u1', user: { token: 't1' } }], contexts: [{ name: 'ctx-a', context: { cluster: 'one', user: 'u1', namespace: 'ns-a' } }], 'current-context': 'ctx-a' }),
        b: file(`${label}-b`, { apiVersion: 'v1', kind: 'Config', clusters: [cluster('one', 'https://shadowed.test'), cluster('two', 'https://two.test')], users: [{ name: 'u2', user: { token: 't2' } }], contexts: [{ name: 'ctx-b', context: { cluster: 'two', user: 'u2' } }], 'current-context': 'ctx-b' }),
      });
      const files = new Map(envs().map((e) => [e, base(e.label.replace(/\W+/g, '-'))]));
      const cfg = (args: string[]) => (e: Env) => ['config', ...args];
      const env = (e: Env) => ({ KUBECONFIG: `${files.get(e)!.a}:${files.get(e)!.b}` });
      const run = async (args: string[], view: (r: Run) => unknown = out) => {
        const results = await Promise.all(envs().map(async (e) => {
          // config commands take no --kubeconfig here: the files come from KUBECONFIG
          const r = await runBare(e, cfg(args)(e), env(e));
          return view(r);
        }));
        for (let i = 1; i < results.length; i++) assert.deepEqual(results[i], results[0], `${envs()[i]!.label}: config ${args.join(' ')}`);
      };
      await run(['current-context']);
      await run(['get-contexts'], (r) => tableRows((r as Run).stdout));
      await run(['view', '-o', 'jsonpath={.clusters[*].cluster.server}']);
      await run(['view', '--minify', '-o', 'jsonpath={.contexts[0].name} {.users[0].user.token}']);
      await run(['view', '--minify', '--raw', '-o', 'jsonpath={.users[0].user.token}']);
      await run(['use-context', 'ctx-b']);
      await run(['current-context']);
      await run(['set-context', '--current', '--namespace=changed']);
      await run(['set-context', 'ctx-new', '--cluster=two', '--user=u1']);
      await run(['get-contexts', '-o', 'name']);
      await run(['rename-context', 'ctx-new', 'ctx-renamed']);
      await run(['delete-context', 'ctx-renamed'], (r) => ({ code: (r as Run).code }));
      await run(['get-clusters'], (r) => (r as Run).stdout.split('\n').sort());
      // where each change went: the same file, with the same content
      for (const e of clusterctls()) {
        for (const which of ['a', 'b'] as const) {
          const mine = parse(readFileSync(files.get(e)![which], 'utf8'));
          const theirs = parse(readFileSync(files.get(kubectl())![which], 'utf8'));
          assert.deepEqual({ ...mine, preferences: undefined }, { ...theirs, preferences: undefined }, `${e.label}: file ${which}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('completion: a bash script that loads and completes commands', async () => {
    const script = await envs()[1]!.ok(['completion', 'bash']);
    const dir = mkdtempSync(join(tmpdir(), 'completion-'));
    const file = join(dir, 'c.bash');
    writeFileSync(file, script);
    const r = await new Promise<Run>((resolve) => execFile('bash', ['-c', `source ${file}; COMP_WORDS=(clusterctl ro); COMP_CWORD=1; _clusterctl; echo "\${COMPREPLY[@]}"; COMP_WORDS=(clusterctl rollout st); COMP_CWORD=2; _clusterctl; echo "\${COMPREPLY[@]}"; complete -p clusterctl`], (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr })));
    rmSync(dir, { recursive: true, force: true });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['rollout', 'status', 'complete -o default -F _clusterctl clusterctl']);
    assert.ok(existsSync(clusterctlPath));
  });
}, ['deployment']);  // the test stands in for the Deployment controller
