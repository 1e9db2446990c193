// The controller manager inside the API server's process: a client like any other, over HTTPS to the
// server's own address, with the reference's controller-manager identity. Also the one mapping from the
// parsed flags to the manager's start options, which the program shares.
import { readFileSync } from 'node:fs';
import { controllerEnabled, signerSuffixes, type ControllerManagerOptions } from '../config/controller-manager-options.js';
import type { ControllerSettings } from '../controllers/context.js';
import { startControllerManager, type Logger, type RunningControllerManager, type StartControllerManagerOptions } from '../controllers/manager.js';
import { controllers } from '../controllers/registry.js';
import { loopbackClient, type Loopback } from './loopback.js';

export const controllerManagerUser = 'system:kube-controller-manager';

/**
 * The controllers' settings from the flags, the files they name read; `defaultCa` signs for the signers the
 * flags give no CA (the API server's own CA inside its process, none in the separate program).
 */
export function controllerSettings(o: ControllerManagerOptions, defaultCa?: { certPem: string; keyPem: string }, defaultServiceAccountKeyPem?: string): Partial<ControllerSettings> {
  const read = (f: string) => readFileSync(f, 'utf8');
  const generic = o.clusterSigning.certFile && o.clusterSigning.keyFile
    ? { certPem: read(o.clusterSigning.certFile), keyPem: read(o.clusterSigning.keyFile) } : defaultCa;
  const signers: ControllerSettings['signers'] = {};
  for (const suffix of signerSuffixes) {
    const own = o.clusterSigning.perSigner[suffix];
    const ca = own ? { certPem: read(own.certFile), keyPem: read(own.keyFile) } : generic;
    if (ca) signers[suffix] = ca;
  }
  return {
    nodeMonitorPeriodMs: o.nodeMonitorPeriodMs, nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriodMs, nodeStartupGracePeriodMs: o.nodeStartupGracePeriodMs,
    nodeEvictionRate: o.nodeEvictionRate, secondaryNodeEvictionRate: o.secondaryNodeEvictionRate,
    unhealthyZoneThreshold: o.unhealthyZoneThreshold, largeClusterSizeThreshold: o.largeClusterSizeThreshold,
    terminatedPodGcThreshold: o.terminatedPodGcThreshold, hostPathProvisioner: o.enableHostPathProvisioner, maxEndpointsPerSlice: o.maxEndpointsPerSlice, mirroringMaxEndpointsPerSubset: o.mirroringMaxEndpointsPerSubset, resourceQuotaSyncPeriodMs: o.resourceQuotaSyncPeriodMs,
    ...(o.rootCaFile ? { rootCaPem: read(o.rootCaFile) } : {}),
    signers, clusterSigningDurationMs: o.clusterSigningDurationMs,
    hpaSyncPeriodMs: o.hpaSyncPeriodMs,
    ...(o.nodeIpam ? { nodeIpam: o.nodeIpam } : {}),
    ...(o.serviceAccountPrivateKeyFile ? { serviceAccountKeyPem: read(o.serviceAccountPrivateKeyFile) }
      : defaultServiceAccountKeyPem ? { serviceAccountKeyPem: defaultServiceAccountKeyPem } : {}),
  };
}

/** the manager's settings from the flags: `--controllers` resolved to the names of the controllers to run */
export function controllerManagerSettings(o: ControllerManagerOptions, defaultCa?: { certPem: string; keyPem: string }, defaultServiceAccountKeyPem?: string): Omit<StartControllerManagerOptions, 'client' | 'log'> {
  return {
    settings: controllerSettings(o, defaultCa, defaultServiceAccountKeyPem),
    controllers: controllers.map((c) => c.name)
      .filter((name) => controllerEnabled(name, o.controllers) && (name !== 'garbagecollector' || o.enableGarbageCollector)
        // as the reference: the nodeipam controller runs only with --allocate-node-cidrs
        && (name !== 'nodeipam' || !!o.nodeIpam)),
    concurrency: o.concurrency,
    leaderElection: o.leaderElection,
    kubeApiQps: o.kubeApiQps,
    kubeApiBurst: o.kubeApiBurst,
    useServiceAccountCredentials: o.useServiceAccountCredentials,
    minResyncPeriodMs: o.minResyncPeriodMs,
  };
}

export function startEmbeddedControllerManager(o: Loopback & { options: ControllerManagerOptions; log: Logger; serviceAccountKeyPem?: string }): RunningControllerManager {
  const client = loopbackClient(o, controllerManagerUser, { qps: o.options.kubeApiQps, burst: o.options.kubeApiBurst, userAgent: 'cluster-controller-manager' });
  // the informers' lists and watches are served by this process's watch cache: no client-side limit on them
  const informerClient = client.withLimits({ qps: 0 });
  const manager = startControllerManager({ ...controllerManagerSettings(o.options, o.ca, o.serviceAccountKeyPem), client, informerClient, names: o.names, log: o.log });
  return {
    ...manager,
    async stop() {
      await manager.stop();
      client.close();
    },
  };
}
