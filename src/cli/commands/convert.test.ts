// convert: every row of spec 9's table of removed versions, in both domains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiDomains, naming } from '../../api/naming.js';
import { convertObject, rules } from './convert.js';

for (const domain of apiDomains) {
  const n = naming(domain);
  const g = (base: string) => n.group(base);

  test(`${domain}: Ingress from extensions/v1beta1 and networking v1beta1: backends renamed, pathType required`, () => {
    for (const from of ['extensions/v1beta1', `${g('networking')}/v1beta1`]) {
      const out = convertObject({
        apiVersion: from, kind: 'Ingress', metadata: { name: 'i' },
        spec: { backend: { serviceName: 'default', servicePort: 80 }, rules: [{ host: 'a.test', http: { paths: [{ path: '/', backend: { serviceName: 'web', servicePort: 'http' } }] } }] },
      } as never, n);
      assert.equal(out.apiVersion, `${g('networking')}/v1`);
      assert.deepEqual((out as any).spec, {
        defaultBackend: { service: { name: 'default', port: { number: 80 } } },
        rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'ImplementationSpecific', backend: { service: { name: 'web', port: { name: 'http' } } } }] } }],
      });
    }
  });

  test(`${domain}: CustomResourceDefinition v1beta1: versions, per-version schema, columns and subresources, webhook conversion`, () => {
    const out: any = convertObject({
      apiVersion: `${g('apiextensions')}/v1beta1`, kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.test' },
      spec: {
        group: 'example.test', version: 'v1', names: { plural: 'ws', kind: 'W' },
        validation: { openAPIV3Schema: { type: 'object' } }, subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', JSONPath: '.spec.size' }],
        conversion: { strategy: 'Webhook', webhookClientConfig: { url: 'https://c.test' }, conversionReviewVersions: ['v1'] },
        preserveUnknownFields: true,
      },
    } as never, n);
    assert.equal(out.apiVersion, `${g('apiextensions')}/v1`);
    assert.deepEqual(out.spec, {
      group: 'example.test', names: { plural: 'ws', kind: 'W' }, scope: 'Namespaced',
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        subresources: { status: {} }, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      }],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://c.test' }, conversionReviewVersions: ['v1'] } },
    });
  });

  test(`${domain}: access reviews rename spec.group; CSRs get the old defaults of signerName and usages`, () => {
    const sar: any = convertObject({ apiVersion: `${g('authorization')}/v1beta1`, kind: 'SubjectAccessReview', metadata: {}, spec: { user: 'u', group: ['g'] } } as never, n);
    assert.deepEqual(sar.spec, { user: 'u', groups: ['g'] });
    const csr: any = convertObject({ apiVersion: `${g('certificates')}/v1beta1`, kind: 'CertificateSigningRequest', metadata: { name: 'c' }, spec: { request: 'x' } } as never, n);
    assert.equal(csr.apiVersion, `${g('certificates')}/v1`);
    assert.deepEqual(csr.spec, { request: 'x', signerName: n.label('legacy-unknown'), usages: ['digital signature', 'key encipherment'] });
  });

  test(`${domain}: workloads: selectors from the template, the old versions' defaults written out`, () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const ext: any = convertObject({ apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template, rollbackTo: { revision: 1 } } } as never, n);
    assert.deepEqual(ext.spec, {
      template, selector: { matchLabels: { app: 'a' } }, progressDeadlineSeconds: 2147483647, revisionHistoryLimit: 2147483647,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
    });
    const beta1: any = convertObject({ apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template } } as never, n);
    assert.equal(beta1.spec.revisionHistoryLimit, 2);
    assert.equal(beta1.spec.strategy.rollingUpdate.maxSurge, '25%');
    const ds: any = convertObject({ apiVersion: 'extensions/v1beta1', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { template, templateGeneration: 3 } } as never, n);
    assert.deepEqual(ds.spec, { template, selector: { matchLabels: { app: 'a' } }, updateStrategy: { type: 'OnDelete' } });
    const sts: any = convertObject({ apiVersion: 'apps/v1beta1', kind: 'StatefulSet', metadata: { name: 's' }, spec: { template, serviceName: 's' } } as never, n);
    assert.equal(sts.spec.updateStrategy.type, 'OnDelete');
    assert.equal(convertObject({ apiVersion: 'apps/v1beta2', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { template } } as never, n).apiVersion, 'apps/v1');
    assert.throws(() => convertObject({ apiVersion: 'apps/v1beta2', kind: 'ReplicaSet', metadata: { name: 'r' }, spec: { template: {} } } as never, n), /spec\.selector is required/);
  });

  test(`${domain}: kinds that only move version, and objects already current`, () => {
    const moves: Array<[string, string, string]> = [
      ['APIService', `${g('apiregistration')}/v1beta1`, `${g('apiregistration')}/v1`],
      ['TokenReview', `${g('authentication')}/v1beta1`, `${g('authentication')}/v1`],
      ['Lease', `${g('coordination')}/v1beta1`, `${g('coordination')}/v1`],
      ['IngressClass', `${g('networking')}/v1beta1`, `${g('networking')}/v1`],
      ['ClusterRole', `${g('rbac.authorization')}/v1beta1`, `${g('rbac.authorization')}/v1`],
      ['PriorityClass', `${g('scheduling')}/v1beta1`, `${g('scheduling')}/v1`],
      ['StorageClass', `${g('storage')}/v1beta1`, `${g('storage')}/v1`],
      ['NetworkPolicy', 'extensions/v1beta1', `${g('networking')}/v1`],
      ['PodSecurityPolicy', 'extensions/v1beta1', 'policy/v1beta1'],
    ];
    for (const [kind, from, to] of moves) {
      const obj = { apiVersion: from, kind, metadata: { name: 'x' }, spec: { any: 'thing' } };
      assert.deepEqual(convertObject(obj as never, n), { ...obj, apiVersion: to }, kind);
    }
    const current = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    assert.equal(convertObject(current as never, n), current);
    assert.throws(() => convertObject({ apiVersion: 'extensions/v1beta1', kind: 'Ingress', metadata: { name: 'i' } } as never, n, 'apps/v1'), /converts to/);
    assert.ok(rules(n).every((r) => r.kinds.length && r.from.length));
  });
}

test('the convert command: a file of old objects in, the new versions out as YAML or JSON', async () => {
  const { runCli } = await import('../program.js');
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { PassThrough } = await import('node:stream');
  const { parseAllDocuments } = await import('yaml');
  const dir = mkdtempSync(join(tmpdir(), 'convert-'));
  try {
    const file = join(dir, 'old.yaml');
    writeFileSync(file, `apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: web}
spec:
  backend: {serviceName: web, servicePort: 80}
---
apiVersion: rbac.authorization.k8s.io/v1beta1
kind: Role
metadata: {name: r}
rules: []
`);
    const run = async (args: string[]) => {
      const stdout = new PassThrough();
      const stderr = new PassThrough();
      let out = '';
      let err = '';
      stdout.on('data', (c: Buffer) => { out += c; });
      stderr.on('data', (c: Buffer) => { err += c; });
      const code = await runCli(args, { stdout, stderr, stdin: new PassThrough() });
      return { code, out, err };
    };
    // the Role names the reference's domain, so the Ingress moves to that domain's networking group
    const yaml = await run(['--kubeconfig', join(dir, 'none'), 'convert', '-f', file]);
    assert.equal(yaml.code, 0, yaml.err);
    const list = parseAllDocuments(yaml.out)[0]!.toJS();
    assert.equal(list.kind, 'List');
    assert.deepEqual(list.items.map((o: any) => o.apiVersion), ['networking.k8s.io/v1', 'rbac.authorization.k8s.io/v1']);
    assert.deepEqual(list.items[0].spec, { defaultBackend: { service: { name: 'web', port: { number: 80 } } } });
    const wrong = await run(['--kubeconfig', join(dir, 'none'), 'convert', '-f', file, '--output-version', 'apps/v1']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /^error: Ingress web: extensions\/v1beta1 converts to networking\.k8s\.io\/v1, not apps\/v1/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
