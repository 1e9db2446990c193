// Real protobuf bodies from kubectl 1.32: a recording proxy sits in front of a test server (in the
// reference's API domain, so that kubectl discovers the groups it knows). The proxy forwards every
// request except protobuf writes, which it records and answers with a JSON 201 echo of the decoded body.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest, createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadClientConfig, writeAdminClientConfig } from '../../config/client-config.js';
import { ensurePki } from '../../pki/pki.js';
import { startTestServer, type TestServer } from '../../testing.js';
import { apiDomains, defaultApiDomain, naming } from '../naming.js';
import { decodeEnvelope, protobufToJson } from './codec.js';

const kubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
/** kubectl knows the reference's group names only */
const names = naming(apiDomains.find((d) => d !== defaultApiDomain)!);
const run = promisify(execFile);

interface Recorded { method: string; path: string; body: Buffer; json?: Record<string, unknown>; unknown: string[]; error?: string }

describe('protobuf bodies sent by kubectl 1.32', { skip: !existsSync(kubectl) && 'kubectl 1.32 is not installed' }, () => {
  let dir: string;
  let server: TestServer;
  let proxy: Server;
  let kubeconfig: string;
  const recorded: Recorded[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'protobuf-kubectl-'));
    server = await startTestServer({ apiDomain: names.domain });
    const upstream = await loadClientConfig(server.kubeconfig);
    const target = new URL(upstream.server);
    const pki = await ensurePki(join(dir, 'pki'), { hosts: [] });

    proxy = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const type = String(req.headers['content-type'] ?? '').split(';')[0].trim();
        if (type === names.protobufMediaType) {
          const rec: Recorded = { method: req.method!, path: req.url!, body, unknown: [] };
          recorded.push(rec);
          try {
            const env = decodeEnvelope(body, names);
            rec.json = protobufToJson(env.raw, env.apiVersion, env.kind, rec.unknown);
            res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(rec.json));
          } catch (e) {
            rec.error = (e as Error).message;
            res.writeHead(400, { 'content-type': 'text/plain' }).end(rec.error);
          }
          return;
        }
        const headers = { ...req.headers, host: target.host };
        const up = httpsRequest({
          host: target.hostname, port: target.port, path: req.url, method: req.method, headers,
          ca: upstream.caPem, cert: upstream.certPem, key: upstream.keyPem,
        }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', (e) => res.writeHead(502).end(e.message));
        up.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    kubeconfig = join(dir, 'kubeconfig');
    await writeAdminClientConfig(kubeconfig, {
      server: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem,
    });
  });

  after(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const cases: { args: string[]; kind: string; check: (o: any) => void }[] = [
    { args: ['create', 'configmap', 'cm1', '--from-literal=a=b'], kind: 'ConfigMap', check: (o) => assert.deepEqual(o, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', creationTimestamp: null }, data: { a: 'b' } }) },
    { args: ['create', 'secret', 'generic', 's1', '--from-literal=k=v'], kind: 'Secret', check: (o) => { assert.deepEqual(o.data, { k: Buffer.from('v').toString('base64') }); } },
    { args: ['create', 'namespace', 'ns1'], kind: 'Namespace', check: (o) => assert.equal(o.metadata.name, 'ns1') },
    { args: ['create', 'serviceaccount', 'sa1'], kind: 'ServiceAccount', check: (o) => assert.equal(o.metadata.name, 'sa1') },
    {
      args: ['create', 'deployment', 'web', '--image=nginx', '--replicas=3', '--port=80'], kind: 'Deployment', check: (o) => {
        assert.equal(o.spec.replicas, 3);
        assert.deepEqual(o.spec.selector, { matchLabels: { app: 'web' } });
        assert.deepEqual(o.spec.template.metadata.labels, { app: 'web' });
        assert.deepEqual(o.spec.template.spec.containers, [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], resources: {} }]);
        assert.deepEqual(o.spec.strategy, {});
        assert.deepEqual(o.status, {});
      },
    },
    { args: ['create', 'role', 'r1', '--verb=get,list', '--resource=pods'], kind: 'Role', check: (o) => assert.deepEqual(o.rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]) },
    {
      args: ['create', 'clusterrolebinding', 'crb1', '--clusterrole=view', '--user=alice'], kind: 'ClusterRoleBinding', check: (o) => {
        assert.deepEqual(o.roleRef, { apiGroup: names.group('rbac.authorization'), kind: 'ClusterRole', name: 'view' });
        assert.deepEqual(o.subjects, [{ kind: 'User', apiGroup: names.group('rbac.authorization'), name: 'alice' }]);
      },
    },
    {
      args: ['create', 'job', 'j1', '--image=busybox', '--', 'echo', 'hi'], kind: 'Job', check: (o) => {
        assert.equal(o.spec.template.spec.restartPolicy, 'Never');
        assert.deepEqual(o.spec.template.spec.containers[0].command, ['echo', 'hi']);
      },
    },
    {
      args: ['create', 'service', 'clusterip', 'svc1', '--tcp=80:8080'], kind: 'Service', check: (o) => {
        assert.equal(o.spec.type, 'ClusterIP');
        assert.deepEqual(o.spec.ports, [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
        assert.deepEqual(o.spec.selector, { app: 'svc1' });
      },
    },
    { args: ['create', 'quota', 'q1', '--hard=pods=3,requests.cpu=500m', '--scopes=NotTerminating'], kind: 'ResourceQuota', check: (o) => assert.deepEqual(o.spec, { hard: { pods: '3', 'requests.cpu': '500m' }, scopes: ['NotTerminating'] }) },
    { args: ['create', 'priorityclass', 'pc1', '--value=1000', '--description=high'], kind: 'PriorityClass', check: (o) => { assert.equal(o.value, 1000); assert.equal(o.description, 'high'); assert.equal(o.preemptionPolicy, 'PreemptLowerPriority'); } },
    { args: ['create', 'pdb', 'pdb1', '--selector=app=web', '--min-available=1'], kind: 'PodDisruptionBudget', check: (o) => assert.deepEqual(o.spec, { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }) },
    {
      args: ['create', 'ingress', 'ing1', '--rule=foo.com/bar=svc1:80', '--class=nginx'], kind: 'Ingress', check: (o) => {
        assert.equal(o.spec.ingressClassName, 'nginx');
        assert.deepEqual(o.spec.rules, [{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc1', port: { number: 80 } } } }] } }]);
      },
    },
    {
      args: ['create', 'cronjob', 'cj1', '--image=busybox', '--schedule=*/1 * * * *'], kind: 'CronJob', check: (o) => {
        assert.equal(o.spec.schedule, '*/1 * * * *');
        assert.equal(o.spec.jobTemplate.metadata.name, 'cj1');
        assert.equal(o.spec.jobTemplate.spec.template.spec.containers[0].image, 'busybox');
      },
    },
    {
      args: ['auth', 'can-i', 'create', 'pods'], kind: 'SelfSubjectAccessReview', check: (o) => {
        assert.deepEqual(o.spec, { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } });
        assert.deepEqual(o.status, { allowed: false });
      },
    },
    { args: ['auth', 'can-i', '--list'], kind: 'SelfSubjectRulesReview', check: (o) => assert.deepEqual(o.spec, { namespace: 'default' }) },
    { args: ['auth', 'whoami'], kind: 'SelfSubjectReview', check: (o) => assert.equal(o.apiVersion, `${names.group('authentication')}/v1`) },
    { args: ['create', 'token', 'default', '--duration=10m', '--audience=api'], kind: 'TokenRequest', check: (o) => assert.deepEqual(o.spec, { audiences: ['api'], expirationSeconds: 600 }) },
  ];

  test('every recorded body decodes with the fields kubectl set', async () => {
    const cacheDir = join(dir, 'cache');
    // four at a time: each run does discovery, and the machine is small
    for (let i = 0; i < cases.length; i += 4) {
      await Promise.all(cases.slice(i, i + 4).map((c) =>
        run(kubectl, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...c.args], { timeout: 30_000 }).catch(() => undefined)));
    }
    if (process.env.PROTOBUF_DUMP) for (const r of recorded) console.log(r.path, JSON.stringify(r.json ?? r.error));
    for (const c of cases) {
      const rec = recorded.find((r) => r.json?.kind === c.kind || (r.error && r.path.includes(c.kind.toLowerCase())));
      assert.ok(rec, `kubectl ${c.args.join(' ')}: no protobuf body recorded (recorded: ${recorded.map((r) => r.path).join(', ')})`);
      assert.equal(rec.error, undefined, `kubectl ${c.args.join(' ')}: ${rec.error}`);
      assert.deepEqual(rec.unknown, [], `kubectl ${c.args.join(' ')}: fields missing from the table`);
      assert.equal(rec.method, 'POST');
      c.check(rec.json);
    }
  });
});
