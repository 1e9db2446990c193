// The HTTPS port of a component (controller manager, scheduler) as the reference's components serve one: where it
// listens, its certificate, and the clients its delegated authentication and authorization go through.
import { FlagError, type FlagDecl, type FlagValue } from './flags.js';

export interface ServingOptions {
  bindAddress: string;
  /** 0: nothing is served */
  securePort: number;
  certFile?: string;
  keyFile?: string;
  certDir?: string;
  clientCaFile?: string;
  authenticationKubeconfig?: string;
  authorizationKubeconfig?: string;
}

const proxyHeaders = 'Accepted; the HTTPS port trusts no authenticating proxy\'s headers.';

/** the serving flags of a component whose port is `defaultPort` (the reference's: 10257, 10259) */
export const servingFlags = (defaultPort: number): FlagDecl[] => [
  { name: 'bind-address', type: 'string', default: '0.0.0.0', help: 'The address the HTTPS port (--secure-port) listens on. 0.0.0.0 or :: means all interfaces.' },
  { name: 'secure-port', type: 'int', default: defaultPort, help: 'The HTTPS port serving /healthz, /livez and /readyz to anyone and /metrics to users the API server authorizes. 0: none.', validate: (v) => ((v as number) >= 0 && (v as number) <= 65535 ? undefined : 'must be from 0 to 65535') },
  { name: 'authentication-kubeconfig', type: 'string', default: '', help: 'The client configuration with which bearer tokens of the HTTPS port\'s clients are checked by TokenReview. Empty: tokens are refused.' },
  { name: 'authorization-kubeconfig', type: 'string', default: '', help: 'The client configuration with which the HTTPS port\'s clients are authorized by SubjectAccessReview. Empty: only /healthz, /livez and /readyz answer.' },
  { name: 'client-ca-file', type: 'string', default: '', help: 'The CA bundle client certificates of the HTTPS port are checked against.' },
  { name: 'requestheader-client-ca-file', type: 'string', default: '', help: `CA of an authenticating proxy in front of the serving port. ${proxyHeaders}` },
  { name: 'requestheader-allowed-names', type: 'stringList', default: [], help: `Common names an authenticating proxy's certificate may have. ${proxyHeaders}` },
  { name: 'requestheader-username-headers', type: 'stringList', default: ['x-remote-user'], help: `Headers that carry the user name. ${proxyHeaders}` },
  { name: 'requestheader-group-headers', type: 'stringList', default: ['x-remote-group'], help: `Headers that carry groups. ${proxyHeaders}` },
  { name: 'requestheader-extra-headers-prefix', type: 'stringList', default: ['x-remote-extra-'], help: `Header prefixes of extra attributes. ${proxyHeaders}` },
  { name: 'tls-cert-file', type: 'string', default: '', help: 'The HTTPS port\'s certificate (PEM). Without it a self-signed one is made in --cert-dir.' },
  { name: 'tls-private-key-file', type: 'string', default: '', help: 'The private key (PEM) of --tls-cert-file.' },
  { name: 'cert-dir', type: 'string', default: '', help: 'Where a self-signed serving certificate is kept. Default: a folder under the system\'s temporary directory.' },
];

export function servingOptionsFrom(v: Record<string, FlagValue | undefined>): ServingOptions {
  const certFile = (v['tls-cert-file'] as string) || undefined, keyFile = (v['tls-private-key-file'] as string) || undefined;
  if (!certFile !== !keyFile) throw new FlagError('flags --tls-cert-file and --tls-private-key-file must be given together');
  return {
    bindAddress: v['bind-address'] as string, securePort: v['secure-port'] as number, certFile, keyFile,
    certDir: (v['cert-dir'] as string) || undefined,
    clientCaFile: (v['client-ca-file'] as string) || undefined,
    authenticationKubeconfig: (v['authentication-kubeconfig'] as string) || undefined,
    authorizationKubeconfig: (v['authorization-kubeconfig'] as string) || undefined,
  };
}
