// Custom resources with the real kubectl 1.27 and 1.32, in both API domain modes (one server each): a realistic
// operator CRD is applied and waited for (Established), its objects applied, listed with their printer columns,
// patched (spec, status, scale), watched, explained and deleted, and a validation rule's message reaches the user.
// kubectl asks for meta.k8s.io Tables, so printer columns reach it in k8s.io mode only; in cluster.io mode it
// prints its own NAME AGE table, and the watch test names its columns itself (custom columns, which print no
// event types: a deletion shows as the object's row once more).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiDomains, kubectlVersions, namespaceManifest, startKubectlEnv, tableHeader, tableRows, type KubectlEnv } from './support.js';
import { database, operatorCrd, operatorGroup, operatorPlural } from './operator-crd.js';

const crdName = `${operatorPlural}.${operatorGroup}`;

for (const version of kubectlVersions) {
  for (const domain of apiDomains) {
    describe(`kubectl ${version} with custom resources (${domain} mode)`, { concurrency: 1 }, () => {
      let k: KubectlEnv;
      const ns = 'shop';
      const serverTables = domain === 'k8s.io';
      /** the printer columns' order, spelled as custom columns where the server's cannot be used */
      const watchArgs = serverTables ? ['--output-watch-events']
        : ['-o', 'custom-columns=NAME:.metadata.name,ENGINE:.spec.engine,REPLICAS:.spec.replicas,READY:.status.readyReplicas,PHASE:.status.phase'];
      /** a watch line: the event type, where kubectl prints it, then the columns */
      const row = (type: string, columns: string) => new RegExp(`${serverTables ? `${type}\\s+` : '^'}${columns}`);
      before(async () => { k = await startKubectlEnv(version, domain); });
      after(async () => { await k?.close(); });

      test('apply a CRD and wait for Established', async () => {
        const out = await k.ok(['apply', '-f', k.manifest('crd.yaml', [operatorCrd(k.server.names.group('apiextensions'))])]);
        assert.match(out, new RegExp(`customresourcedefinition.apiextensions.${domain.replace('.', '\\.')}/${crdName} created`));
        const waited = await k.ok(['wait', '--for=condition=Established', `crd/${crdName}`, '--timeout=120s']);
        assert.match(waited, /condition met/);
      });

      test('apply objects and get them with printer columns', async () => {
        const out = await k.ok(['apply', '-f', k.manifest('objects.yaml', [
          namespaceManifest(ns),
          database(ns, 'orders', { engine: 'postgres', replicas: 3 }),
          database(ns, 'ledger', { engine: 'mysql', replicas: 2 }),
        ])]);
        assert.match(out, /database\.db\.example\.com\/orders created/);
        const table = await k.ok(['get', 'databases', '-n', ns]);
        if (serverTables) {
          assert.deepEqual(tableHeader(table), ['NAME', 'ENGINE', 'REPLICAS', 'READY', 'PHASE', 'AGE']);
          assert.deepEqual(tableRows(table).slice(1).map(r => r.slice(0, 3)), [['ledger', 'mysql', '2'], ['orders', 'postgres', '3']]);
        } else {
          assert.deepEqual(tableHeader(table), ['NAME', 'AGE']);
          assert.deepEqual(tableRows(table).slice(1).map(r => r[0]), ['ledger', 'orders']);
        }
        const shortName = await k.ok(['get', 'db', 'orders', '-n', ns, '-o', 'json']);
        const obj = JSON.parse(shortName);
        assert.deepEqual(obj.spec, { engine: 'postgres', replicas: 3, version: '16' }, 'defaulted');
        assert.equal(obj.apiVersion, `${operatorGroup}/v1`);
        // the deprecated version is still served, with its warning
        const alpha = await k.run(['get', `${operatorPlural}.v1alpha1.${operatorGroup}`, 'orders', '-n', ns, '-o', 'jsonpath={.apiVersion}']);
        assert.equal(alpha.code, 0, alpha.stderr);
        assert.equal(alpha.stdout, `${operatorGroup}/v1alpha1`);
        assert.match(alpha.stderr, /Warning: db\.example\.com\/v1alpha1 Database is deprecated/);
      });

      test('patch spec, status and scale; watch sees each change', async () => {
        const watch = k.watch(['get', 'databases', '-n', ns, '-w', ...watchArgs]);
        await watch.line(row('ADDED', 'orders\\s+postgres\\s+3'));
        const from = watch.lines.length;
        assert.match(await k.ok(['patch', 'database', 'orders', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":4}}']), /patched/);
        await watch.line(row('MODIFIED', 'orders\\s+postgres\\s+4'), { from });
        await k.ok(['patch', 'database', 'orders', '-n', ns, '--subresource=status', '--type=merge',
          '-p', '{"status":{"phase":"Ready","readyReplicas":4,"selector":"app=orders"}}']);
        await watch.line(row('MODIFIED', 'orders\\s+postgres\\s+4\\s+4\\s+Ready'), { from });
        assert.match(await k.ok(['scale', 'database', 'orders', '-n', ns, '--replicas=5']), /scaled/);
        await watch.line(row('MODIFIED', 'orders\\s+postgres\\s+5\\s+4\\s+Ready'), { from });
        await k.ok(['delete', 'database', 'ledger', '-n', ns]);
        await watch.line(row('DELETED', 'ledger\\s+mysql'), { from });
        await watch.stop();
      });

      test('a validation rule violation is reported with its message', async () => {
        await k.ok(['apply', '-f', k.manifest('mysql.yaml', [database(ns, 'ledger', { engine: 'mysql', replicas: 2 })])]);
        const r = await k.run(['patch', 'database', 'ledger', '-n', ns, '--type=merge', '-p', '{"spec":{"replicas":6}}']);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /"ledger" is invalid: spec: Invalid value: "object": mysql clusters allow at most 5 replicas/);
        const applied = await k.run(['apply', '-f', k.manifest('engine.yaml', [database(ns, 'ledger', { engine: 'postgres', replicas: 2 })])]);
        assert.notEqual(applied.code, 0);
        assert.match(applied.stderr, /engine is immutable/);
      });

      test('explain a custom kind', async () => {
        const out = await k.ok(['explain', 'databases.spec']);
        assert.match(out, /KIND:\s+Database/);
        assert.match(out, /VERSION:\s+v1\b/);
        assert.match(out, /DatabaseSpec is the desired state of the database cluster\./);
        assert.match(out, /engine\s+<string>.*-required-/);
        assert.match(out, /Database engine\./);
        assert.match(out, /replicas\s+<integer>/);
      });

      test('delete custom resources', async () => {
        assert.match(await k.ok(['delete', 'databases', '--all', '-n', ns]), /database\.db\.example\.com "ledger" deleted/);
        const r = await k.run(['get', 'database', 'orders', '-n', ns]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /NotFound|not found/);
        assert.match(await k.ok(['delete', 'crd', crdName]), /deleted/);
      });
    });
  }
}
