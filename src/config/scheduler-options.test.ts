import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiDomains, naming } from '../api/naming.js';
import { parseSchedulerProgram } from './scheduler-options.js';
import { parseApiServerOptions } from './apiserver-options.js';

const dir = mkdtempSync(join(tmpdir(), 'scheduler-options-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (text: string) => {
  const path = join(dir, `c${++files}.yaml`);
  writeFileSync(path, text);
  return path;
};
const header = (domain = apiDomains[0]) => `apiVersion: ${naming(domain).group('kubescheduler.config')}/v1\nkind: KubeSchedulerConfiguration\n`;

describe('cluster-scheduler options', () => {
  test('defaults: one profile named by --scheduler-name, leader election on the kube-scheduler lease, the reference\'s client limits', async () => {
    const { options, kubeconfig } = await parseSchedulerProgram(['--kubeconfig=k', '--scheduler-name=mine']);
    assert.equal(kubeconfig, 'k');
    assert.deepEqual(options.profiles, [{ schedulerName: 'mine' }]);
    assert.deepEqual(options.leaderElection, { enabled: true, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, resourceNamespace: '', resourceName: 'kube-scheduler' });
    assert.deepEqual([options.kubeApiQps, options.kubeApiBurst, options.podInitialBackoffSeconds, options.podMaxBackoffSeconds], [50, 100, 1, 10]);
  });

  test('the configuration file in either domain: profiles, percentage, back-off, leader election and client connection', async () => {
    for (const domain of apiDomains) {
      const path = file(`${header(domain)}percentageOfNodesToScore: 30\npodInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 20\n`
        + 'leaderElection: {leaderElect: true, leaseDuration: 30s, renewDeadline: 20s, retryPeriod: 4s, resourceName: sched, resourceNamespace: ops}\n'
        + 'clientConnection: {kubeconfig: /etc/k, qps: 200, burst: 300}\nparallelism: 16\nprofiles:\n- schedulerName: a\n- schedulerName: b\n');
      const { options, kubeconfig } = await parseSchedulerProgram([`--config=${path}`]);
      assert.equal(kubeconfig, '/etc/k');
      assert.deepEqual(options.profiles, [{ schedulerName: 'a' }, { schedulerName: 'b' }]);
      assert.equal(options.percentageOfNodesToScore, 30);
      assert.deepEqual([options.podInitialBackoffSeconds, options.podMaxBackoffSeconds, options.kubeApiQps, options.kubeApiBurst], [2, 20, 200, 300]);
      assert.deepEqual(options.leaderElection, { enabled: true, leaseDurationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 4_000, resourceNamespace: 'ops', resourceName: 'sched' });
    }
  });

  test('a v1beta3 file, deprecated but still read by the reference, is read as v1 with the reference\'s deprecation warning', async () => {
    const path = file('apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nclientConnection: {kubeconfig: /etc/k}\nprofiles:\n- schedulerName: old\n');
    const { options, warnings } = await parseSchedulerProgram([`--config=${path}`]);
    assert.deepEqual(options.profiles, [{ schedulerName: 'old' }]);
    // the in-tree cloud volume limits are still plugins of v1beta3 (this scheduler has none: they do nothing); v1 may only disable them
    const older = file('apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n');
    await parseSchedulerProgram(['--kubeconfig=k', `--config=${older}`]);
    await parseSchedulerProgram(['--kubeconfig=k', `--config=${file(`${header()}profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: EBSLimits}]\n`)}`]);
    assert.deepEqual(warnings, ['KubeSchedulerConfiguration v1beta3 is deprecated in v1.26, will be removed in v1.29']);
    // older versions the reference no longer reads are refused
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file('apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\n')}`]),
      /expected kind KubeSchedulerConfiguration/);
  });

  test('flags on the command line win over the file', async () => {
    const path = file(`${header()}leaderElection: {leaderElect: true, resourceName: from-file}\nclientConnection: {qps: 5}\n`);
    const { options } = await parseSchedulerProgram(['--kubeconfig=k', `--config=${path}`, '--leader-elect=false', '--kube-api-qps=7']);
    assert.equal(options.leaderElection.enabled, false);
    assert.equal(options.leaderElection.resourceName, 'from-file');
    assert.equal(options.kubeApiQps, 7);
  });

  test('mistakes are named', async () => {
    await assert.rejects(parseSchedulerProgram([]), /--kubeconfig .* is required/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file(`${header()}bogus: 1\n`)}`]), /unknown field bogus/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file(`${header()}leaderElection: {leaseDurations: 1s}\n`)}`]), /unknown field leaderElection.leaseDurations/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file('apiVersion: v1\nkind: Pod\n')}`]), /expected kind KubeSchedulerConfiguration/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file(`${header()}extenders: [{urlPrefix: x}]\n`)}`]), /extenders are not supported/);
    // the reference's field errors
    for (const [text, message] of [
      ['percentageOfNodesToScore: 120\n', 'percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]'],
      ['podInitialBackoffSeconds: 0\n', 'podInitialBackoffSeconds: Invalid value: 0: must be greater than 0'],
      ['podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n', 'podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds'],
      ['parallelism: 0\n', 'parallelism: Invalid value: 0: should be an integer value greater than zero'],
      ['profiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n',
        'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.cluster.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.cluster.io/v1")'],
      ['leaderElection: {resourceLock: endpoints}\n', 'leaderElection.resourceLock: Invalid value: "endpoints": resourceLock value must be "leases"'],
    ]) {
      const path = file(`${header()}${text}`);
      await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${path}`]), { message: `scheduler configuration ${path}: ${message}` });
    }
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file(`${header()}podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n`)}`]), /podMaxBackoffSeconds: Invalid value: .*: must be greater than or equal to PodInitialBackoffSeconds/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${file(`${header()}profiles: [{schedulerName: a}]\n`)}`, '--scheduler-name=b']), /set schedulerName in them/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', '--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=6s']), /lease-duration must be longer than/);
    await assert.rejects(parseSchedulerProgram(['--kubeconfig=k', `--config=${join(dir, 'missing.yaml')}`]), /cannot read it/);
  });

  test('inside the API server: on by default with the shared leader-election flags, the scheduler\'s own lease and no request limit', () => {
    const on = parseApiServerOptions(['--leader-elect-retry-period=1s']).options.scheduler!;
    assert.equal(on.configFile, undefined);
    assert.equal(on.flagValues['leader-elect-resource-name'], 'kube-scheduler');
    assert.equal(on.flagValues['leader-elect-retry-period'], 1000);
    assert.equal(on.flagValues['kube-api-qps'], 0);
    assert.equal(parseApiServerOptions(['--scheduler=false']).options.scheduler, undefined);
    assert.equal(parseApiServerOptions(['--scheduler-config=/x.yaml']).options.scheduler!.configFile, '/x.yaml');
  });
});
