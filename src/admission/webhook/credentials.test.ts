import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookCredentials } from './credentials.js';
import { defaultApiDomain, naming } from '../../api/naming.js';
import { loadYaml } from '../../util/yaml.js';

const names = naming(defaultApiDomain);
const config = (kubeConfigFile: string, kind = 'WebhookAdmissionConfiguration', version = 'v1') =>
  ({ apiVersion: `${names.group('apiserver.config')}/${version}`, kind, kubeConfigFile });

/** a client configuration file with these users, in a folder of its own */
function usersFile(users: Array<{ name: string; user: Record<string, unknown> }>) {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-credentials-'));
  const file = join(dir, 'webhooks.kubeconfig');
  writeFileSync(file, `apiVersion: v1\nkind: Config\nusers: ${JSON.stringify(users)}\n`);
  return { dir, file, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

test('a webhook gets the user named after it: exact, then the closest *. entry, then the same without port 443, then *', async () => {
  await loadYaml();
  const token = (t: string) => ({ token: t });
  using f = usersFile([
    { name: 'hooks.team.svc', user: token('exact') }, { name: '*.team.svc', user: token('team') },
    { name: '*.svc:8443', user: token('port-8443') }, { name: '10.0.0.1:9443', user: token('by-url') },
    { name: 'basic.example.com', user: { username: 'ann', password: 'pw' } }, { name: '*', user: token('default') },
  ]);
  const lookup = webhookCredentials('ValidatingAdmissionWebhook', config(f.file), undefined, names)!;
  const auth = (target: string) => lookup(target)?.authorization;
  assert.equal(auth('hooks.team.svc'), 'Bearer exact');
  assert.equal(auth('other.team.svc'), 'Bearer team');
  assert.equal(auth('other.team.svc:8443'), 'Bearer port-8443');
  assert.equal(auth('other.team.svc:443'), 'Bearer team', 'port 443 is the same webhook as no port');
  assert.equal(auth('10.0.0.1:9443'), 'Bearer by-url');
  assert.equal(auth('10.0.0.1'), 'Bearer default');
  assert.equal(auth('basic.example.com'), `Basic ${Buffer.from('ann:pw').toString('base64')}`);
  // the older kind and version are read the same way; a relative file is found beside the configuration
  const older = webhookCredentials('MutatingAdmissionWebhook', config('webhooks.kubeconfig', 'WebhookAdmission', 'v1alpha1'), join(f.dir, 'admission.yaml'), names)!;
  assert.equal(older('anything')?.authorization, 'Bearer default');
});

test('no kubeConfigFile is no credentials; a wrong kind, an exec user or a certificate without its key stop the server with the reason', async () => {
  await loadYaml();
  assert.equal(webhookCredentials('ValidatingAdmissionWebhook', undefined, undefined, names), undefined);
  assert.equal(webhookCredentials('ValidatingAdmissionWebhook', config(''), undefined, names), undefined);
  assert.throws(() => webhookCredentials('ValidatingAdmissionWebhook', { ...config('x'), kind: 'Other' }, undefined, names), /ValidatingAdmissionWebhook: expected a WebhookAdmissionConfiguration/);
  using exec = usersFile([{ name: '*', user: { exec: { command: 'get-token' } } }]);
  assert.throws(() => webhookCredentials('ValidatingAdmissionWebhook', config(exec.file), undefined, names), /exec credential plugins are not supported/);
  using half = usersFile([{ name: '*', user: { 'client-certificate-data': Buffer.from('x').toString('base64') } }]);
  assert.throws(() => webhookCredentials('ValidatingAdmissionWebhook', config(half.file), undefined, names), /needs its key/);
  assert.throws(() => webhookCredentials('ValidatingAdmissionWebhook', config('/nonexistent/file'), undefined, names), /kubeConfigFile \/nonexistent\/file: ENOENT/);
});
