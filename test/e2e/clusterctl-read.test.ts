// clusterctl beside kubectl: reading (get in every output form, selectors, watch), discovery, explain, auth.
// See clusterctl-support.ts for how the three environments compare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { comparedSuite, lines, neutral, out, rowsWithoutAge, stable } from './clusterctl-support.js';

comparedSuite('clusterctl does what kubectl does: reading', async () => {}, ({ same, envs }) => {
  test('create namespace, create configmap and get them as tables, JSON, YAML, names, JSONPath and custom columns', async () => {
    await same(['create', 'namespace', 'e2e'], out);
    await same(['create', 'configmap', 'cm1', '-n', 'e2e', '--from-literal=a=1', '--from-literal=b=two'], out);
    await same(['create', 'configmap', 'cm2', '-n', 'e2e', '--from-literal=a=2'], out);
    await same(['get', 'configmaps', '-n', 'e2e'], (r) => ({ code: r.code, rows: rowsWithoutAge(r.stdout) }));
    await same(['get', 'cm', 'cm1', '-n', 'e2e', '-o', 'json'], (r) => stable(JSON.parse(r.stdout)));
    await same(['get', 'cm', '-n', 'e2e', '-o', 'yaml'], (r) => stable(parse(r.stdout)));
    // managed fields are left out of JSON and YAML unless asked for; JSONPath still sees them
    const managed = (o: { metadata: Record<string, unknown> }) => 'managedFields' in o.metadata;
    await same(['get', 'cm', 'cm1', '-n', 'e2e', '-o', 'json'], (r) => managed(JSON.parse(r.stdout)));
    await same(['get', 'cm', '-n', 'e2e', '-o', 'yaml'], (r) => parse(r.stdout).items.map(managed));
    await same(['get', 'cm', 'cm1', '-n', 'e2e', '-o', 'yaml', '--show-managed-fields'], (r) => managed(parse(r.stdout)));
    await same(['create', 'configmap', 'cm3', '-n', 'e2e', '--dry-run=server', '-o', 'json'], (r) => managed(JSON.parse(r.stdout)));
    await same(['get', 'cm', 'cm1', '-n', 'e2e', '-o', 'jsonpath={.metadata.managedFields[0].operation}'], out);
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

  test('api-resources, api-versions, explain, version', async () => {
    await same(['api-resources', '--no-headers'], (r) => neutral(r.stdout).trim().split('\n').map((l) => l.trim().split(/\s+/)[0]).sort());
    await same(['api-resources', '--api-group=apps', '-o', 'name'], out);
    await same(['api-resources', '--namespaced=false', '--no-headers'], (r) => neutral(r.stdout).trim().split('\n').map((l) => l.trim().split(/\s+/).slice(-1)[0]).sort());
    await same(['api-versions'], (r) => neutral(r.stdout).trim().split('\n').sort());
    await same(['explain', 'deployments.spec.replicas'], (r) => neutral(r.stdout).split('\n').filter((l) => /^(GROUP|KIND|VERSION|FIELD):/.test(l)).map((l) => l.replace(/\s+/g, ' ')));
    await same(['version', '-o', 'json'], (r) => Object.keys(JSON.parse(r.stdout)).filter((k) => k === 'serverVersion'));
  });

  test('a server that refuses the connection: the reference\'s words, exit code 1', async () => {
    // kubectl logs each discovery attempt before its last line; port 1 refuses at once
    await same(['get', 'namespaces', '--server=https://127.0.0.1:1'], (r) => ({ code: r.code, last: r.stderr.trim().split('\n').pop() }));
  });

  test('auth can-i and whoami, and impersonation', async () => {
    await same(['auth', 'can-i', 'create', 'pods'], out);
    await same(['auth', 'can-i', 'get', 'deployments.apps', '-n', 'e2e'], out);
    await same(['auth', 'can-i', 'get', '/healthz'], out);
    await same(['auth', 'whoami'], (r) => rowsWithoutAge(r.stdout));
    await same(['auth', 'whoami', '--as', 'carol', '--as-group', 'devs', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'], out);
  });

  test('get -w prints the list, then each change', async () => {
    const watches = envs().map((e) => e.watch(['get', 'cm', '-n', 'e2e', '-w']));
    try {
      await Promise.all(watches.map((w) => w.line(/^NAME/)));
      await Promise.all(envs().map((e) => e.ok(['create', 'configmap', 'watched', '-n', 'e2e'])));
      await Promise.all(watches.map((w) => w.line(/^watched\s/)));
      // later events of a Table watch come without column definitions (as the reference sends them): rows still print
      await Promise.all(envs().map((e) => e.ok(['label', 'cm', 'watched', 'step=one', '-n', 'e2e'])));
      await Promise.all(watches.map((w) => w.line(/^watched\s/, { from: w.lines.findIndex((l) => /^watched\s/.test(l)) + 1 })));
    } finally {
      await Promise.all(watches.map((w) => w.stop()));
    }
    const json = envs().map((e) => e.watch(['get', 'cm', 'watched', '-n', 'e2e', '-w', '-o', 'name']));
    try {
      await Promise.all(json.map((w) => w.line(/configmap\/watched/)));
      await Promise.all(envs().map((e) => e.ok(['label', 'cm', 'watched', 'seen=yes', '-n', 'e2e'])));
      await Promise.all(json.map((w) => w.line(/configmap\/watched/, { from: 1 })));
    } finally {
      await Promise.all(json.map((w) => w.stop()));
    }
  });

});
