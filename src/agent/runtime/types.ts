// The container runtime as the pod workers see it: the CRI's verbs, reduced to what the agent uses,
// so the fake runtime and the CRI client are interchangeable behind it.

import type { LinuxResources } from '../resources.js';
import type { ContainerSecurity, SandboxSecurity } from '../security.js';
import type { MountedFile, MountSpec } from '../volumes/index.js';
import type { Probe } from '../objects.js';
import type { DnsConfig } from '../dns.js';
import type { ProbedContainer, ProbeOutcome } from './prober.js';
import type { Duplex } from 'node:stream';
import type { CommandIO, CommandResult, StreamFlags } from '../streaming/remote-command.js';

export interface PortMapping {
  protocol: 'TCP' | 'UDP' | 'SCTP';
  containerPort: number;
  hostPort: number;
  hostIp: string;
}

export interface SandboxConfig {
  name: string;
  namespace: string;
  uid: string;
  attempt: number;
  hostNetwork: boolean;
  hostname?: string;
  dns?: DnsConfig;
  sysctls: Record<string, string>;
  logDirectory: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  portMappings: PortMapping[];
  /** the pod's cgroup, as the runtime names it ('' for the runtime's default) */
  cgroupParent: string;
  security: SandboxSecurity;
  /** the pod's resources, for runtimes that size the sandbox */
  resources?: LinuxResources;
}

export interface ContainerConfig {
  name: string;
  attempt: number;
  image: string;
  command: string[];
  args: string[];
  env: { name: string; value: string }[];
  workingDir?: string;
  mounts: MountSpec[];
  /** relative to the sandbox's log directory */
  logPath: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  resources: LinuxResources;
  security: ContainerSecurity;
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  /** one of the pod's init containers (the pod's next containers wait for it to exit) */
  init?: boolean;
  /**
   * For a runtime that simulates containers (mounts is empty): the files its configMap, secret, downwardAPI and
   * projected mounts would show (the service-account token, ca.crt, namespace), read when the container is first entered
   */
  mountedFiles?(): Promise<MountedFile[]>;
}

export type ContainerState = 'created' | 'running' | 'exited' | 'unknown';

export interface ContainerInfo {
  id: string;
  sandboxId: string;
  name: string;
  attempt: number;
  state: ContainerState;
  image: string;
  imageRef: string;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  exitCode?: number;
  reason?: string;
  message?: string;
  logPath?: string;
  labels: Record<string, string>;
}

export interface SandboxInfo {
  id: string;
  uid: string;
  name: string;
  namespace: string;
  attempt: number;
  ready: boolean;
  createdAt: number;
  ip?: string;
  /** further addresses (the other family of a dual-stack pod) */
  additionalIps?: string[];
}

export interface ImageInfo {
  id: string;
  names: string[];
  size: number;
  /** the user the image runs as, when it names one */
  uid?: number;
  username?: string;
}

export interface RuntimeCondition {
  status: boolean;
  reason: string;
  message: string;
}

export interface RuntimeStatus {
  runtimeReady: RuntimeCondition;
  networkReady: RuntimeCondition;
}

export interface ContainerStats {
  id: string;
  name: string;
  /** when it was measured, in ms */
  timestamp: number;
  cpu?: { usageCoreNanoSeconds: number; usageNanoCores?: number };
  memory?: { workingSetBytes: number; usageBytes?: number; rssBytes?: number; pageFaults?: number; majorPageFaults?: number; availableBytes?: number };
  writableLayer?: { usedBytes: number; inodesUsed?: number };
}

export interface SandboxStats {
  id: string;
  timestamp: number;
  network?: { name: string; rxBytes: number; rxErrors: number; txBytes: number; txErrors: number }[];
  processCount?: number;
}

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

export interface ContainerRuntime {
  /** name and version for the node info, e.g. containerd://1.6.20 */
  version(): Promise<{ name: string; version: string }>;
  /** throws with a clear message when the runtime cannot be reached or is not ready */
  ready(): Promise<void>;
  /** tells the runtime the node's pod address range (for network configurations made from a template) */
  updatePodCidr?(cidr: string): Promise<void>;
  /** the runtime's conditions: ready to run containers, and its network ready for pods */
  status(): Promise<RuntimeStatus>;
  runSandbox(config: SandboxConfig): Promise<string>;
  stopSandbox(id: string): Promise<void>;
  removeSandbox(id: string): Promise<void>;
  /** every sandbox, without network details */
  listSandboxes(): Promise<SandboxInfo[]>;
  /** one sandbox with its IP */
  sandboxInfo(id: string): Promise<SandboxInfo | undefined>;
  /** makes the image present (pull or already imported); `onPull` is called when a pull starts, not when it is present */
  ensureImage(image: string, pullPolicy?: PullPolicy, onPull?: () => void): Promise<ImageInfo>;
  listImages(): Promise<ImageInfo[]>;
  removeImage(id: string): Promise<void>;
  /** bytes the images take and the size of their filesystem, when the runtime tells */
  imageFsUsage?(): Promise<{ used: number; capacity: number; inodesUsed?: number; mountpoint?: string } | undefined>;
  createContainer(sandboxId: string, sandbox: SandboxConfig, config: ContainerConfig): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** sends the stop signal, then kills after the grace period */
  stopContainer(id: string, graceSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** changes a running container's resources; fields left 0 or empty stay as they are */
  updateContainerResources(id: string, resources: Partial<LinuxResources>): Promise<void>;
  listContainers(sandboxId?: string): Promise<ContainerInfo[]>;
  /** calls `changed` when a container exits (a runtime that knows it at once, as an evented PLEG), so the
   *  agent relists then rather than at its next periodic relist */
  onContainerExit?(changed: () => void): void;
  /** runs a command in a container and waits for it */
  execSync(containerId: string, command: string[], timeoutSeconds: number): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  /** usage of every running container */
  containerStats(): Promise<ContainerStats[]>;
  /** usage of the sandboxes (network, processes), when the runtime measures it */
  sandboxStats?(): Promise<SandboxStats[]>;
  /** runs a probe handler (exec, httpGet, tcpSocket) of the given container: whether it passed, and its output */
  probe(container: ContainerInfo, sandbox: SandboxInfo, kind: ProbeKind, probe: Probe, spec: ProbedContainer): Promise<ProbeOutcome>;
  /** the container's log as the runtime wrote it (CRI log format) */
  logPath(container: ContainerInfo): string | undefined;
  /** where the runtime's own streaming server serves an exec, attach or port-forward (CRI); absent: the calls below */
  streamUrl?(r: StreamRequest): Promise<string>;
  /** runs a command in a container with the client's streams, for runtimes that have no streaming server */
  execStream?(containerId: string, command: string[], io: CommandIO): Promise<CommandResult>;
  /** joins the client's streams to the container's main process */
  attachStream?(containerId: string, io: CommandIO): Promise<CommandResult>;
  /** a connection to a port of the sandbox */
  openPort?(sandboxId: string, port: number): Promise<Duplex>;
  close(): void;
}

/** a stream the runtime serves itself */
export type StreamRequest =
  | { kind: 'exec'; containerId: string; command: string[]; flags: StreamFlags }
  | { kind: 'attach'; containerId: string; flags: StreamFlags }
  | { kind: 'portforward'; sandboxId: string; ports: number[] };

/** the image is missing and the pod's policy forbids pulling it */
export class ImageNeverPulled extends Error {
  constructor(image: string) {
    super(`Container image "${image}" is not present with pull policy of Never`);
  }
}

