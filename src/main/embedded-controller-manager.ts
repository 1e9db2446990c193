// The controller manager inside the API server's process: a client like any other, over HTTPS to the
// server's own address, with the reference's controller-manager identity. Also the one mapping from the
// parsed flags to the manager's start options, which the program shares.
import { controllerEnabled, type ControllerManagerOptions } from '../config/controller-manager-options.js';
import { startControllerManager, type Logger, type RunningControllerManager, type StartControllerManagerOptions } from '../controllers/manager.js';
import { controllers } from '../controllers/registry.js';
import { loopbackClient, type Loopback } from './loopback.js';

export const controllerManagerUser = 'system:kube-controller-manager';

/** the manager's settings from the flags: `--controllers` resolved to the names of the controllers to run */
export function controllerManagerSettings(o: ControllerManagerOptions): Omit<StartControllerManagerOptions, 'client' | 'log'> {
  return {
    controllers: controllers.map((c) => c.name)
      .filter((name) => controllerEnabled(name, o.controllers) && (name !== 'garbagecollector' || o.enableGarbageCollector)),
    concurrency: o.concurrency,
    leaderElection: o.leaderElection,
    kubeApiQps: o.kubeApiQps,
    kubeApiBurst: o.kubeApiBurst,
    useServiceAccountCredentials: o.useServiceAccountCredentials,
    minResyncPeriodMs: o.minResyncPeriodMs,
  };
}

export function startEmbeddedControllerManager(o: Loopback & { options: ControllerManagerOptions; log: Logger }): RunningControllerManager {
  const client = loopbackClient(o, controllerManagerUser, { qps: o.options.kubeApiQps, burst: o.options.kubeApiBurst, userAgent: 'cluster-controller-manager' });
  // the informers' lists and watches are served by this process's watch cache: no client-side limit on them
  const informerClient = client.withLimits({ qps: 0 });
  const manager = startControllerManager({ ...controllerManagerSettings(o.options), client, informerClient, names: o.names, log: o.log });
  return {
    ...manager,
    async stop() {
      await manager.stop();
      client.close();
    },
  };
}
