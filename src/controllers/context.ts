// What a controller is given and what it is: the contract between the controller manager and each controller.
import type { Naming } from '../api/naming.js';
import type { Client } from '../client/rest-client.js';
import type { InformerFactory } from '../client/informer.js';
import type { EventRecorder } from '../client/events.js';
import type { DiscoveredResource, DiscoveryFailure } from '../client/discovery.js';
import type { QueueObserver, WorkQueue } from '../client/workqueue.js';
import type { Refs } from './types.js';

/**
 * Settings of individual controllers, from the controller manager's flags (main maps them; controllers read no
 * files). A controller whose required setting is absent is not started, as in the reference.
 */
export interface ControllerSettings {
  /** the CA bundle published in every namespace (`--root-ca-file`, else the CA of the manager's client) */
  rootCaPem?: string;
  /** how often node health is looked at (`--node-monitor-period`) */
  nodeMonitorPeriodMs: number;
  /** a node not heard from (Lease or status) for this long is Unknown (`--node-monitor-grace-period`) */
  nodeMonitorGracePeriodMs: number;
  /** the same for a node that has never reported Ready (`--node-startup-grace-period`) */
  nodeStartupGracePeriodMs: number;
  /** nodes a second per zone that get the NoExecute taint of a Ready condition not True (`--node-eviction-rate`) */
  nodeEvictionRate: number;
  /** the same in a zone mostly not Ready that has more nodes than largeClusterSizeThreshold (`--secondary-node-eviction-rate`) */
  secondaryNodeEvictionRate: number;
  /** the share of nodes not Ready (of more than 2) that puts a zone in partial disruption (`--unhealthy-zone-threshold`) */
  unhealthyZoneThreshold: number;
  /** a zone in partial disruption with at most this many nodes gets no new NoExecute taints (`--large-cluster-size-threshold`) */
  largeClusterSizeThreshold: number;
  /** finished pods beyond this many are deleted, oldest first; 0: never (`--terminated-pod-gc-threshold`) */
  terminatedPodGcThreshold: number;
  /** claims of a class provisioned by `<label domain>/host-path` get a hostPath volume (`--enable-hostpath-provisioner`) */
  hostPathProvisioner: boolean;
  /** how often every quota's usage is recomputed besides the changes seen (`--resource-quota-sync-period`) */
  resourceQuotaSyncPeriodMs: number;
  /** endpoints per EndpointSlice (`--max-endpoints-per-slice`) */
  maxEndpointsPerSlice: number;
  /** endpoints mirrored of each Endpoints subset, and per mirrored slice (`--mirroring-max-endpoints-per-subset`) */
  mirroringMaxEndpointsPerSubset: number;
  /** the CA of each signer the csrsigning controller serves, by the name after `<domain>/` (`--cluster-signing-*`) */
  signers: Record<string, { certPem: string; keyPem: string }>;
  /** the longest life of a signed certificate (`--cluster-signing-duration`) */
  clusterSigningDurationMs: number;
  /** the key legacy service-account tokens are signed with (`--service-account-private-key-file`); none: not started */
  serviceAccountKeyPem?: string;
  /** node CIDR allocation (`--allocate-node-cidrs`); none: the nodeipam controller does not run */
  nodeIpam?: NodeIpamSettings;
  /** how often each HorizontalPodAutoscaler is looked at (`--horizontal-pod-autoscaler-sync-period`) */
  hpaSyncPeriodMs: number;
}

/** The node CIDR allocator's configuration, from --cluster-cidr, --node-cidr-mask-size* and --service-cluster-ip-range. */
export interface NodeIpamSettings {
  /** one per IP family; a node gets one CIDR of each, in this order */
  clusterCidrs: string[];
  /** the node CIDR prefix length for each cluster CIDR */
  nodeMaskSizes: number[];
  /** kept out of the node CIDRs where they overlap a cluster CIDR */
  serviceCidrs: string[];
}

export const defaultControllerSettings = (): ControllerSettings => ({
  nodeMonitorPeriodMs: 5_000, nodeMonitorGracePeriodMs: 40_000, nodeStartupGracePeriodMs: 60_000,
  nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, unhealthyZoneThreshold: 0.55, largeClusterSizeThreshold: 50,
  terminatedPodGcThreshold: 12_500, hostPathProvisioner: false, maxEndpointsPerSlice: 100, mirroringMaxEndpointsPerSubset: 1000, resourceQuotaSyncPeriodMs: 5 * 60_000, signers: {}, clusterSigningDurationMs: 365 * 24 * 3_600_000, hpaSyncPeriodMs: 15_000,
});

export interface Logger { info(m: string): void; warn(m: string): void; error(m: string): void }

/** What a controller gets: clients, the shared informers, an event recorder, its worker count. */
export interface ControllerContext {
  name: string;
  /** the client its writes go through (its own service account's with --use-service-account-credentials) */
  client: Client;
  informers: InformerFactory;
  refs: Refs;
  names: Naming;
  recorder: EventRecorder;
  /** aborts when the controller manager stops or loses leadership */
  signal: AbortSignal;
  /** how many keys it works on at once (`--concurrent-*-syncs`) */
  workers: number;
  log: Logger;
  /** resolves once the informers this controller asked for while starting have listed */
  synced: Promise<void>;
  settings: ControllerSettings;
  /** the server's resources (discovery, shared between controllers and read again at most every few seconds, or when
   *  the one at hand began before `notBefore`, a time in ms) */
  discover(notBefore?: number): Promise<DiscoveredResource[]>;
  /** the group versions that same discovery could not learn (an aggregated API the server cannot reach) */
  discoveryFailures(notBefore?: number): Promise<DiscoveryFailure[]>;
  /** what the controller's work queue tells, for metrics; absent when nothing collects them */
  observeQueue?: (name: string, queue: () => WorkQueue<string>) => QueueObserver;
}

/** One controller: `start` registers informers and handlers and starts its workers once `ctx.synced` resolves. */
export interface Controller {
  name: string;
  /** the reference's component name for events, e.g. `deployment-controller` */
  component?: string;
  /** the service account it acts as with --use-service-account-credentials; `null`: it keeps the controller
   *  manager's own credentials even then (the token controller, which no token of its own could start) */
  serviceAccount?: string | null;
  start(ctx: ControllerContext): { ready?: Promise<void> } | void;
}
