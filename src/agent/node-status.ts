// The node: registration with the API server, its status (addresses, capacity, allocatable after
// reserved resources and the hard memory threshold, node info, images, conditions) posted every
// --node-status-update-frequency, and the Lease renewed in the node-lease namespace.

import { readFileSync, statfsSync, existsSync } from 'node:fs';
import { cpus, hostname, networkInterfaces, release, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { Naming } from '../api/naming.js';
import { isAlreadyExists, isConflict, isNotFound, type Client } from '../client/rest-client.js';
import { timestamp } from './pod-status.js';
import type { Taint, Threshold } from './quantity.js';
import type { ContainerRuntime } from './runtime/types.js';
import type { Recorder } from './events.js';
import { withoutManagedFields } from './objects.js';
import { ensureCSINode } from './csinode.js';
import type { ContainerImage, Node, NodeCondition, NodeSystemInfo } from './objects.js';
import type { Lease } from '../api/types/coordination-v1.js';

export const agentVersion = 'v1.27.0';
export const nodesRef = { group: '', version: 'v1', resource: 'nodes' };
export const leasesRef = (names: Naming) => ({ group: names.group('coordination'), version: 'v1', resource: 'leases' });

export interface NodeSettings {
  names: Naming;
  nodeName: string;
  labels: Record<string, string>;
  taints: Taint[];
  schedulable: boolean;
  nodeIps: string[];
  providerId?: string;
  podCidr?: string;
  maxPods: number;
  podsPerCore: number;
  systemReserved: Record<string, number>;
  clusterReserved: Record<string, number>;
  evictionHard: Threshold[];
  maxImages: number;
  rootDir: string;
  /** --port: where the API server reaches the agent's server (logs, exec, statistics) */
  serverPort: number;
  /** simulated nodes report no pressure and fixed machine ids */
  simulated: boolean;
  /** simulated nodes: capacity by resource (cpu in cores), over the defaults of 8 CPUs, 32Gi memory and 100Gi storage */
  simulatedCapacity?: Record<string, number>;
  /** simulated nodes: annotations from the node template */
  annotations?: Record<string, string>;
  /** --experimental-allocatable-ignore-eviction: hard eviction thresholds stay in allocatable */
  allocatableIgnoresEviction?: boolean;
  /** --local-storage-capacity-isolation: ephemeral storage is a resource of the node */
  localStorage?: boolean;
  /** --enable-controller-attach-detach: the attach/detach controller manages the node's volumes */
  controllerAttachDetach?: boolean;
  /** --cloud-provider=external: the node waits for its cloud controller (an uninitialized taint) */
  externalCloudProvider?: boolean;
}

export interface Pressure {
  memory: boolean;
  disk: boolean;
  pid: boolean;
}

const arch = () => ({ x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' })[process.arch as string] ?? process.arch;
const readText = (path: string) => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
};

export function hostIP(nodeIps: string[]): string {
  if (nodeIps[0]) return nodeIps[0];
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

/** Measured signals of the eviction thresholds, in bytes and counts. */
export function observeSignals(rootDir: string): Record<string, { available: number; capacity: number }> {
  const meminfo = readText('/proc/meminfo');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(meminfo)?.[1] ?? 0) * 1024;
  let dir = rootDir;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const fs = statfsSync(dir);
  const pidMax = Number(readText('/proc/sys/kernel/pid_max')) || 32768;
  const procs = Number(readText('/proc/loadavg').split(' ')[3]?.split('/')[1] ?? 0);
  return {
    'memory.available': { available: kb('MemAvailable'), capacity: kb('MemTotal') || totalmem() },
    'nodefs.available': { available: fs.bavail * fs.bsize, capacity: fs.blocks * fs.bsize },
    'nodefs.inodesFree': { available: fs.ffree, capacity: fs.files },
    'imagefs.available': { available: fs.bavail * fs.bsize, capacity: fs.blocks * fs.bsize },
    'imagefs.inodesFree': { available: fs.ffree, capacity: fs.files },
    'pid.available': { available: pidMax - procs, capacity: pidMax },
  };
}

export function capacity(s: NodeSettings): Record<string, number> {
  const sim = s.simulatedCapacity ?? {};
  const cores = s.simulated ? sim.cpu ?? 8 : cpus().length;
  const memory = s.simulated ? sim.memory ?? 32 * 2 ** 30 : totalmem();
  let storage = sim['ephemeral-storage'] ?? 100 * 2 ** 30;
  if (!s.simulated) {
    try {
      let dir = s.rootDir;
      while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
      const fs = statfsSync(dir);
      storage = fs.blocks * fs.bsize;
    } catch {}
  }
  const pods = sim.pods ?? (s.podsPerCore > 0 ? Math.min(s.maxPods, Math.floor(s.podsPerCore * cores)) : s.maxPods);
  const extra = Object.fromEntries(Object.entries(sim).filter(([k]) => !['cpu', 'memory', 'ephemeral-storage', 'pods'].includes(k)));
  const ephemeral: Record<string, number> = s.localStorage === false ? {} : { 'ephemeral-storage': storage };
  return { cpu: cores, memory, ...ephemeral, pods, 'hugepages-2Mi': 0, 'hugepages-1Gi': 0, ...extra };
}

function format(resource: string, value: number): string {
  if (resource === 'cpu') return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`;
  if (resource === 'memory' && value % 1024 === 0) return `${value / 1024}Ki`;
  return String(Math.max(0, Math.floor(value)));
}

/** allocatable by resource as numbers: capacity less the reserved amounts and the hard eviction thresholds */
export function allocatableAmounts(s: NodeSettings): Record<string, number> {
  const cap = capacity(s);
  const alloc: Record<string, number> = { ...cap };
  for (const reserved of [s.systemReserved, s.clusterReserved]) for (const [k, v] of Object.entries(reserved)) if (k in alloc) alloc[k] = alloc[k]! - v;
  for (const t of s.allocatableIgnoresEviction ? [] : s.evictionHard) {
    if (t.signal === 'memory.available') alloc.memory = alloc.memory! - (t.quantity ?? (t.percentage ?? 0) * cap.memory!);
    if (t.signal === 'nodefs.available' && 'ephemeral-storage' in alloc) alloc['ephemeral-storage'] = alloc['ephemeral-storage']! - (t.quantity ?? (t.percentage ?? 0) * cap['ephemeral-storage']!);
  }
  for (const k of Object.keys(alloc)) alloc[k] = Math.max(0, alloc[k]!);
  return alloc;
}

export function capacityAndAllocatable(s: NodeSettings): { capacity: Record<string, string>; allocatable: Record<string, string> } {
  const cap = capacity(s);
  const alloc = allocatableAmounts(s);
  const render = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, format(k, Math.max(0, v))]));
  return { capacity: render(cap), allocatable: render(alloc) };
}

export function defaultLabels(s: NodeSettings): Record<string, string> {
  const n = s.names;
  return {
    [`beta.${n.label('arch')}`]: arch(), [`beta.${n.label('os')}`]: 'linux',
    [n.label('arch')]: arch(), [n.label('hostname')]: s.nodeName, [n.label('os')]: 'linux',
    ...s.labels,
  };
}

export function initialNode(s: NodeSettings): Node {
  // a node of an external cloud provider is tainted until the cloud's controller has initialized it
  const taints = [...s.taints, ...(s.externalCloudProvider ? [{ key: `node.cloudprovider.${s.names.labelDomain}/uninitialized`, value: 'true', effect: 'NoSchedule' as const }] : [])];
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: s.nodeName, labels: defaultLabels(s),
      annotations: { ...s.annotations, ...(s.controllerAttachDetach === false ? {} : { [`volumes.${s.names.labelDomain}/controller-managed-attach-detach`]: 'true' }) },
    },
    spec: {
      ...(s.schedulable ? {} : { unschedulable: true }),
      ...(taints.length ? { taints } : {}),
      ...(s.podCidr ? { podCIDR: s.podCidr, podCIDRs: [s.podCidr] } : {}),
      ...(s.providerId ? { providerID: s.providerId } : {}),
    },
  };
}

function condition(type: string, status: string, reason: string, message: string, old: NodeCondition[], now: string): NodeCondition {
  const prior = old.find((c) => c.type === type);
  return { type, status, lastHeartbeatTime: now, lastTransitionTime: prior?.status === status ? prior.lastTransitionTime : now, reason, message };
}

export function nodeConditions(old: NodeCondition[], ready: { ok: boolean; message?: string }, pressure: Pressure): NodeCondition[] {
  const now = timestamp(Date.now());
  return [
    condition('MemoryPressure', pressure.memory ? 'True' : 'False', pressure.memory ? 'KubeletHasInsufficientMemory' : 'KubeletHasSufficientMemory', pressure.memory ? 'kubelet has insufficient memory available' : 'kubelet has sufficient memory available', old, now),
    condition('DiskPressure', pressure.disk ? 'True' : 'False', pressure.disk ? 'KubeletHasDiskPressure' : 'KubeletHasNoDiskPressure', pressure.disk ? 'kubelet has disk pressure' : 'kubelet has no disk pressure', old, now),
    condition('PIDPressure', pressure.pid ? 'True' : 'False', pressure.pid ? 'KubeletHasInsufficientPID' : 'KubeletHasSufficientPID', pressure.pid ? 'kubelet has insufficient PID available' : 'kubelet has sufficient PID available', old, now),
    condition('Ready', ready.ok ? 'True' : 'False', ready.ok ? 'KubeletReady' : 'KubeletNotReady', ready.ok ? 'kubelet is posting ready status' : ready.message ?? 'not ready', old, now),
  ];
}

/** What the node looks like once its agent stopped: every condition Unknown, as the reference's node controller writes. */
export function stoppedConditions(old: NodeCondition[]): NodeCondition[] {
  const now = timestamp(Date.now());
  return ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => {
    const prior = old.find((c) => c.type === type);
    return { type, status: 'Unknown', lastHeartbeatTime: prior?.lastHeartbeatTime ?? now, lastTransitionTime: now, reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' };
  });
}

export async function nodeInfo(s: NodeSettings, runtime: ContainerRuntime): Promise<NodeSystemInfo> {
  const v = await runtime.version().catch(() => ({ name: 'unknown', version: '' }));
  const osImage = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readText('/etc/os-release'))?.[1] ?? 'Linux';
  const machineID = s.simulated ? s.nodeName : readText('/etc/machine-id') || hostname();
  return {
    machineID, systemUUID: s.simulated ? s.nodeName : readText('/sys/class/dmi/id/product_uuid') || machineID,
    bootID: readText('/proc/sys/kernel/random/boot_id'), kernelVersion: release(), osImage,
    containerRuntimeVersion: `${v.name}://${v.version}`, kubeletVersion: agentVersion, kubeProxyVersion: agentVersion,
    operatingSystem: 'linux', architecture: arch(),
  };
}

export async function nodeImages(runtime: ContainerRuntime, max: number): Promise<ContainerImage[]> {
  const list = (await runtime.listImages().catch(() => [])).sort((a, b) => b.size - a.size);
  return (max < 0 ? list : list.slice(0, max)).map((i) => ({ names: i.names.length ? i.names : [i.id], sizeBytes: i.size }));
}

/** the event the agent records when a node condition becomes True, and when it becomes anything else */
const conditionEvents: Record<string, [string, string]> = {
  MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
  Ready: ['NodeReady', 'NodeNotReady'],
};

export interface NodeStatusLoop {
  /** registers the node (retrying until it works or the loop stops), then posts status and renews the lease */
  start(): Promise<void>;
  /** posts the status now */
  post(): Promise<void>;
  /** stops the loops and marks the node NotReady (conditions Unknown) */
  stop(markStopped: boolean): Promise<void>;
  node(): Node | undefined;
}

export interface NodeStatusDeps {
  client: Client;
  settings: NodeSettings;
  runtime: ContainerRuntime;
  updateFrequencyMs: number;
  leaseDurationSeconds?: number;
  register: boolean;
  /** the runtime's readiness and the measured pressure */
  health(): Promise<{ ready: { ok: boolean; message?: string }; pressure: Pressure }>;
  log(message: string): void;
  recorder?: Recorder;
  /** the node object as the server last returned it */
  onNode?(node: Node): void;
}

export function nodeStatusLoop(deps: NodeStatusDeps): NodeStatusLoop {
  const { client, settings: s } = deps;
  const nodes = client.resource<Node>(nodesRef);
  const leases = client.resource<Lease>(leasesRef(s.names), s.names.nodeLeaseNamespace);
  const leaseSeconds = deps.leaseDurationSeconds ?? 40;
  let node: Node | undefined;
  let lease: Lease | undefined;
  let stopped = false;
  /** the next run of each loop */
  const timers = new Map<() => Promise<void>, NodeJS.Timeout>();
  let info: NodeSystemInfo | undefined;
  /** the uid of the node object whose CSINode exists; a failed attempt is retried with the next status post */
  let csiNodeOwner: string | undefined;

  const ensureOwnCSINode = async () => {
    const uid = node?.metadata?.uid;
    if (!uid || csiNodeOwner === uid) return;
    try {
      await ensureCSINode(client, s.names, { name: s.nodeName, uid });
      csiNodeOwner = uid;
    } catch (e) {
      deps.log(`creating the CSINode of ${s.nodeName} failed: ${(e as Error).message}`);
    }
  };

  const seen = (n: Node) => { node = n; deps.onNode?.(n); };

  const register = async () => {
    let delay = 100;
    while (!stopped) {
      try {
        seen(withoutManagedFields(await nodes.create(initialNode(s))));
        await ensureOwnCSINode();
        return;
      } catch (e) {
        if (isAlreadyExists(e)) {
          // an existing node keeps its object; the agent's own labels are brought up to date
          seen(withoutManagedFields(await nodes.patch(s.nodeName, { metadata: { labels: defaultLabels(s) } })));
          await ensureOwnCSINode();
          return;
        }
        deps.log(`registering node ${s.nodeName} failed: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 7000);
    }
  };

  const post = async () => {
    info ??= await nodeInfo(s, deps.runtime);
    const { ready, pressure } = await deps.health();
    const addresses = [{ type: 'InternalIP', address: hostIP(s.nodeIps) }, ...s.nodeIps.slice(1).map((address) => ({ type: 'InternalIP', address })), { type: 'Hostname', address: s.nodeName }];
    const status = {
      ...capacityAndAllocatable(s),
      conditions: nodeConditions(node?.status?.conditions ?? [], ready, pressure),
      addresses,
      daemonEndpoints: { kubeletEndpoint: { Port: s.serverPort } },
      nodeInfo: info,
      images: await nodeImages(deps.runtime, s.maxImages),
    };
    const statusOf = (type: string) => node?.status?.conditions?.find((c) => c.type === type)?.status;
    const before = new Map(Object.keys(conditionEvents).map((type) => [type, statusOf(type)]));
    try {
      seen(withoutManagedFields(await nodes.status.patch(s.nodeName, { status }, 'merge')));
      if (deps.register) await ensureOwnCSINode();
      // each condition that changed (or is new) is told, as the reference's status setters do, in their order
      const ref = { kind: 'Node', metadata: { name: s.nodeName, uid: s.nodeName } };
      for (const [type, [onTrue, otherwise]] of Object.entries(conditionEvents)) {
        const now = statusOf(type);
        if (now === before.get(type) || (type !== 'Ready' && now !== 'True' && now !== 'False')) continue;
        const event = now === 'True' ? onTrue : otherwise;
        deps.recorder?.event(ref, 'Normal', event, `Node ${s.nodeName} status is now: ${event}`);
      }
    } catch (e) {
      if (isNotFound(e) && deps.register) await register();
      else throw e;
    }
  };

  const renew = async () => {
    const spec = { holderIdentity: s.nodeName, leaseDurationSeconds: leaseSeconds, renewTime: new Date().toISOString().replace('Z', '000Z') };
    try {
      if (!lease) {
        try {
          lease = await leases.get(s.nodeName);
        } catch (e) {
          if (!isNotFound(e)) throw e;
          const owner = node?.metadata?.uid ? [{ apiVersion: 'v1', kind: 'Node', name: s.nodeName, uid: node.metadata.uid }] : undefined;
          lease = await leases.create({ apiVersion: `${leasesRef(s.names).group}/v1` as Lease['apiVersion'], kind: 'Lease', metadata: { name: s.nodeName, namespace: s.names.nodeLeaseNamespace, ...(owner ? { ownerReferences: owner } : {}) }, spec });
          return;
        }
      }
      lease = await leases.update({ ...lease!, spec: { ...lease!.spec, ...spec } });
    } catch (e) {
      if (isConflict(e) || isNotFound(e)) lease = undefined;
      deps.log(`renewing the lease of ${s.nodeName} failed: ${(e as Error).message}`);
    }
  };

  const inflight = new Set<Promise<void>>();
  const every = (ms: number, f: () => Promise<void>) => {
    const tick = async () => {
      if (stopped) return;
      const run = f().catch((e) => deps.log((e as Error).message));
      inflight.add(run);
      await run;
      inflight.delete(run);
      if (!stopped) timers.set(f, setTimeout(tick, ms));
    };
    timers.set(f, setTimeout(tick, ms));
  };

  return {
    async start() {
      deps.recorder?.event({ kind: 'Node', metadata: { name: s.nodeName, uid: s.nodeName } }, 'Normal', 'Starting', 'Starting kubelet.');
      if (deps.register) await register();
      await post().catch((e) => deps.log(`posting the status of ${s.nodeName} failed: ${(e as Error).message}`));
      await renew();
      every(deps.updateFrequencyMs, post);
      every((leaseSeconds * 1000) / 4, renew);
    },
    post,
    async stop(markStopped) {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      // a status posted while stopping must not land after the NotReady one
      await Promise.all(inflight);
      if (!markStopped || !node) return;
      try {
        await nodes.status.patch(s.nodeName, { status: { conditions: stoppedConditions(node.status?.conditions ?? []) } }, 'merge');
      } catch (e) {
        deps.log(`marking node ${s.nodeName} NotReady failed: ${(e as Error).message}`);
      }
    },
    node: () => node,
  };
}
