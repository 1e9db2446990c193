// The metrics server's command line, with the reference metrics-server's flag names. It reaches the node agents
// through the API server's nodes/proxy, so the flags that say how the reference dials agents itself are accepted
// (manifests written for it keep working) and warned about as having no effect here.
import { FlagError, help, parseFlags, type FlagDecl, type FlagValue } from './flags.js';

export interface MetricsServerProgram {
  kubeconfig: string;
  bindAddress: string;
  securePort: number;
  certDir: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** how often every node is scraped */
  resolutionMs: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  warnings: string[];
  help: boolean;
}

const atLeast = (ms: number) => (v: FlagValue) => ((v as number) >= ms ? undefined : `must be at least ${ms}ms`);
const port = (v: FlagValue) => (Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535 ? undefined : 'must be a port number (0 to 65535; 0: a free one)');
const viaApiServer = 'agents are reached through the API server\'s nodes/proxy, with its agent client certificate';

const flags: readonly FlagDecl[] = [
  { name: 'kubeconfig', type: 'string', default: '', help: 'The client-configuration file with the API server\'s address and credentials (default: $KUBECONFIG, then ~/.kube/config).' },
  { name: 'bind-address', type: 'string', default: '0.0.0.0', help: 'The address to serve the resource metrics API on.' },
  { name: 'secure-port', type: 'int', default: 4443, help: 'The HTTPS port to serve on (0: a free port, printed when serving).', validate: port },
  { name: 'cert-dir', type: 'string', default: 'apiserver.local.config/certificates', help: 'Where a self-signed serving certificate is kept when --tls-cert-file is not given.' },
  { name: 'tls-cert-file', type: 'string', default: '', help: 'The serving certificate (with its intermediates).' },
  { name: 'tls-private-key-file', type: 'string', default: '', help: 'The key of --tls-cert-file.' },
  { name: 'metric-resolution', type: 'duration', default: 15_000, help: 'How often every node is scraped; CPU usage is the rate over the last two scrapes.', validate: atLeast(100) },
  { name: 'kube-api-qps', type: 'float', default: 50, help: 'Requests per second to the API server (0: unlimited).' },
  { name: 'kube-api-burst', type: 'int', default: 100, help: 'Requests that may go at once above the QPS limit.' },
  { name: 'kubelet-insecure-tls', type: 'bool', default: false, help: `Accepted for the reference's manifests; no effect: ${viaApiServer}.` },
  { name: 'kubelet-preferred-address-types', type: 'stringList', default: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'], help: `Accepted for the reference's manifests; no effect: ${viaApiServer}, which picks the address (its --kubelet-preferred-address-types).` },
  { name: 'kubelet-port', type: 'int', default: 10250, help: `Accepted for the reference's manifests; no effect: ${viaApiServer}.` },
  { name: 'kubelet-use-node-status-port', type: 'bool', default: false, help: `Accepted for the reference's manifests; no effect: ${viaApiServer}, at the port the node's status gives.` },
  { name: 'kubelet-certificate-authority', type: 'string', default: '', help: `Accepted for the reference's manifests; no effect: ${viaApiServer}.` },
  { name: 'kubelet-client-certificate', type: 'string', default: '', help: `Accepted for the reference's manifests; no effect: ${viaApiServer}.` },
  { name: 'kubelet-client-key', type: 'string', default: '', help: `Accepted for the reference's manifests; no effect: ${viaApiServer}.` },
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Log verbosity.' },
];

/** the flags that only the reference's own way of reaching agents reads */
const noEffect = flags.filter(f => f.name.startsWith('kubelet-')).map(f => f.name);

export function parseMetricsServerProgram(argv: readonly string[]): MetricsServerProgram {
  const parsed = parseFlags(flags, argv);
  if (parsed.args.length) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}: the metrics server takes only flags`);
  const v = parsed.values;
  const certFile = v['tls-cert-file'] as string, keyFile = v['tls-private-key-file'] as string;
  if (!certFile !== !keyFile) throw new FlagError('--tls-cert-file and --tls-private-key-file go together');
  return {
    kubeconfig: v.kubeconfig as string,
    bindAddress: v['bind-address'] as string,
    securePort: v['secure-port'] as number,
    certDir: v['cert-dir'] as string,
    tlsCertFile: certFile || undefined,
    tlsPrivateKeyFile: keyFile || undefined,
    resolutionMs: v['metric-resolution'] as number,
    kubeApiQps: v['kube-api-qps'] as number,
    kubeApiBurst: v['kube-api-burst'] as number,
    warnings: [...parsed.warnings, ...noEffect.filter(n => parsed.given.has(n)).map(n => `--${n} has no effect: ${viaApiServer}`)],
    help: parsed.help,
  };
}

export const metricsServerHelp = () => help(flags, { usage: 'cluster-metrics-server [--kubeconfig=FILE] [--secure-port=PORT] [flags]' });
