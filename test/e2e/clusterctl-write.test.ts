// clusterctl beside kubectl: writing (apply and diff, patch, replace, edit, delete, the create generators, scale, wait).
// See clusterctl-support.ts for how the three environments compare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { comparedSuite, lines, neutral, out, stable, type Env } from './clusterctl-support.js';
import { namespaceManifest, type Manifest } from './support.js';

const initial: Manifest[] = [
  namespaceManifest('e2e'),
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'e2e', labels: { app: 'api' } }, data: { a: '1', b: 'two' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2', namespace: 'e2e' }, data: { a: '2' } },
];

comparedSuite('clusterctl does what kubectl does: writing', (e) => e.ok(['create', '-f', e.manifest('initial.yaml', initial)]), ({ same, envs, kubectl }) => {
  test('apply: server-side, client-side (create, configure, unchanged), and diff', async () => {
    const doc = (data: Record<string, string>): Manifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'e2e' }, data });
    const file = (e: Env, data: Record<string, string>) => e.manifest(`applied-${Object.keys(data).join('')}.yaml`, [doc(data)]);
    // kubectl's default is client-side apply; clusterctl's is server-side
    const ssa = (e: Env, f: string) => (e === kubectl() ? ['apply', '--server-side', '-f', f] : ['apply', '-f', f]);
    await same((e) => ssa(e, file(e, { a: '1' })), out);
    await same((e) => ssa(e, file(e, { a: '1', b: '2' })), out);
    await same((e) => ['get', 'cm', 'applied', '-n', 'e2e', '-o', 'jsonpath={.data}'], out);
    await same((e) => ['get', 'cm', 'applied', '-n', 'e2e', '-o', 'jsonpath={.metadata.managedFields[*].operation}'], out);
    const csa = (e: Env, f: string) => (e === kubectl() ? ['apply', '-f', f] : ['apply', '--server-side=false', '-f', f]);
    const csaDoc = (data: Record<string, string>): Manifest => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'csa', namespace: 'e2e' }, data });
    const csaFile = (e: Env, data: Record<string, string>) => e.manifest(`csa-${Object.keys(data).join('')}.yaml`, [csaDoc(data)]);
    await same((e) => csa(e, csaFile(e, { a: '1', b: '2' })), out);
    await same((e) => csa(e, csaFile(e, { a: '1', b: '2' })), out);
    await same((e) => csa(e, csaFile(e, { a: '3' })), out);
    await same(['get', 'cm', 'csa', '-n', 'e2e', '-o', 'jsonpath={.data}'], out);
    // diff: nothing to change is exit 0; a change is exit 1 with the changed lines
    const diffArgs = (e: Env, f: string) => (e === kubectl() ? ['diff', '--server-side', '-f', f] : ['diff', '-f', f]);
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
    const editorDir = mkdtempSync(join(tmpdir(), 'editor-'));
    const editor = join(editorDir, 'edit.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/only: this/only: edited/" "$1"\n');
    chmodSync(editor, 0o755);
    await same(['edit', 'cm', 'cm2', '-n', 'e2e'], out, { env: () => ({ EDITOR: editor, KUBE_EDITOR: editor }) });
    rmSync(editorDir, { recursive: true, force: true });
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

  test('scale, describe, wait', async () => {
    await same(['scale', 'deployment', 'web', '--replicas=3', '-n', 'e2e'], out);
    await same(['get', 'deploy', 'web', '-n', 'e2e', '-o', 'jsonpath={.spec.replicas}'], out);
    await same(['scale', 'deployment', 'web', '--replicas=4', '--current-replicas=1', '-n', 'e2e'], (r) => ({ code: r.code }));
    await same(['create', 'configmap', 'described', '-n', 'e2e', '--from-literal=key=value'], out);
    await same(['describe', 'cm', 'described', '-n', 'e2e'], (r) => neutral(r.stdout).split('\n').filter((l) => l.trim()).map((l) => l.replace(/\s+/g, ' ')));
    await same(['wait', '--for=jsonpath={.data.key}=value', 'cm/described', '-n', 'e2e', '--timeout=10s'], out);
    await same(['wait', '--for=jsonpath={.data.key}=other', 'cm/described', '-n', 'e2e', '--timeout=1s'], (r) => ({ code: r.code, stdout: r.stdout }));
    await Promise.all(envs().map((e) => e.ok(['delete', 'cm', 'described', '-n', 'e2e', '--wait=false'])));
    await same(['wait', '--for=delete', 'cm/described', '-n', 'e2e', '--timeout=10s'], (r) => ({ code: r.code }));
  });

});
