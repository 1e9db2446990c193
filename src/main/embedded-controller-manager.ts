// The controller manager inside the API server's process: a client like any other, over HTTPS to the
// server's own address, with the reference's controller-manager identity.
import type { ControllerManagerOptions } from '../config/controller-manager-options.js';
import { startControllerManager, type Logger, type RunningControllerManager } from '../controllers/manager.js';
import { loopbackClient, type Loopback } from './loopback.js';

export const controllerManagerUser = 'system:kube-controller-manager';

export function startEmbeddedControllerManager(o: Loopback & { options: ControllerManagerOptions; log: Logger }): RunningControllerManager {
  const client = loopbackClient(o, controllerManagerUser, { qps: o.options.kubeApiQps, burst: o.options.kubeApiBurst, userAgent: 'cluster-controller-manager' });
  // the informers' lists and watches are served by this process's watch cache: no client-side limit on them
  const informerClient = client.withLimits({ qps: 0 });
  const manager = startControllerManager({ ...o.options, client, informerClient, names: o.names, log: o.log });
  return {
    ...manager,
    async stop() {
      await manager.stop();
      client.close();
    },
  };
}
