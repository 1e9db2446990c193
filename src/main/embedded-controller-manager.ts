// The controller manager inside the API server's process: a client like any other, over HTTPS to the
// server's own address, with a client certificate the server issues from its CA for the reference's
// controller-manager identity.
import type { Naming } from '../api/naming.js';
import type { ControllerManagerOptions } from '../config/controller-manager-options.js';
import { createClient } from '../client/rest-client.js';
import { issueClientCertificate, type CertificateAuthority } from '../pki/pki.js';
import { startControllerManager, type Logger, type RunningControllerManager } from '../controllers/manager.js';

export const controllerManagerUser = 'system:kube-controller-manager';

export function startEmbeddedControllerManager(o: {
  url: string; ca: CertificateAuthority; names: Naming; options: ControllerManagerOptions; log: Logger;
}): RunningControllerManager {
  const { certPem, keyPem } = issueClientCertificate(o.ca, controllerManagerUser);
  const client = createClient({
    contextName: 'controller-manager', clusterName: o.names.vendor, userName: controllerManagerUser,
    server: o.url, caPem: o.ca.certPem, certPem, keyPem,
  }, { qps: o.options.kubeApiQps, burst: o.options.kubeApiBurst, userAgent: 'cluster-controller-manager' });
  const manager = startControllerManager({ ...o.options, client, names: o.names, log: o.log });
  return {
    ...manager,
    async stop() {
      await manager.stop();
      client.close();
    },
  };
}
