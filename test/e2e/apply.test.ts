// Server-side apply with real kubectl (1.27 and 1.32) in both API domains: create and update, a conflict between
// two managers, --force-conflicts, --dry-run=server, and the move from client-side apply without conflicts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { apiDomains, kubectlPath, kubectlVersions, startKubectlEnv, type KubectlEnv, type Manifest } from './support.js';

const configMap = (name: string, data: Record<string, string>): Manifest =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
const deployment = (name: string, image: string, replicas?: number): Manifest => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' },
  spec: {
    ...(replicas === undefined ? {} : { replicas }), selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
  },
});

for (const version of kubectlVersions) {
  for (const apiDomain of apiDomains) {
    describe(`kubectl ${version} apply --server-side, ${apiDomain}`, { skip: existsSync(kubectlPath(version)) ? false : `kubectl ${version} is not installed` }, () => {
      let k: KubectlEnv;
      before(async () => { k = await startKubectlEnv(version, apiDomain); });
      after(async () => { await k?.close(); });
      const managers = (obj: any) => (obj.metadata.managedFields ?? []).map((f: any) => `${f.manager}/${f.operation}`).sort();

      test('creates, then updates, removing a field the manager stops applying', async () => {
        assert.match(await k.ok(['apply', '--server-side', '-f', k.manifest('a1.yaml', [configMap('ssa', { a: '1', b: '2' })])]), /serverside-applied/);
        const created = await k.json(['get', 'configmap', 'ssa', '--show-managed-fields']);
        assert.deepEqual(created.data, { a: '1', b: '2' });
        assert.deepEqual(managers(created), ['kubectl/Apply']);
        assert.deepEqual(created.metadata.managedFields[0].fieldsV1, { 'f:data': { 'f:a': {}, 'f:b': {} } });
        await k.ok(['apply', '--server-side', '-f', k.manifest('a2.yaml', [configMap('ssa', { a: '3' })])]);
        assert.deepEqual((await k.json(['get', 'configmap', 'ssa'])).data, { a: '3' });
      });

      test('a conflict between two managers names the field and the manager; --force-conflicts takes it', async () => {
        const mine = k.manifest('c1.yaml', [configMap('shared', { key: 'mine' })]);
        const theirs = k.manifest('c2.yaml', [configMap('shared', { key: 'theirs' })]);
        await k.ok(['apply', '--server-side', '-f', mine]);
        const clash = await k.run(['apply', '--server-side', '--field-manager=other', '-f', theirs]);
        assert.notEqual(clash.code, 0);
        assert.match(clash.stderr, /conflict with "kubectl"/);
        assert.match(clash.stderr, /\.data\.key/);
        await k.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', theirs]);
        const after = await k.json(['get', 'configmap', 'shared', '--show-managed-fields']);
        assert.equal(after.data.key, 'theirs');
        assert.deepEqual(managers(after), ['other/Apply'], 'the forced apply took the field; the first manager owned nothing else and went');
      });

      test('--dry-run=server changes nothing', async () => {
        await k.ok(['apply', '--server-side', '-f', k.manifest('d1.yaml', [deployment('dry', 'busybox:1', 2)])]);
        await k.ok(['apply', '--server-side', '--dry-run=server', '-f', k.manifest('d2.yaml', [deployment('dry', 'busybox:2', 5)])]);
        const live = await k.json(['get', 'deployment', 'dry']);
        assert.equal(live.spec.replicas, 2);
        assert.equal(live.spec.template.spec.containers[0].image, 'busybox:1');
      });

      test('an object made by client-side apply moves to server-side apply without conflicts', async () => {
        await k.ok(['apply', '-f', k.manifest('m1.yaml', [deployment('moved', 'busybox:1', 1)])]);
        const out = await k.run(['apply', '--server-side', '-f', k.manifest('m2.yaml', [deployment('moved', 'busybox:2', 1)])]);
        assert.equal(out.code, 0, out.stderr);
        const live = await k.json(['get', 'deployment', 'moved', '--show-managed-fields']);
        assert.equal(live.spec.template.spec.containers[0].image, 'busybox:2');
        assert.ok(managers(live).includes('kubectl/Apply'));
      });
    });
  }
}
