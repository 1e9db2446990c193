// The real kubectl binaries read the OpenAPI documents: explain (v3; 1.27 also the v2 protobuf; 1.20 only v2), the
// commands that need OpenAPI before they send anything (create -f, apply, diff, replace), and, in kubectl 1.20,
// client-side validation of everything it sends against the v2 document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { naming } from '../api/naming.js';
import {
  apiDomains, kubectlVersions, oldKubectlVersion, startKubectlEnv, type KubectlEnv, type Manifest,
} from '../../test/e2e/support.js';

const configMap = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): Manifest =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data, ...extra });

/** the description kubectl prints (of the field, then of the definition it refers to), its lines joined by spaces */
const described = (out: string) =>
  out.slice(out.indexOf('DESCRIPTION:') + 'DESCRIPTION:'.length).split('FIELDS:')[0].split(/\s+/).filter(Boolean).join(' ');

for (const version of [oldKubectlVersion, ...kubectlVersions]) for (const domain of apiDomains) {
  describe(`kubectl ${version} with OpenAPI (${domain})`, () => {
    let k: KubectlEnv;
    before(async () => { k = await startKubectlEnv(version, domain); });
    after(async () => { await k?.close(); });

    test('explain prints the descriptions of fields and of the definitions they refer to', async () => {
      const image = await k.ok(['explain', 'pod.spec.containers.image']);
      assert.match(image, /KIND:\s+Pod/);
      assert.match(image, /FIELD:\s+image <string>/);
      assert.match(described(image), /^The container image to run, as a registry reference/);

      const strategy = await k.ok(['explain', 'deployment.spec.strategy']);
      assert.match(strategy, /KIND:\s+Deployment/);
      assert.match(strategy, /strategy <(DeploymentStrategy|Object)>/);
      assert.match(described(strategy), /^How pods of an old template are replaced by pods of a new one\. How a Deployment replaces old pods/);
      // the fields of the definition, each with its own description
      assert.match(strategy, /^\s+rollingUpdate\s+<(RollingUpdateDeployment|Object)>\n\s+Limits for a rolling update/m);
      assert.match(strategy, /^\s+type\s+<string>\n(\s+enum: .*\n)?\s+The kind of replacement: "RollingUpdate" \(the default\)/m);

      // names that follow the domain are spelled for it
      const topology = await k.ok(['explain', 'pod.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution.topologyKey']);
      assert.match(described(topology), new RegExp(`"${naming(domain).labelDomain.replace('.', '\\.')}/hostname"`));
      if (domain === 'k8s.io') {
        const pods = await k.ok(['explain', 'pods']);
        assert.match(pods, /^\s+spec\s+<(PodSpec|Object)>/m);
        const containers = await k.ok(['explain', 'pods.spec.containers']);
        assert.match(containers, /containers\s+<\[\](Container|Object)>/);
        assert.match(containers, /^\s+ports\s+<\[\](ContainerPort|Object)>/m);
        const template = await k.ok(['explain', 'deployments.spec.template']);
        assert.match(template, /VERSION:\s+(apps\/)?v1/);
        assert.match(template, /^\s+spec\s+<(PodSpec|Object)>/m);
      }
    });

    if (domain === 'k8s.io') test('create -f, apply -f, diff -f and replace -f', async () => {
      const created = k.manifest('created.yaml', [configMap(`created-${version}`, { a: '1' })]);
      assert.match(await k.ok(['create', '-f', created]), /configmap\/created-.* created/);

      const applied = (data: Record<string, string>) => k.manifest('applied.yaml', [configMap(`applied-${version}`, data)]);
      assert.match(await k.ok(['apply', '-f', applied({ a: '1' })]), /created/);
      assert.match(await k.ok(['apply', '-f', applied({ a: '2', b: '3' })]), /configured/);
      assert.deepEqual((await k.json(['get', 'configmap', `applied-${version}`])).data, { a: '2', b: '3' });

      const changed = applied({ a: '4' });
      const diff = await k.run(['diff', '-f', changed]);
      assert.equal(diff.code, 1, diff.stderr);
      assert.match(diff.stdout, /^\+\s+a: "4"$/m);
      assert.match(await k.ok(['replace', '-f', changed]), /replaced/);
      assert.deepEqual((await k.json(['get', 'configmap', `applied-${version}`])).data, { a: '4' });
      // replace drops the last-applied annotation; once applied again, nothing differs
      await k.ok(['apply', '-f', changed]);
      assert.equal((await k.run(['diff', '-f', changed])).code, 0);
    });
    else test('create -f and apply -f', async () => {
      assert.match(await k.ok(['create', '-f', k.manifest('cm.yaml', [configMap('created', { a: '1' })])]), /created/);
      const applied = k.manifest('applied.yaml', [configMap('applied', { a: '1' })]);
      assert.match(await k.ok(['apply', '-f', applied]), /created/);
      assert.match(await k.ok(['apply', '-f', applied]), /unchanged/);
    });

    if (version === oldKubectlVersion) {
      test('client-side validation: an unknown field is refused by kubectl itself, from the v2 document', async () => {
        const r = await k.run(['create', '-f', k.manifest('bad.yaml', [configMap('bad', { a: '1' }, { colour: 'red' })])]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, /ValidationError\(ConfigMap\): unknown field "colour" in io\.k8s\.api\.core\.v1\.ConfigMap/);
      });

      test('applies a CRD with a schema, and get -o yaml | replace of objects with managedFields', async () => {
        const group = 'stable.example.com';
        const crd: Manifest = {
          apiVersion: `${naming(domain).group('apiextensions')}/v1`, kind: 'CustomResourceDefinition',
          metadata: { name: `crontabs.${group}` },
          spec: {
            group, scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
            versions: [{
              name: 'v1', served: true, storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object', description: 'A schedule of commands.',
                  properties: {
                    spec: {
                      type: 'object', required: ['cronSpec'],
                      properties: {
                        cronSpec: { type: 'string', pattern: '^(\\S+\\s+){4}\\S+$' },
                        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                        mode: { type: 'string', enum: ['fast', 'slow'] },
                        size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                        ports: {
                          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
                          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
                        },
                        labels: { type: 'object', additionalProperties: { type: 'string' } },
                      },
                      'x-kubernetes-validations': [{ rule: 'self.replicas <= 5 || self.mode == "slow"', message: 'fast tabs run at most 5 replicas' }],
                    },
                    status: { type: 'object', properties: { lastRun: { type: 'string', format: 'date-time' } } },
                  },
                },
              },
              subresources: { status: {} },
              additionalPrinterColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
            }],
          },
        };
        assert.match(await k.ok(['apply', '-f', k.manifest('crd.yaml', [crd])]), /customresourcedefinition\.[\w.]+\/crontabs\.stable\.example\.com created/);
        assert.match(await k.ok(['wait', '--for=condition=Established', `crd/crontabs.${group}`, '--timeout=60s']), /condition met/);
        // applied again with a field added and the rule changed: a strategic merge patch through the nested schemas
        const spec = (crd.spec as any).versions[0].schema.openAPIV3Schema.properties.spec;
        spec.properties.timeZone = { type: 'string' };
        spec['x-kubernetes-validations'] = [{ rule: 'self.replicas <= 6 || self.mode == "slow"', message: 'fast tabs run at most 6 replicas' }];
        assert.match(await k.ok(['apply', '-f', k.manifest('crd.yaml', [crd])]), /configured/);
        const stored = (await k.json(['get', 'crd', `crontabs.${group}`])).spec.versions[0].schema.openAPIV3Schema.properties.spec;
        assert.deepEqual(stored.properties.timeZone, { type: 'string' });
        assert.deepEqual(stored['x-kubernetes-validations'], spec['x-kubernetes-validations']);
        const tab: Manifest = {
          apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'nightly', namespace: 'default' },
          spec: { cronSpec: '0 3 * * *', mode: 'fast', size: '2Gi', extra: { any: [1, { thing: true }] }, ports: [{ name: 'web', port: 80 }] },
        };
        assert.match(await k.ok(['apply', '-f', k.manifest('tab.yaml', [tab])]), /created/);
        const web = k.manifest('web.yaml', [{
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
          spec: {
            replicas: 2, selector: { matchLabels: { app: 'web' } },
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ name: 'http', containerPort: 80 }],
                resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 1, memory: '128Mi' } },
                livenessProbe: { httpGet: { path: '/', port: 'http' } } }] },
            },
          },
        }, {
          apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' },
          spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 'http' }] },
        }, configMap('settings', { a: '1' })]);
        await k.ok(['apply', '-f', web]);

        // the deployment controller writes the Deployment's status meanwhile (and the definition's controllers its
        // conditions): a replace that lost that race to them is read and made again, as its user would
        for (const object of ['crontab/nightly', `customresourcedefinition/crontabs.${group}`, 'deployment/web', 'service/web', 'configmap/settings']) {
          for (let attempt = 1; ; attempt++) {
            const yaml = await k.ok(['get', object, '-o', 'yaml']);
            assert.match(yaml, /managedFields:\n(.*\n)*\s+fieldsV1:\n\s+f:/, object);
            const replaced = await k.run(['replace', '-f', '-'], { input: yaml });
            if (replaced.code !== 0 && /the object has been modified/.test(replaced.stderr) && attempt < 20) continue;
            assert.match(replaced.stdout, /replaced/, `${object}: ${replaced.stderr}`);
            break;
          }
        }
        const replaced = await k.json(['get', 'crontab', 'nightly']);
        assert.deepEqual(replaced.spec, { ...tab.spec as object, replicas: 1 });
      });

      test('client-side validation of custom resources accepts what their schema keeps: unknown fields where preserved, null where nullable, embedded objects', async () => {
        const group = 'validation.example.com';
        const crd = (plural: string, kind: string, openAPIV3Schema: Record<string, unknown>): Manifest => ({
          apiVersion: `${naming(domain).group('apiextensions')}/v1`, kind: 'CustomResourceDefinition',
          metadata: { name: `${plural}.${group}` },
          spec: { group, scope: 'Namespaced', names: { plural, singular: kind.toLowerCase(), kind }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }] },
        });
        await k.ok(['apply', '-f', k.manifest('crds.yaml', [
          crd('runners', 'Runner', {
            type: 'object',
            properties: {
              spec: {
                type: 'object', required: ['template'],
                properties: {
                  open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
                  maybe: { type: 'string', nullable: true },
                  template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { image: { type: 'string' } } } } },
                },
              },
            },
          }),
          crd('blobs', 'Blob', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } }),
        ])]);
        for (const plural of ['runners', 'blobs']) await k.ok(['wait', '--for=condition=Established', `crd/${plural}.${group}`, '--timeout=60s']);
        const runner = (spec: Record<string, unknown>): Manifest =>
          ({ apiVersion: `${group}/v1`, kind: 'Runner', metadata: { name: 'r', namespace: 'default' }, spec });
        const template = { apiVersion: 'v1', kind: 'Thing', metadata: { name: 't' }, spec: { image: 'img' } };
        const accepted = await k.run(['create', '-f', k.manifest('ok.yaml', [
          runner({ open: { known: 'a', unknown: 1 }, maybe: null, template }),
          { apiVersion: `${group}/v1`, kind: 'Blob', metadata: { name: 'b', namespace: 'default' }, top: 1, spec: { a: 'x' } },
        ])]);
        assert.equal(accepted.code, 0, accepted.stderr);
        // elsewhere an unknown field is still refused by kubectl itself
        const refused = await k.run(['create', '-f', k.manifest('bad.yaml', [runner({ template: { ...template, spec: { image: 'img', colour: 'red' } } })])]);
        assert.notEqual(refused.code, 0);
        assert.match(refused.stderr, /ValidationError\(Runner\.spec\.template\.spec\): unknown field "colour"/);
      });
    }

    if (version === '1.27' && domain === 'k8s.io') test('the v2 document in protobuf form', async () => {
      const explained = await k.ok(['explain', '--output=plaintext-openapiv2', 'pods.spec.containers']);
      assert.match(explained, /RESOURCE: containers <\[\]Object>/);
      assert.match(explained, /^\s+image\s+<string>\n\s+The container image to run/m);
      const r = await k.run(['apply', '-f', k.manifest('v2.yaml', [configMap(`v2-${version}`, { a: '1' })]), '-v=6']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /GET https:\/\/[^ ]+\/openapi\/v2(\?\S*)? 200 OK/);
    });

    if (version !== oldKubectlVersion && domain === 'k8s.io') test('unknown fields are left to the server (fieldValidation=Strict)', async () => {
      const bad = k.manifest('bad.yaml', [configMap(`bad-${version}`, { a: '1' }, { colour: 'red' })]);
      const r = await k.run(['create', '-f', bad, '-v=6']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /fieldValidation=Strict/);
      assert.match(r.stderr, /unknown field "colour"/);
    });
  });
}

