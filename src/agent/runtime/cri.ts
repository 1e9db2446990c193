// The real runtime: CRI v1 over gRPC (containerd, CRI-O) on --container-runtime-endpoint and
// --image-service-endpoint, every call bounded by --runtime-request-timeout. Container logs are
// written by the runtime under --root-dir and rotated here by --container-log-max-size and
// --container-log-max-files.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, rename, stat, statfs, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { criProto } from './cri-proto.js';
import { httpProbe, tcpProbe } from './prober.js';
import type { ContainerConfig, ContainerInfo, ContainerRuntime, ContainerState, ImageInfo, SandboxConfig, SandboxInfo } from './types.js';

export interface CriOptions {
  endpoint: string;
  imageEndpoint?: string;
  timeoutMs: number;
  rootDir: string;
  logMaxSize: number;
  logMaxFiles: number;
  /** how often container logs are checked for rotation; default 10 s */
  logCheckMs?: number;
}

type Call = (method: string, request: object, timeoutMs?: number) => Promise<any>;

async function loadServices() {
  const grpc = await import('@grpc/grpc-js');
  const loader = await import('@grpc/proto-loader');
  // proto-loader reads files: the embedded definition goes through a private temporary one
  const dir = mkdtempSync(join(tmpdir(), 'cri-proto-'));
  try {
    writeFileSync(join(dir, 'cri.proto'), criProto);
    const definition = loader.loadSync(join(dir, 'cri.proto'), { keepCase: false, longs: Number, enums: String, defaults: true, oneofs: true });
    const pkg = grpc.loadPackageDefinition(definition) as any;
    return { grpc, runtime: pkg.runtime.v1.RuntimeService, image: pkg.runtime.v1.ImageService };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const states: Record<string, ContainerState> = { CONTAINER_CREATED: 'created', CONTAINER_RUNNING: 'running', CONTAINER_EXITED: 'exited', CONTAINER_UNKNOWN: 'unknown' };
const ms = (ns: number) => (ns ? Math.floor(ns / 1e6) : undefined);

export async function criRuntime(o: CriOptions): Promise<ContainerRuntime> {
  const { grpc, runtime: RuntimeService, image: ImageService } = await loadServices();
  const address = (e: string) => e.replace(/^unix:\/\/(?!\/)/, 'unix:///');
  const runtimeClient = new RuntimeService(address(o.endpoint), grpc.credentials.createInsecure());
  const imageClient = o.imageEndpoint && o.imageEndpoint !== o.endpoint ? new ImageService(address(o.imageEndpoint), grpc.credentials.createInsecure()) : new ImageService(address(o.endpoint), grpc.credentials.createInsecure());

  const caller = (client: any, endpoint: string): Call => (method, request, timeoutMs = o.timeoutMs) =>
    new Promise((resolve, reject) => {
      client[method](request, { deadline: Date.now() + timeoutMs }, (err: any, res: any) => {
        if (!err) return resolve(res);
        const unreachable = err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED;
        reject(new Error(unreachable ? `container runtime at ${endpoint} is unreachable (${method}): ${err.details || err.message}` : `${method}: ${err.details || err.message}`));
      });
    });
  const rt = caller(runtimeClient, o.endpoint);
  const img = caller(imageClient, o.imageEndpoint || o.endpoint);
  /** statuses of exited containers never change: kept until the container is removed */
  const exited = new Map<string, ContainerInfo>();
  const logPaths = new Map<string, string>();

  const toInfo = (s: any, sandboxId: string): ContainerInfo => ({
    id: s.id, sandboxId, name: s.metadata?.name ?? '', attempt: s.metadata?.attempt ?? 0, state: states[s.state] ?? 'unknown',
    image: s.image?.image ?? '', imageRef: s.imageRef ?? '', createdAt: ms(s.createdAt) ?? Date.now(), startedAt: ms(s.startedAt), finishedAt: ms(s.finishedAt),
    exitCode: states[s.state] === 'exited' ? s.exitCode : undefined, reason: s.reason || undefined, message: s.message || undefined, logPath: s.logPath || undefined,
    labels: s.labels ?? {},
  });

  const self: ContainerRuntime = {
    async version() {
      const v = await rt('version', { version: 'v1' });
      return { name: v.runtimeName, version: v.runtimeVersion };
    },
    async ready() {
      const s = await rt('status', { verbose: false }, Math.min(o.timeoutMs, 10_000));
      const cond = (s.status?.conditions ?? []).find((c: any) => c.type === 'RuntimeReady');
      if (!cond?.status) throw new Error(`container runtime at ${o.endpoint} is not ready: ${cond?.reason ?? 'no RuntimeReady condition'} ${cond?.message ?? ''}`.trim());
    },
    async runSandbox(c: SandboxConfig) {
      await mkdir(c.logDirectory, { recursive: true });
      const r = await rt('runPodSandbox', { config: sandboxConfig(c) });
      return r.podSandboxId;
    },
    async stopSandbox(id) {
      await rt('stopPodSandbox', { podSandboxId: id });
    },
    async removeSandbox(id) {
      await rt('removePodSandbox', { podSandboxId: id });
    },
    async listSandboxes() {
      const r = await rt('listPodSandbox', {});
      return (r.items ?? []).map(toSandbox);
    },
    async sandboxInfo(id) {
      const r = await rt('podSandboxStatus', { podSandboxId: id }).catch(() => undefined);
      return r?.status ? { ...toSandbox(r.status), ip: r.status.network?.ip || undefined } : undefined;
    },
    async ensureImage(image) {
      const st = await img('imageStatus', { image: { image } });
      if (st.image?.id) return st.image.id;
      const pulled = await img('pullImage', { image: { image } }).catch((e: Error) => {
        throw new Error(`failed to pull image "${image}": ${e.message}`);
      });
      return pulled.imageRef;
    },
    async listImages() {
      const r = await img('listImages', {});
      return (r.images ?? []).map((i: any): ImageInfo => ({ id: i.id, names: [...(i.repoTags ?? []), ...(i.repoDigests ?? [])], size: Number(i.size ?? 0) }));
    },
    async removeImage(id) {
      await img('removeImage', { image: { image: id } });
    },
    async imageFsUsage() {
      const r = await img('imageFsInfo', {});
      const fs = r.imageFilesystems?.[0];
      if (!fs?.fsId?.mountpoint) return undefined;
      const st = await statfs(fs.fsId.mountpoint).catch(() => undefined);
      return st ? { used: Number(fs.usedBytes?.value ?? 0), capacity: st.blocks * st.bsize } : undefined;
    },
    async createContainer(sandboxId, sandbox, c: ContainerConfig) {
      const r = await rt('createContainer', {
        podSandboxId: sandboxId,
        config: {
          metadata: { name: c.name, attempt: c.attempt }, image: { image: c.image }, command: c.command, args: c.args,
          workingDir: c.workingDir ?? '', envs: c.env.map((e) => ({ key: e.name, value: e.value })), labels: c.labels, annotations: c.annotations, logPath: c.logPath,
        },
        sandboxConfig: sandboxConfig(sandbox),
      });
      logPaths.set(r.containerId, join(sandbox.logDirectory, c.logPath));
      return r.containerId;
    },
    async startContainer(id) {
      await rt('startContainer', { containerId: id });
    },
    async stopContainer(id, graceSeconds) {
      await rt('stopContainer', { containerId: id, timeout: graceSeconds }, o.timeoutMs + graceSeconds * 1000);
    },
    async removeContainer(id) {
      await rt('removeContainer', { containerId: id });
      exited.delete(id);
      logPaths.delete(id);
    },
    async listContainers(sandboxId) {
      const r = await rt('listContainers', { filter: sandboxId ? { podSandboxId: sandboxId } : {} });
      const out: ContainerInfo[] = [];
      for (const c of r.containers ?? []) {
        const known = exited.get(c.id);
        if (known) {
          out.push(known);
          continue;
        }
        const st = await rt('containerStatus', { containerId: c.id }).catch(() => undefined);
        if (!st?.status) continue;
        const info = toInfo(st.status, c.podSandboxId);
        if (info.logPath) logPaths.set(info.id, info.logPath);
        if (info.state === 'exited') exited.set(info.id, info);
        out.push(info);
      }
      return out;
    },
    async probe(container, sandbox, _kind, probe, pod) {
      const spec = (pod.spec?.containers ?? []).find((c: any) => c.name === container.name);
      // the pod's IP, as the reference probes (the host's for host-network pods)
      const host = sandbox.ip || pod.status?.podIP || '127.0.0.1';
      if (probe.exec) {
        const timeout = probe.timeoutSeconds ?? 1;
        const r = await rt('execSync', { containerId: container.id, cmd: probe.exec.command ?? [], timeout }, o.timeoutMs + timeout * 1000);
        return r.exitCode === 0;
      }
      if (probe.httpGet) return httpProbe(probe, host, spec);
      if (probe.tcpSocket) return tcpProbe(probe, host, spec);
      throw new Error('unsupported probe handler (exec, httpGet and tcpSocket are)');
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

function toSandbox(s: any): SandboxInfo {
  return { id: s.id, uid: s.metadata?.uid ?? '', name: s.metadata?.name ?? '', namespace: s.metadata?.namespace ?? '', attempt: s.metadata?.attempt ?? 0, ready: s.state === 'SANDBOX_READY', createdAt: ms(s.createdAt) ?? 0 };
}

function sandboxConfig(c: SandboxConfig) {
  return {
    metadata: { name: c.name, uid: c.uid, namespace: c.namespace, attempt: c.attempt },
    hostname: c.hostname ?? '',
    logDirectory: c.logDirectory,
    ...(c.dns ? { dnsConfig: c.dns } : {}),
    labels: c.labels,
    annotations: c.annotations,
    linux: { sysctls: c.sysctls, securityContext: { namespaceOptions: { network: c.hostNetwork ? 'NODE' : 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
}
