// The controller manager and the scheduler on threads of their own: a component that starts works as in the server's
// thread, one whose thread dies is started again after a pause that doubles, and a stop ends either at once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startComponentThread } from '../../src/main/component-thread.js';
import { parseApiServerOptions } from '../../src/config/apiserver-options.js';
import { createCertificateAuthority } from '../../src/pki/certificates.js';
import { resourceRef } from '../../src/client/rest-client.js';
import { startTestServer } from '../../src/testing.js';
import { startApiServer } from '../../src/main/apiserver.js';
import { waitFor } from '../support/wait.js';

/** the scheduler's options as the server's flags give them */
const schedulerOptions = parseApiServerOptions(['--scheduler=true']).options.scheduler!;

const lines = () => {
  const seen: string[] = [];
  return { seen, log: { info: (m: string) => seen.push(m), warn: (m: string) => seen.push(m), error: (m: string) => seen.push(m) } };
};

describe('components on threads of their own', () => {
  test('a scheduler on its thread becomes ready, takes its lease, and stops', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'component-thread-'));
    const server = await startTestServer({ dataDir: dir });
    try {
      const { seen, log } = lines();
      const ca = { certPem: readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'), keyPem: readFileSync(join(dir, 'pki', 'ca.key'), 'utf8') };
      const thread = startComponentThread({ kind: 'scheduler', url: server.url, ca, domain: server.names.domain, options: schedulerOptions }, log);
      await thread.ready;
      const leases = server.client.resource(resourceRef<{ spec?: { holderIdentity?: string } }>(server.names.group('coordination'), 'v1', 'leases', 'Lease'), server.names.systemNamespace);
      const lease = await waitFor('the scheduler\'s lease', async () => (await leases.get('kube-scheduler').catch(() => undefined))?.spec?.holderIdentity, 30_000);
      assert.ok(lease);
      assert.ok(seen.some((l) => /became the leader/.test(l)), seen.join('\n'));
      await thread.stop();
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a thread that dies is started again after 1 s, then 2 s; a stop between two lives returns at once', { timeout: 60_000 }, async () => {
    const { seen, log } = lines();
    // a scheduler configuration file that does not exist: the thread's start throws
    const thread = startComponentThread({ kind: 'scheduler', url: 'https://127.0.0.1:1', ca: createCertificateAuthority('test', 3600), domain: 'cluster.io',
      options: { ...schedulerOptions, configFile: '/nonexistent/scheduler-config.yaml' } }, log);
    await waitFor('two restarts', () => seen.filter((l) => /its thread ended/.test(l)).length >= 2, 30_000);
    const ended = seen.filter((l) => /its thread ended/.test(l));
    assert.match(ended[0], /^scheduler: its thread ended \(.*scheduler-config\.yaml.*\); starting it again in 1 s$/s);
    assert.match(ended[1], /starting it again in 2 s$/);
    await thread.stop();
    const count = seen.length;
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(seen.length, count, 'nothing started after the stop');
  });

  test('a --scheduler-config the scheduler refuses stops the server\'s start, rather than ending the scheduler\'s thread again and again', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'component-thread-'));
    const file = join(dir, 'scheduler.yaml');
    writeFileSync(file, 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    filter:\n      enabled: [{name: NoSuchPlugin}]\n');
    const { options } = parseApiServerOptions(['--secure-port=0', '--bind-address=127.0.0.1', '--storage-backend=memory', `--data-dir=${dir}`,
      '--controller-manager=false', '--metrics-server=false', `--scheduler-config=${file}`]);
    const { seen, log } = lines();
    try {
      const started = startApiServer(options, log, { componentThreads: true });
      await assert.rejects(started.then((s) => s.shutdown()), /NoSuchPlugin/);
      assert.equal(seen.filter((l) => /its thread ended/.test(l)).length, 0, seen.join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
