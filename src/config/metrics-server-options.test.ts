import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsServerHelp, parseMetricsServerProgram } from './metrics-server-options.js';

test('the reference metrics-server\'s flags, with its defaults for resolution and certificate directory', () => {
  const p = parseMetricsServerProgram(['--kubeconfig=/k', '--secure-port=10250', '--metric-resolution=30s', '--tls-cert-file=/c', '--tls-private-key-file=/k2']);
  assert.equal(p.kubeconfig, '/k');
  assert.equal(p.securePort, 10250);
  assert.equal(p.resolutionMs, 30_000);
  assert.deepEqual([p.tlsCertFile, p.tlsPrivateKeyFile], ['/c', '/k2']);
  const d = parseMetricsServerProgram([]);
  assert.deepEqual([d.resolutionMs, d.certDir, d.bindAddress, d.warnings], [15_000, 'apiserver.local.config/certificates', '0.0.0.0', []]);
});

test('the flags of the reference\'s own way of reaching agents are accepted with a warning; bad values are refused', () => {
  const p = parseMetricsServerProgram(['--kubelet-insecure-tls', '--kubelet-preferred-address-types=InternalIP,Hostname']);
  assert.equal(p.warnings.length, 2);
  assert.match(p.warnings[0]!, /--kubelet-insecure-tls has no effect: agents are reached through the API server's nodes\/proxy/);
  assert.throws(() => parseMetricsServerProgram(['--tls-cert-file=/c']), /--tls-cert-file and --tls-private-key-file go together/);
  assert.throws(() => parseMetricsServerProgram(['--secure-port=70000']), /secure-port/);
  assert.throws(() => parseMetricsServerProgram(['--metric-resolution=10ms']), /at least 100ms/);
  assert.throws(() => parseMetricsServerProgram(['serve']), /takes only flags/);
  assert.match(metricsServerHelp(), /--kubelet-insecure-tls/);
});
