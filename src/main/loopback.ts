// A client of the API server's own address for a component it runs in its process (the controller
// manager, the scheduler): HTTPS like any other client, with a client certificate the server issues
// from its CA for the component's reference identity, held in memory only.
import type { Naming } from '../api/naming.js';
import { createClient, type Client, type ClientOptions } from '../client/rest-client.js';
import { issueClientCertificate, type CertificateAuthority } from '../pki/pki.js';

/**
 * The name the server's own clients ask for by SNI: the server answers it with the certificate from its own CA even when
 * --tls-cert-file names one from another CA (kubeadm's), so its clients need no other trust (the reference's name)
 */
export const loopbackServerName = 'apiserver-loopback-client';

export interface Loopback {
  /** the server's URL */
  url: string;
  ca: CertificateAuthority;
  names: Naming;
}

export function loopbackClient(server: Loopback, user: string, opts: ClientOptions = {}, groups: readonly string[] = []): Client {
  const { certPem, keyPem } = issueClientCertificate(server.ca, user, groups);
  return createClient({
    contextName: user, clusterName: server.names.vendor, userName: user,
    server: server.url, caPem: server.ca.certPem, certPem, keyPem, tlsServerName: loopbackServerName,
  }, opts);
}
