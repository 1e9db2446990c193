// The real runtime: CRI v1 over gRPC (containerd, CRI-O) on --container-runtime-endpoint and
// --image-service-endpoint, every call bounded by --runtime-request-timeout. Container logs are
// written by the runtime under --root-dir and rotated here by --container-log-max-size and
// --container-log-max-files. Image pulls go at --registry-qps with --registry-burst, one at a time
// with --serialize-image-pulls.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rename, stat, statfs, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { criProto } from './cri-proto.js';
import { grpcProbe, httpProbe, tcpProbe } from './prober.js';
import { oneAtATime } from './one-at-a-time.js';
import { tokenBucket } from '../../client/rate-limit.js';
import { ImageNeverPulled, type ContainerConfig, type ContainerInfo, type ContainerRuntime, type ContainerState, type ContainerStats, type ImageInfo, type RuntimeCondition, type SandboxConfig, type SandboxInfo, type SandboxStats } from './types.js';
import type { ContainerSecurity, SandboxSecurity, Seccomp } from '../security.js';
import type { LinuxResources } from '../resources.js';

export interface CriOptions {
  endpoint: string;
  imageEndpoint?: string;
  timeoutMs: number;
  rootDir: string;
  logMaxSize: number;
  logMaxFiles: number;
  /** how often container logs are checked for rotation; default 10 s */
  logCheckMs?: number;
  /** image pulls per second (0: unlimited) and at once */
  registryQps?: number;
  registryBurst?: number;
  serializeImagePulls?: boolean;
}

type Call = <T>(method: string, request: object, timeoutMs?: number) => Promise<T>;
type GrpcCallback = (err: { code: number; details?: string; message: string } | null, res: unknown) => void;
type GrpcClient = Record<string, (req: object, opts: object, cb: GrpcCallback) => void> & { close(): void };
type GrpcClientClass = new (address: string, credentials: unknown) => GrpcClient;

async function loadServices() {
  const grpc = await import('@grpc/grpc-js');
  const loader = await import('@grpc/proto-loader');
  // proto-loader reads files: the embedded definition goes through a private temporary one
  const dir = mkdtempSync(join(tmpdir(), 'cri-proto-'));
  try {
    writeFileSync(join(dir, 'cri.proto'), criProto);
    const definition = loader.loadSync(join(dir, 'cri.proto'), { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { runtime: { v1: { RuntimeService: GrpcClientClass; ImageService: GrpcClientClass } } };
    return { grpc, runtime: pkg.runtime.v1.RuntimeService, image: pkg.runtime.v1.ImageService };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const states: Record<string, ContainerState> = { CONTAINER_CREATED: 'created', CONTAINER_RUNNING: 'running', CONTAINER_EXITED: 'exited', CONTAINER_UNKNOWN: 'unknown' };
const ms = (ns: number | undefined) => (ns ? Math.floor(ns / 1e6) : undefined);
/** how long after a kill, and in how many reads, the runtime's OOM event is waited for */
const oomEventWaitMs = 1000;
const oomEventReads = 5;

// the parts of the CRI's answers the agent reads
interface Meta { name?: string; uid?: string; namespace?: string; attempt?: number }
interface CriContainerStatus {
  id: string; metadata?: Meta; state: string; createdAt?: number; startedAt?: number; finishedAt?: number; exitCode?: number;
  image?: { image?: string }; imageRef?: string; reason?: string; message?: string; labels?: Record<string, string>; logPath?: string;
}
interface CriSandbox { id: string; metadata?: Meta; state: string; createdAt?: number; network?: { ip?: string; additionalIps?: { ip: string }[] } }
interface CriImage { id: string; repoTags?: string[]; repoDigests?: string[]; size?: number; uid?: { value: number } | null; username?: string }
interface U64 { value: number }
interface CriContainerStats {
  attributes?: { id: string; metadata?: Meta };
  cpu?: { timestamp: number; usageCoreNanoSeconds?: U64 | null; usageNanoCores?: U64 | null } | null;
  memory?: { timestamp: number; workingSetBytes?: U64 | null; usageBytes?: U64 | null; rssBytes?: U64 | null; pageFaults?: U64 | null; majorPageFaults?: U64 | null; availableBytes?: U64 | null } | null;
  writableLayer?: { usedBytes?: U64 | null; inodesUsed?: U64 | null } | null;
}
interface CriSandboxStats {
  attributes?: { id: string };
  linux?: {
    network?: { timestamp: number; defaultInterface?: CriInterface | null; interfaces?: CriInterface[] } | null;
    process?: { timestamp: number; processCount?: U64 | null } | null;
  } | null;
}
interface CriInterface { name: string; rxBytes?: U64 | null; rxErrors?: U64 | null; txBytes?: U64 | null; txErrors?: U64 | null }

export async function criRuntime(o: CriOptions): Promise<ContainerRuntime> {
  const { grpc, runtime: RuntimeService, image: ImageService } = await loadServices();
  const address = (e: string) => e.replace(/^unix:\/\/(?!\/)/, 'unix:///');
  const runtimeClient = new RuntimeService(address(o.endpoint), grpc.credentials.createInsecure());
  const imageClient = new ImageService(address(o.imageEndpoint || o.endpoint), grpc.credentials.createInsecure());

  const caller = (client: GrpcClient, endpoint: string): Call => <T>(method: string, request: object, timeoutMs = o.timeoutMs) =>
    new Promise<T>((resolve, reject) => {
      client[method]!(request, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (!err) return resolve(res as T);
        const unreachable = err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED;
        reject(Object.assign(new Error(unreachable ? `container runtime at ${endpoint} is unreachable (${method}): ${err.details || err.message}` : `${method}: ${err.details || err.message}`), { grpcCode: err.code }));
      });
    });
  const rt = caller(runtimeClient, o.endpoint);
  /** stats listings one at a time (overlapping ones crash containerd 1.6), concurrent askers sharing one answer */
  const statsCall = oneAtATime();
  const img = caller(imageClient, o.imageEndpoint || o.endpoint);
  /** statuses of exited containers never change (once an OOM kill has had its moment to show): kept until the
   *  container is removed */
  const exited = new Map<string, ContainerInfo>();
  const logPaths = new Map<string, string>();
  const pullLimiter = o.registryQps ? tokenBucket(o.registryQps, Math.max(1, o.registryBurst ?? 1)) : undefined;
  let pulling: Promise<unknown> = Promise.resolve();

  const toInfo = (s: CriContainerStatus, sandboxId: string): ContainerInfo => ({
    id: s.id, sandboxId, name: s.metadata?.name ?? '', attempt: s.metadata?.attempt ?? 0, state: states[s.state] ?? 'unknown',
    image: s.image?.image ?? '', imageRef: s.imageRef ?? '', createdAt: ms(s.createdAt) ?? Date.now(), startedAt: ms(s.startedAt), finishedAt: ms(s.finishedAt),
    exitCode: states[s.state] === 'exited' ? s.exitCode : undefined, reason: s.reason || undefined, message: s.message || undefined, logPath: s.logPath || undefined,
    labels: s.labels ?? {},
  });
  /**
   * A container's status, read again for a moment while it shows a fresh kill (137) not (yet) put down to memory: the
   * runtime learns of an OOM kill from an event of its own, which can come just after the exit, and an exited status
   * is kept as first read.
   */
  const settledStatus = async (containerId: string): Promise<CriContainerStatus | undefined> => {
    for (let reads = 1; ; reads++) {
      const st = await rt<{ status?: CriContainerStatus }>('containerStatus', { containerId }).catch(() => undefined);
      const s = st?.status;
      const unsettled = s && states[s.state] === 'exited' && s.exitCode === 137 && s.reason !== 'OOMKilled'
        && Date.now() - (ms(s.finishedAt) ?? 0) < oomEventWaitMs;
      if (!unsettled || reads >= oomEventReads) return s;
      await new Promise((r) => setTimeout(r, oomEventWaitMs / oomEventReads));
    }
  };
  const toImage = (i: CriImage): ImageInfo => ({
    id: i.id, names: [...(i.repoTags ?? []), ...(i.repoDigests ?? [])], size: Number(i.size ?? 0),
    ...(i.uid ? { uid: Number(i.uid.value) } : {}), ...(i.username ? { username: i.username } : {}),
  });
  const condition = (conditions: { type: string; status: boolean; reason?: string; message?: string }[], type: string): RuntimeCondition => {
    const c = conditions.find((x) => x.type === type);
    return c ? { status: c.status, reason: c.reason ?? '', message: c.message ?? '' } : { status: false, reason: 'NoCondition', message: `the runtime reports no ${type} condition` };
  };

  const pull = async (image: string) => {
    await pullLimiter?.take();
    return img<{ imageRef: string }>('pullImage', { image: { image } }).catch((e: Error) => {
      throw new Error(`failed to pull image "${image}": ${e.message}`);
    });
  };

  const self: ContainerRuntime = {
    async version() {
      const v = await rt<{ runtimeName: string; runtimeVersion: string }>('version', { version: 'v1' });
      return { name: v.runtimeName, version: v.runtimeVersion };
    },
    async ready() {
      const s = await self.status();
      if (!s.runtimeReady.status) throw new Error(`container runtime at ${o.endpoint} is not ready: ${s.runtimeReady.reason} ${s.runtimeReady.message}`.trim());
    },
    async status() {
      const s = await rt<{ status?: { conditions?: { type: string; status: boolean; reason?: string; message?: string }[] } }>('status', { verbose: false }, Math.min(o.timeoutMs, 10_000));
      const conditions = s.status?.conditions ?? [];
      return { runtimeReady: condition(conditions, 'RuntimeReady'), networkReady: condition(conditions, 'NetworkReady') };
    },
    async updatePodCidr(cidr) {
      await rt('updateRuntimeConfig', { runtimeConfig: { networkConfig: { podCidr: cidr } } });
    },
    async runSandbox(c) {
      await mkdir(c.logDirectory, { recursive: true });
      const r = await rt<{ podSandboxId: string }>('runPodSandbox', { config: criSandboxConfig(c) });
      return r.podSandboxId;
    },
    async stopSandbox(id) {
      await rt('stopPodSandbox', { podSandboxId: id });
    },
    async removeSandbox(id) {
      await rt('removePodSandbox', { podSandboxId: id });
    },
    async listSandboxes() {
      const r = await rt<{ items?: CriSandbox[] }>('listPodSandbox', {});
      return (r.items ?? []).map(toSandbox);
    },
    async sandboxInfo(id) {
      const r = await rt<{ status?: CriSandbox }>('podSandboxStatus', { podSandboxId: id }).catch(() => undefined);
      if (!r?.status) return undefined;
      const additional = (r.status.network?.additionalIps ?? []).map((x) => x.ip).filter(Boolean);
      return { ...toSandbox(r.status), ip: r.status.network?.ip || undefined, ...(additional.length ? { additionalIps: additional } : {}) };
    },
    async ensureImage(image, policy = 'IfNotPresent', onPull) {
      const st = await img<{ image?: CriImage | null }>('imageStatus', { image: { image } });
      if (st.image?.id && policy !== 'Always') return toImage(st.image);
      if (policy === 'Never') throw new ImageNeverPulled(image);
      onPull?.();
      // one pull at a time with --serialize-image-pulls
      const run = o.serializeImagePulls ? (pulling = pulling.catch(() => {}).then(() => pull(image))) : pull(image);
      const pulled = (await run) as { imageRef: string };
      const after = await img<{ image?: CriImage | null }>('imageStatus', { image: { image } }).catch(() => undefined);
      return after?.image?.id ? toImage(after.image) : { id: pulled.imageRef, names: [image], size: 0 };
    },
    async listImages() {
      const r = await img<{ images?: CriImage[] }>('listImages', {});
      return (r.images ?? []).map(toImage);
    },
    async removeImage(id) {
      await img('removeImage', { image: { image: id } });
    },
    async imageFsUsage() {
      const r = await img<{ imageFilesystems?: { fsId?: { mountpoint?: string }; usedBytes?: U64 | null; inodesUsed?: U64 | null }[] }>('imageFsInfo', {});
      const fs = r.imageFilesystems?.[0];
      if (!fs?.fsId?.mountpoint) return undefined;
      const st = await statfs(fs.fsId.mountpoint).catch(() => undefined);
      return st ? { used: Number(fs.usedBytes?.value ?? 0), capacity: st.blocks * st.bsize, inodesUsed: Number(fs.inodesUsed?.value ?? 0), mountpoint: fs.fsId.mountpoint } : undefined;
    },
    async createContainer(sandboxId, sandbox, c: ContainerConfig) {
      const r = await rt<{ containerId: string }>('createContainer', { podSandboxId: sandboxId, config: criContainerConfig(c), sandboxConfig: criSandboxConfig(sandbox) });
      logPaths.set(r.containerId, join(sandbox.logDirectory, c.logPath));
      return r.containerId;
    },
    async startContainer(id) {
      await rt('startContainer', { containerId: id });
    },
    async stopContainer(id, graceSeconds) {
      await rt('stopContainer', { containerId: id, timeout: graceSeconds }, o.timeoutMs + graceSeconds * 1000);
    },
    async updateContainerResources(id, r) {
      await rt('updateContainerResources', { containerId: id, linux: criResources({ cpuPeriod: 0, cpuQuota: 0, cpuShares: 0, memoryLimitBytes: 0, oomScoreAdj: 0, cpusetCpus: '', cpusetMems: '', ...r }) });
    },
    async removeContainer(id) {
      await rt('removeContainer', { containerId: id });
      exited.delete(id);
      logPaths.delete(id);
    },
    async listContainers(sandboxId) {
      const r = await rt<{ containers?: { id: string; podSandboxId: string }[] }>('listContainers', { filter: sandboxId ? { podSandboxId: sandboxId } : {} });
      const out: ContainerInfo[] = [];
      for (const c of r.containers ?? []) {
        const known = exited.get(c.id);
        if (known) {
          out.push(known);
          continue;
        }
        const status = await settledStatus(c.id);
        if (!status) continue;
        const info = toInfo(status, c.podSandboxId);
        if (info.logPath) logPaths.set(info.id, info.logPath);
        if (info.state === 'exited') exited.set(info.id, info);
        out.push(info);
      }
      return out;
    },
    async execSync(containerId, command, timeoutSeconds) {
      const r = await rt<{ stdout: Buffer; stderr: Buffer; exitCode: number }>('execSync', { containerId, cmd: command, timeout: timeoutSeconds }, o.timeoutMs + timeoutSeconds * 1000);
      return { stdout: Buffer.from(r.stdout ?? []).toString(), stderr: Buffer.from(r.stderr ?? []).toString(), exitCode: r.exitCode };
    },
    async streamUrl(r) {
      // the runtime's streaming server serves the stream at this URL; the agent passes the connection through
      const { url } = r.kind === 'exec'
        ? await rt<{ url: string }>('exec', { containerId: r.containerId, cmd: r.command, tty: r.flags.tty, stdin: r.flags.stdin, stdout: r.flags.stdout, stderr: r.flags.stderr && !r.flags.tty })
        : r.kind === 'attach'
          ? await rt<{ url: string }>('attach', { containerId: r.containerId, stdin: r.flags.stdin, tty: r.flags.tty, stdout: r.flags.stdout, stderr: r.flags.stderr && !r.flags.tty })
          : await rt<{ url: string }>('portForward', { podSandboxId: r.sandboxId, port: r.ports });
      return url;
    },
    async containerStats() {
      const r = await statsCall('listContainerStats', () => rt<{ stats?: CriContainerStats[] }>('listContainerStats', { filter: {} }));
      return (r.stats ?? []).filter((s) => s.attributes?.id).map((s): ContainerStats => ({
        id: s.attributes!.id, name: s.attributes!.metadata?.name ?? '',
        timestamp: ms(s.cpu?.timestamp ?? s.memory?.timestamp) ?? Date.now(),
        ...(s.cpu?.usageCoreNanoSeconds ? { cpu: { usageCoreNanoSeconds: Number(s.cpu.usageCoreNanoSeconds.value), ...(s.cpu.usageNanoCores ? { usageNanoCores: Number(s.cpu.usageNanoCores.value) } : {}) } } : {}),
        ...(s.memory?.workingSetBytes ? {
          memory: {
            workingSetBytes: Number(s.memory.workingSetBytes.value), usageBytes: u64(s.memory.usageBytes), rssBytes: u64(s.memory.rssBytes),
            pageFaults: u64(s.memory.pageFaults), majorPageFaults: u64(s.memory.majorPageFaults), availableBytes: u64(s.memory.availableBytes),
          },
        } : {}),
        ...(s.writableLayer?.usedBytes ? { writableLayer: { usedBytes: Number(s.writableLayer.usedBytes.value), inodesUsed: u64(s.writableLayer.inodesUsed) } } : {}),
      }));
    },
    async sandboxStats() {
      const r = await statsCall('listPodSandboxStats', () => rt<{ stats?: CriSandboxStats[] }>('listPodSandboxStats', { filter: {} }));
      return (r.stats ?? []).filter((s) => s.attributes?.id).map((s): SandboxStats => {
        const n = s.linux?.network;
        const interfaces = n ? (n.interfaces?.length ? n.interfaces : n.defaultInterface ? [n.defaultInterface] : []) : [];
        return {
          id: s.attributes!.id, timestamp: ms(n?.timestamp ?? s.linux?.process?.timestamp) ?? Date.now(),
          network: interfaces.map((i) => ({ name: i.name, rxBytes: u64(i.rxBytes) ?? 0, rxErrors: u64(i.rxErrors) ?? 0, txBytes: u64(i.txBytes) ?? 0, txErrors: u64(i.txErrors) ?? 0 })),
          ...(s.linux?.process?.processCount ? { processCount: Number(s.linux.process.processCount.value) } : {}),
        };
      });
    },
    async probe(container, sandbox, _kind, probe, spec) {
      // the pod's IP, as the reference probes (the host's for host-network pods)
      const host = sandbox.ip || '127.0.0.1';
      if (probe.exec) {
        const timeout = probe.timeoutSeconds ?? 1;
        const command = probe.exec.command ?? [];
        // a command past its timeout is a failure (the runtime ends it with DEADLINE_EXCEEDED), as the reference counts it
        const r = await self.execSync(container.id, command, timeout).catch((e: Error & { grpcCode?: number }) => {
          if (e.grpcCode === grpc.status.DEADLINE_EXCEEDED) return { exitCode: -1, stdout: `command ${JSON.stringify(command.join(' '))} timed out`, stderr: '' };
          throw e;
        });
        return { ok: r.exitCode === 0, output: r.exitCode === 0 ? '' : `${r.stdout}${r.stderr}` };
      }
      if (probe.httpGet) return httpProbe(probe, host, spec);
      if (probe.tcpSocket) return tcpProbe(probe, host, spec);
      if (probe.grpc) return grpcProbe(probe, host);
      throw new Error('unsupported probe handler (exec, httpGet, tcpSocket and grpc are)');
    },
    logPath(container) {
      return logPaths.get(container.id) ?? container.logPath;
    },
    close() {
      clearInterval(rotation);
      runtimeClient.close();
      imageClient.close();
    },
  };

  /** rotates logs over the size limit: renamed with a timestamp, the runtime reopens the file, the oldest go */
  const rotate = async () => {
    for (const [id, path] of logPaths) {
      if (exited.has(id)) continue;
      const size = await stat(path).then((s) => s.size, () => 0);
      if (size <= o.logMaxSize) continue;
      const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '');
      await rename(path, `${path}.${stamp}`).catch(() => {});
      await rt('reopenContainerLog', { containerId: id }).catch(() => {});
      const rotated = (await readdir(dirname(path)).catch(() => [] as string[])).filter((f) => f.startsWith(`${basename(path)}.`)).sort();
      for (const f of rotated.slice(0, Math.max(0, rotated.length - (o.logMaxFiles - 1)))) await unlink(join(dirname(path), f)).catch(() => {});
    }
  };
  const rotation = setInterval(() => void rotate(), o.logCheckMs ?? 10_000);
  rotation.unref();
  return self;
}

const u64 = (v: U64 | null | undefined) => (v ? Number(v.value) : undefined);

function toSandbox(s: CriSandbox): SandboxInfo {
  return { id: s.id, uid: s.metadata?.uid ?? '', name: s.metadata?.name ?? '', namespace: s.metadata?.namespace ?? '', attempt: s.metadata?.attempt ?? 0, ready: s.state === 'SANDBOX_READY', createdAt: ms(s.createdAt) ?? 0 };
}

const seccompProfile = (s: Seccomp) => ({ profileType: s.type, localhostRef: s.localhostRef ?? '' });
const int64 = (v: number | undefined) => (v === undefined ? undefined : { value: v });

function criSecurity(s: SandboxSecurity) {
  return {
    namespaceOptions: s.namespaces,
    runAsUser: int64(s.runAsUser),
    runAsGroup: int64(s.runAsGroup),
    supplementalGroups: s.supplementalGroups,
    privileged: s.privileged,
    seccomp: seccompProfile(s.seccomp),
  };
}

function criResources(r: LinuxResources) {
  return {
    cpuPeriod: r.cpuPeriod, cpuQuota: r.cpuQuota, cpuShares: r.cpuShares, memoryLimitInBytes: r.memoryLimitBytes, oomScoreAdj: r.oomScoreAdj,
    cpusetCpus: r.cpusetCpus, cpusetMems: r.cpusetMems,
  };
}

function criSandboxConfig(c: SandboxConfig) {
  return {
    metadata: { name: c.name, uid: c.uid, namespace: c.namespace, attempt: c.attempt },
    hostname: c.hostname ?? '',
    logDirectory: c.logDirectory,
    ...(c.dns ? { dnsConfig: c.dns } : {}),
    portMappings: c.portMappings.map((p) => ({ protocol: p.protocol, containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIp })),
    labels: c.labels,
    annotations: c.annotations,
    linux: { cgroupParent: c.cgroupParent, sysctls: c.sysctls, securityContext: criSecurity(c.security), ...(c.resources ? { resources: criResources(c.resources) } : {}) },
  };
}

const propagation = { private: 'PROPAGATION_PRIVATE', hostToContainer: 'PROPAGATION_HOST_TO_CONTAINER', bidirectional: 'PROPAGATION_BIDIRECTIONAL' } as const;

function criContainerSecurity(s: ContainerSecurity) {
  return {
    ...criSecurity(s),
    capabilities: { addCapabilities: s.capabilities.add, dropCapabilities: s.capabilities.drop },
    readonlyRootfs: s.readOnlyRootfs,
    noNewPrivs: s.noNewPrivs,
    // an unmasked /proc has no masked or read-only paths; otherwise the runtime's defaults apply
    ...(s.unmaskedProc ? { maskedPaths: [], readonlyPaths: [] } : {}),
  };
}

function criContainerConfig(c: ContainerConfig) {
  return {
    metadata: { name: c.name, attempt: c.attempt }, image: { image: c.image }, command: c.command, args: c.args,
    workingDir: c.workingDir ?? '', envs: c.env.map((e) => ({ key: e.name, value: e.value })),
    mounts: c.mounts.map((m) => ({ containerPath: m.containerPath, hostPath: m.hostPath, readonly: m.readOnly, propagation: propagation[m.propagation] })),
    labels: c.labels, annotations: c.annotations, logPath: c.logPath,
    stdin: c.stdin, stdinOnce: c.stdinOnce, tty: c.tty,
    linux: { resources: criResources(c.resources), securityContext: criContainerSecurity(c.security) },
  };
}
