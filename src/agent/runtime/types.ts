// The container runtime as the pod workers see it: the CRI's verbs, reduced to what the agent uses,
// so the fake runtime and the CRI client are interchangeable behind it.

export interface SandboxConfig {
  name: string;
  namespace: string;
  uid: string;
  attempt: number;
  hostNetwork: boolean;
  hostname?: string;
  dns?: { servers: string[]; searches: string[]; options: string[] };
  sysctls: Record<string, string>;
  logDirectory: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface ContainerConfig {
  name: string;
  attempt: number;
  image: string;
  command: string[];
  args: string[];
  env: { name: string; value: string }[];
  workingDir?: string;
  /** relative to the sandbox's log directory */
  logPath: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
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
}

export interface ImageInfo {
  id: string;
  names: string[];
  size: number;
}

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

export interface ContainerRuntime {
  /** name and version for the node info, e.g. containerd://1.6.20 */
  version(): Promise<{ name: string; version: string }>;
  /** throws with a clear message when the runtime cannot be reached or is not ready */
  ready(): Promise<void>;
  runSandbox(config: SandboxConfig): Promise<string>;
  stopSandbox(id: string): Promise<void>;
  removeSandbox(id: string): Promise<void>;
  /** every sandbox, without network details */
  listSandboxes(): Promise<SandboxInfo[]>;
  /** one sandbox with its IP */
  sandboxInfo(id: string): Promise<SandboxInfo | undefined>;
  /** makes the image present (pull or already imported); returns its reference */
  ensureImage(image: string): Promise<string>;
  listImages(): Promise<ImageInfo[]>;
  removeImage(id: string): Promise<void>;
  /** bytes the images take and the size of their filesystem, when the runtime tells */
  imageFsUsage?(): Promise<{ used: number; capacity: number } | undefined>;
  createContainer(sandboxId: string, sandbox: SandboxConfig, config: ContainerConfig): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** sends the stop signal, then kills after the grace period */
  stopContainer(id: string, graceSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  listContainers(sandboxId?: string): Promise<ContainerInfo[]>;
  /** runs a probe handler (exec, httpGet, tcpSocket) of the given container; true when it passes */
  probe(container: ContainerInfo, sandbox: SandboxInfo, kind: ProbeKind, probe: any, pod: any): Promise<boolean>;
  /** the container's log as the runtime wrote it (CRI log format) */
  logPath(container: ContainerInfo): string | undefined;
  close(): void;
}
