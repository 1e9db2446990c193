// clusterctl against a server of the default domain does what unmodified kubectl does against a server of the
// reference's domain: each everyday command runs three ways (kubectl 1.32 on a `k8s.io` server, clusterctl on a
// `cluster.io` server, clusterctl on a `k8s.io` server) and the outputs, with the domain's names and the clock's
// values taken out, must be the same. Commands that need parts not served yet (node streams, metrics, the
// Deployment controller) are checked for the request they send and the server's clear answer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, chmodSync, mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { parse } from 'yaml';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import {
  clusterctlPath, namespaceManifest, startClusterctlEnv, startKubectlEnv, tableRows,
  type KubectlEnv, type Manifest, type Run,
} from './support.js';

type Env = KubectlEnv & { domain: 'cluster.io' | 'k8s.io'; label: string };

/** the domain's names made neutral, so outputs of the two domains compare */
function neutral(text: string): string {
  return text
    .replace(/\.(cluster\.io|k8s\.io)\b/g, '.<domain>')
    .replace(/\b(cluster\.io|kubernetes\.io)\//g, '<labels>/')
    .replace(/\b(cluster|kube)-(system|public|node-lease|root-ca\.crt|api-access)/g, '<vendor>-$2')
    .replace(/application\/vnd\.(cluster|kubernetes)\.protobuf/g, '<protobuf>');
}

/** table rows without the AGE column, whose values depend on the clock */
function rowsWithoutAge(stdout: string): string[][] {
  const rows = tableRows(neutral(stdout));
  const age = rows[0]?.indexOf('AGE') ?? -1;
  return age < 0 ? rows : rows.map((r) => r.filter((_, i) => i !== age));
}

/** an object without what the server assigns anew each time, and with neutral names */
function stable(obj: any): any {
  const clean = (o: any) => {
    if (!o?.metadata) return o;
    const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields: _m, ...metadata } = o.metadata;
    return { ...o, metadata };
  };
  const cleaned = obj?.items ? { ...obj, items: obj.items.map(clean) } : clean(obj);
  return JSON.parse(neutral(JSON.stringify(cleaned)));
}

describe('clusterctl does what kubectl does', { concurrency: 1, timeout: 1_800_000 }, () => {
  let envs: Env[];
  let kubectl: Env;

  before(async () => {
    const [k, c, r] = await Promise.all([startKubectlEnv('1.32', 'k8s.io'), startClusterctlEnv('cluster.io'), startClusterctlEnv('k8s.io')]);
    kubectl = Object.assign(k, { domain: 'k8s.io' as const, label: 'kubectl 1.32 (k8s.io)' });
    envs = [kubectl, Object.assign(c, { domain: 'cluster.io' as const, label: 'clusterctl (cluster.io)' }), Object.assign(r, { domain: 'k8s.io' as const, label: 'clusterctl (k8s.io)' })];
  });
  after(async () => { await Promise.all((envs ?? []).map((e) => e.close())); });

  const clusterctls = () => envs.slice(1);

  /**
   * Runs a command in every environment (kubectl may need other arguments) and checks that the views of the
   * results agree with kubectl's; returns them, kubectl's first.
   */
  async function same<T>(args: string[] | ((e: Env) => string[]), view: (r: Run, e: Env) => T, opts: { input?: string; env?: (e: Env) => Record<string, string> } = {}): Promise<T[]> {
    const results = await Promise.all(envs.map(async (e) => {
      const r = await e.run(typeof args === 'function' ? args(e) : args, { input: opts.input, env: opts.env?.(e) });
      return view(r, e);
    }));
    for (let i = 1; i < envs.length; i++) assert.deepEqual(results[i], results[0], `${envs[i]!.label} differs from ${kubectl.label}`);
    return results;
  }
  const out = (r: Run) => ({ code: r.code, stdout: neutral(r.stdout).trim() });
  const lines = (r: Run) => ({ code: r.code, stdout: neutral(r.stdout).trim().split('\n'), stderr: neutral(r.stderr).trim() });
  const setup = (objects: Manifest[]) => Promise.all(envs.map((e) => e.ok(['create', '-f', e.manifest(`setup-${Math.random()}.yaml`, objects)])));

  test('create namespace, create configmap and get them as tables, JSON, YAML, names, JSONPath and custom columns', async () => {
    await same(['create', 'namespace', 'e2e'], out);
    await same(['create', 'configmap', 'cm1', '-n', 'e2e', '--from-literal=a=1', '--from-literal=b=two'], out);
    await same(['create', 'configmap', 'cm2', '-n', 'e2e', '--from-literal=a=2'], out);
    await same(['get', 'configmaps', '-n', 'e2e'], (r) => ({ code: r.code, rows: rowsWithoutAge(r.stdout) }));
    await same(['get', 'cm', 'cm1', '-n', 'e2e', '-o', 'json'], (r) => stable(JSON.parse(r.stdout)));
    await same(['get', 'cm', '-n', 'e2e', '-o', 'yaml'], (r) => stable(parse(r.stdout)));
    await same(['get', 'cm', '-n', 'e2e', '-o', 'name'], out);
    await same(['get', 'cm', '-n', 'e2e', '-o', 'jsonpath={.items[*].metadata.name}'], out);
    await same(['get', 'cm', '-n', 'e2e', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.data.a}{"\\n"}{end}'], out);
    await same(['get', 'cm', '-n', 'e2e', '-o', 'custom-columns=NAME:.metadata.name,A:.data.a,MISSING:.data.zzz'], out);
    await same(['get', 'cm', 'cm1', 'cm2', '-n', 'e2e', '-o', 'wide'], (r) => rowsWithoutAge(r.stdout));
    await same(['get', 'cm/cm1', '-n', 'e2e', '--no-headers', '-o', 'custom-columns=N:.metadata.name'], out);
    await same(['get', 'namespaces', 'e2e', 'default'], (r) => rowsWithoutAge(r.stdout));
  });

  test('labels, annotations, selectors, --show-labels, -L, -A, --sort-by, --chunk-size', async () => {
    await same(['label', 'cm', 'cm1', 'app=web', 'tier=front', '-n', 'e2e'], out);
    await same(['label', 'cm', 'cm1', 'app=api', '-n', 'e2e'], lines);
    await same(['label', 'cm', 'cm1', 'app=api', '--overwrite', '-n', 'e2e'], out);
    await same(['label', 'cm', 'cm1', 'tier-', '-n', 'e2e'], out);
    await same(['annotate', 'cm', 'cm2', 'note=hello', '-n', 'e2e'], out);
    await same(['get', 'cm', '-n', 'e2e', '--show-labels'], (r) => rowsWithoutAge(r.stdout));
    await same(['get', 'cm', '-n', 'e2e', '-L', 'app'], (r) => rowsWithoutAge(r.stdout));
    await same(['get', 'cm', '-n', 'e2e', '-l', 'app=api', '-o', 'name'], out);
    await same(['get', 'cm', '-n', 'e2e', '-l', 'app=none'], lines);
    await same(['get', 'cm', '-A', '-l', 'app'], (r) => rowsWithoutAge(r.stdout));
    await same(['get', 'cm', '-n', 'e2e', '--sort-by=.data.a', '-o', 'name'], out);
    await same(['get', 'cm', '-n', 'e2e', '--chunk-size=1', '-o', 'name'], out);
    await same(['get', 'cm', '-n', 'e2e', '--field-selector', 'metadata.name=cm2', '-o', 'name'], out);
    await same(['get', 'cm', 'nope', '-n', 'e2e'], lines);
    await same(['get', 'cm', 'nope', '-n', 'e2e', '--ignore-not-found'], lines);
    await same(['get', 'nosuchkind'], (r) => ({ code: r.code }));
  });

  test('apply: server-side, client-side (create, configure, unchanged), and diff', async () => {
    const doc = (data: Record<string, string>): Manifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'e2e' }, data });
    const file = (e: Env, data: Record<string, string>) => e.manifest(`applied-${Object.keys(data).join('')}.yaml`, [doc(data)]);
    // kubectl's default is client-side apply; clusterctl's is server-side
    const ssa = (e: Env, f: string) => (e === kubectl ? ['apply', '--server-side', '-f', f] : ['apply', '-f', f]);
    await same((e) => ssa(e, file(e, { a: '1' })), out);
    await same((e) => ssa(e, file(e, { a: '1', b: '2' })), out);
    await same((e) => ['get', 'cm', 'applied', '-n', 'e2e', '-o', 'jsonpath={.data}'], out);
    await same((e) => ['get', 'cm', 'applied', '-n', 'e2e', '-o', 'jsonpath={.metadata.managedFields[*].operation}'], out);
    const csa = (e: Env, f: string) => (e === kubectl ? ['apply', '-f', f] : ['apply', '--server-side=false', '-f', f]);
    const csaDoc = (data: Record<string, string>): Manifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa', namespace: 'e2e' }, data });
    const csaFile = (e: Env, data: Record<string, string>) => e.manifest(`csa-${Object.keys(data).join('')}.yaml`, [csaDoc(data)]);
    await same((e) => csa(e, csaFile(e, { a: '1', b: '2' })), out);
    await same((e) => csa(e, csaFile(e, { a: '1', b: '2' })), out);
    await same((e) => csa(e, csaFile(e, { a: '3' })), out);
    await same(['get', 'cm', 'csa', '-n', 'e2e', '-o', 'jsonpath={.data}'], out);
    // diff: nothing to change is exit 0; a change is exit 1 with the changed lines
    const diffArgs = (e: Env, f: string) => (e === kubectl ? ['diff', '--server-side', '-f', f] : ['diff', '-f', f]);
    await same((e) => diffArgs(e, file(e, { a: '1', b: '2' })), (r) => ({ code: r.code, stdout: r.stdout }));
    await same((e) => diffArgs(e, file(e, { a: '1', b: '3' })), (r) => ({
      code: r.code, changed: r.stdout.split('\n').filter((l) => /^[-+] /.test(l)),
    }));
  });

  test('patch (strategic, merge, JSON), replace, edit, delete', async () => {
    await same(['patch', 'cm', 'cm2', '-n', 'e2e', '-p', '{"data":{"b":"x"}}'], out);
    await same(['patch', 'cm', 'cm2', '-n', 'e2e', '--type', 'merge', '-p', '{"data":{"c":"y"}}'], out);
    await same(['patch', 'cm', 'cm2', '-n', 'e2e', '--type', 'json', '-p', '[{"op":"remove","path":"/data/c"}]'], out);
    await same(['patch', 'cm', 'cm2', '-n', 'e2e', '-p', '{"data":{"b":"x"}}'], out);
    await same(['patch', 'cm', 'cm2', '-n', 'e2e', '--type', 'json', '-p', '[{"op":"test","path":"/data/b","value":"no"}]'], (r) => ({ code: r.code }));
    await same(['get', 'cm', 'cm2', '-n', 'e2e', '-o', 'jsonpath={.data}'], out);
    await same((e) => ['replace', '-f', e.manifest('replace.yaml', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2', namespace: 'e2e' }, data: { only: 'this' } }])], out);
    await same(['get', 'cm', 'cm2', '-n', 'e2e', '-o', 'jsonpath={.data}'], out);
    // an editor that changes a value in the file it is given
    const editor = join(mkdtempSync(join(tmpdir(), 'editor-')), 'edit.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/only: this/only: edited/" "$1"\n');
    chmodSync(editor, 0o755);
    await same(['edit', 'cm', 'cm2', '-n', 'e2e'], out, { env: () => ({ EDITOR: editor, KUBE_EDITOR: editor }) });
    await same(['get', 'cm', 'cm2', '-n', 'e2e', '-o', 'jsonpath={.data.only}'], out);
    await same(['delete', 'cm', 'cm2', '-n', 'e2e'], out);
    await same(['delete', 'cm', 'cm2', '-n', 'e2e'], lines);
    await same(['delete', 'cm', 'cm2', '-n', 'e2e', '--ignore-not-found'], out);
    await same(['delete', 'cm', '-n', 'e2e', '-l', 'app=api'], out);
    await same(['delete', 'cm', '-n', 'e2e', '--all', '--dry-run=server'], (r) => ({ code: r.code, lines: neutral(r.stdout).trim().split('\n').sort() }));
  });

  test('the generators of create, as dry-run objects', async () => {
    const generators: string[][] = [
      ['create', 'secret', 'generic', 's1', '--from-literal=user=admin', '--from-literal=pass=x'],
      ['create', 'configmap', 'c1', '--from-literal=a=1', '--append-hash'],
      ['create', 'secret', 'docker-registry', 'reg', '--docker-username=u', '--docker-password=p', '--docker-server=registry.example'],
      ['create', 'serviceaccount', 'bot'],
      ['create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2', '--port=80'],
      ['create', 'deployment', 'multi', '--image=nginx', '--image=busybox:1.36'],
      ['create', 'job', 'once', '--image=busybox', '--', 'echo', 'hi'],
      ['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 1 * * *'],
      ['create', 'role', 'reader', '--verb=get,list', '--resource=pods,deployments.apps'],
      ['create', 'clusterrole', 'watcher', '--verb=watch', '--resource=configmaps', '--resource-name=cm1'],
      ['create', 'rolebinding', 'rb', '--role=reader', '--user=alice', '--group=devs', '--serviceaccount=e2e:bot'],
      ['create', 'clusterrolebinding', 'crb', '--clusterrole=watcher', '--user=bob'],
      ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'],
      ['create', 'service', 'nodeport', 'np', '--tcp=443:8443'],
      ['create', 'service', 'externalname', 'ext', '--external-name=db.example'],
      ['create', 'quota', 'q', '--hard=pods=10,cpu=2'],
      ['create', 'priorityclass', 'high', '--value=1000', '--description=important'],
      ['create', 'poddisruptionbudget', 'pdb', '--selector=app=web', '--min-available=1'],
      ['create', 'ingress', 'ing', '--class=default', '--rule=example.test/path*=svc:80', '--rule=other.test/=svc:http,tls=cert'],
    ];
    // every generator is tried; the differences are reported together
    const failures: string[] = [];
    for (const g of generators) {
      // the command's own arguments after `--` stay last
      const dash = g.indexOf('--');
      const args = dash < 0 ? [...g, '-n', 'e2e', '--dry-run=client', '-o', 'json'] : [...g.slice(0, dash), '-n', 'e2e', '--dry-run=client', '-o', 'json', ...g.slice(dash)];
      await same(args, (r) => ({ code: r.code, object: r.code === 0 ? stable(JSON.parse(r.stdout)) : neutral(r.stderr) }))
        .catch((e: Error) => failures.push(`${g.join(' ')}: ${e.message}`));
    }
    assert.deepEqual(failures, []);
    await same(['create', 'serviceaccount', 'bot', '-n', 'e2e'], out);
    await same(['create', 'token', 'bot', '-n', 'e2e'], (r) => ({ code: r.code, parts: r.stdout.trim().split('.').length }));
    await same(['create', 'deployment', 'web', '--image=nginx:1.25', '-n', 'e2e'], out);
  });

  test('scale, describe, wait, api-resources, api-versions, explain, version', async () => {
    await same(['scale', 'deployment', 'web', '--replicas=3', '-n', 'e2e'], out);
    await same(['get', 'deploy', 'web', '-n', 'e2e', '-o', 'jsonpath={.spec.replicas}'], out);
    await same(['scale', 'deployment', 'web', '--replicas=4', '--current-replicas=1', '-n', 'e2e'], (r) => ({ code: r.code }));
    await same(['create', 'configmap', 'described', '-n', 'e2e', '--from-literal=key=value'], out);
    await same(['describe', 'cm', 'described', '-n', 'e2e'], (r) => neutral(r.stdout).split('\n').filter((l) => l.trim()).map((l) => l.replace(/\s+/g, ' ')));
    await same(['wait', '--for=jsonpath={.data.key}=value', 'cm/described', '-n', 'e2e', '--timeout=10s'], out);
    await same(['wait', '--for=jsonpath={.data.key}=other', 'cm/described', '-n', 'e2e', '--timeout=1s'], (r) => ({ code: r.code, stdout: r.stdout }));
    await Promise.all(envs.map((e) => e.ok(['delete', 'cm', 'described', '-n', 'e2e', '--wait=false'])));
    await same(['wait', '--for=delete', 'cm/described', '-n', 'e2e', '--timeout=10s'], (r) => ({ code: r.code }));
    await same(['api-resources', '--no-headers'], (r) => neutral(r.stdout).trim().split('\n').map((l) => l.trim().split(/\s+/)[0]).sort());
    await same(['api-resources', '--api-group=apps', '-o', 'name'], out);
    await same(['api-resources', '--namespaced=false', '--no-headers'], (r) => neutral(r.stdout).trim().split('\n').map((l) => l.trim().split(/\s+/).slice(-1)[0]).sort());
    await same(['api-versions'], (r) => neutral(r.stdout).trim().split('\n').sort());
    await same(['explain', 'deployments.spec.replicas'], (r) => neutral(r.stdout).split('\n').filter((l) => /^(GROUP|KIND|VERSION|FIELD):/.test(l)).map((l) => l.replace(/\s+/g, ' ')));
    await same(['version', '-o', 'json'], (r) => Object.keys(JSON.parse(r.stdout)).filter((k) => k === 'serverVersion'));
  });

  test('auth can-i and whoami, and impersonation', async () => {
    await same(['auth', 'can-i', 'create', 'pods'], out);
    await same(['auth', 'can-i', 'get', 'deployments.apps', '-n', 'e2e'], out);
    await same(['auth', 'can-i', 'get', '/healthz'], out);
    await same(['auth', 'whoami'], (r) => rowsWithoutAge(r.stdout));
    await same(['auth', 'whoami', '--as', 'carol', '--as-group', 'devs', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'], out);
  });

  test('get -w prints the list, then each change', async () => {
    const watches = envs.map((e) => e.watch(['get', 'cm', '-n', 'e2e', '-w']));
    try {
      await Promise.all(watches.map((w) => w.line(/^NAME/)));
      await Promise.all(envs.map((e) => e.ok(['create', 'configmap', 'watched', '-n', 'e2e'])));
      await Promise.all(watches.map((w) => w.line(/^watched\s/)));
    } finally {
      await Promise.all(watches.map((w) => w.stop()));
    }
    const json = envs.map((e) => e.watch(['get', 'cm', 'watched', '-n', 'e2e', '-w', '-o', 'name']));
    try {
      await Promise.all(json.map((w) => w.line(/configmap\/watched/)));
      await Promise.all(envs.map((e) => e.ok(['label', 'cm', 'watched', 'seen=yes', '-n', 'e2e'])));
      await Promise.all(json.map((w) => w.line(/configmap\/watched/, { from: 1 })));
    } finally {
      await Promise.all(json.map((w) => w.stop()));
    }
  });

  test('rollout restart, status, history and undo, with the test standing in for the Deployment controller', async () => {
    await same(['rollout', 'restart', 'deployment/web', '-n', 'e2e'], out);
    await same(['rollout', 'status', 'deployment/web', '-n', 'e2e', '--watch=false'], out);
    // what the controller would do: two ReplicaSets with revisions, and a finished status
    await Promise.all(envs.map(async (e) => {
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
    await Promise.all(envs.map((e) => Promise.all(['approve-me', 'deny-me'].map((name) => e.ok(['create', '-f', e.manifest(`${name}.yaml`, [{
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

  test('logs, exec, attach, port-forward and cp send the reference\'s requests; the server says it does not serve them yet (issue 14)', async () => {
    await setup([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'e2e' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } as Manifest]);
    await Promise.all(envs.map((e) => e.server.client.resource({ group: '', version: 'v1', resource: 'pods' }, 'e2e').status.patch('p', { status: { phase: 'Running' } })));
    for (const e of clusterctls()) {
      const metricsBefore = await e.server.client.request({ method: 'GET', path: '/metrics' });
      const logs = await e.run(['logs', 'p', '-n', 'e2e', '--tail=5']);
      assert.equal(logs.code, 1);
      assert.match(logs.stderr, /^Error from server \(MethodNotAllowed\): .*not supported by this server yet/m);
      const exec = await e.run(['exec', 'p', '-n', 'e2e', '--', 'date']);
      assert.equal(exec.code, 1);
      assert.match(exec.stderr, /^Error from server \(MethodNotAllowed\): .*not supported by this server yet/m);
      const cp = await e.run(['cp', 'e2e/p:/etc/hostname', join(tmpdir(), 'never-written')]);
      assert.equal(cp.code, 1);
      assert.match(cp.stderr, /not supported by this server yet/);
      // the requests reached the subresources the reference uses, as GET for log and as upgrades for exec
      const metrics = await e.server.client.request({ method: 'GET', path: '/metrics' });
      const count = (text: string, verb: string, sub: string) => text.split('\n')
        .filter((l) => l.startsWith('apiserver_request_total{') && l.includes(`verb="${verb}"`) && l.includes('resource="pods"') && l.includes(`subresource="${sub}"`))
        .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      assert.ok(count(metrics, 'GET', 'log') > count(metricsBefore, 'GET', 'log'), 'GET pods/log');
      assert.ok(count(metrics, 'GET', 'exec') + count(metrics, 'CONNECT', 'exec') + count(metrics, 'POST', 'exec') > count(metricsBefore, 'GET', 'exec') + count(metricsBefore, 'CONNECT', 'exec') + count(metricsBefore, 'POST', 'exec'), 'pods/exec');
      // port-forward listens, and a connection through it meets the same answer
      const pf = e.watch(['port-forward', 'pod/p', ':8080', '-n', 'e2e']);
      const line = await pf.line(/^Forwarding from 127\.0\.0\.1:\d+ -> 8080/);
      const port = Number(/:(\d+) ->/.exec(line)![1]);
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('close', () => resolve()).on('error', () => resolve());
      });
      const stopped = await pf.stop();
      assert.match(stopped.stderr, /not supported by this server yet/);
    }
    // kubectl meets the same refusal for logs
    const r = await kubectl.run(['logs', 'p', '-n', 'e2e']);
    assert.notEqual(r.code, 0);
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
      const files = new Map(envs.map((e) => [e, base(e.label.replace(/\W+/g, '-'))]));
      const cfg = (args: string[]) => (e: Env) => ['config', ...args];
      const env = (e: Env) => ({ KUBECONFIG: `${files.get(e)!.a}:${files.get(e)!.b}` });
      const run = async (args: string[], view: (r: Run) => unknown = out) => {
        const results = await Promise.all(envs.map(async (e) => {
          // config commands take no --kubeconfig here: the files come from KUBECONFIG
          const r = await runBare(e, cfg(args)(e), env(e));
          return view(r);
        }));
        for (let i = 1; i < results.length; i++) assert.deepEqual(results[i], results[0], `${envs[i]!.label}: config ${args.join(' ')}`);
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
      for (const e of envs.slice(1)) {
        for (const which of ['a', 'b'] as const) {
          const mine = parse(readFileSync(files.get(e)![which], 'utf8'));
          const theirs = parse(readFileSync(files.get(kubectl)![which], 'utf8'));
          assert.deepEqual({ ...mine, preferences: undefined }, { ...theirs, preferences: undefined }, `${e.label}: file ${which}`);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('completion: a bash script that loads and completes commands', async () => {
    const script = await envs[1]!.ok(['completion', 'bash']);
    const file = join(mkdtempSync(join(tmpdir(), 'completion-')), 'c.bash');
    writeFileSync(file, script);
    const r = await new Promise<Run>((resolve) => execFile('bash', ['-c', `source ${file}; COMP_WORDS=(clusterctl ro); COMP_CWORD=1; _clusterctl; echo "\${COMPREPLY[@]}"; COMP_WORDS=(clusterctl rollout st); COMP_CWORD=2; _clusterctl; echo "\${COMPREPLY[@]}"; complete -p clusterctl`], (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr })));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), ['rollout', 'status', 'complete -o default -F _clusterctl clusterctl']);
    assert.ok(existsSync(clusterctlPath));
  });
});


/** runs the environment's command without --kubeconfig, so the files of KUBECONFIG count */
function runBare(e: Env, args: string[], env: Record<string, string>): Promise<Run> {
  const isKubectl = e.label.startsWith('kubectl');
  const file = isKubectl ? '/usr/lib/google-cloud-sdk/bin/kubectl.1.32' : process.execPath;
  const full = isKubectl ? args : [clusterctlPath, ...args];
  return new Promise<Run>((resolve) => execFile(file, full, { env: { PATH: process.env.PATH, HOME: tmpdir(), ...env }, timeout: 20_000 }, (err, stdout, stderr) =>
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr })));
}
