// The node's usage summary (the reference's /stats/summary, stats/v1alpha1): the node (CPU, memory,
// network, its filesystem and the image filesystem, process counts) and each pod with its containers
// (CPU, memory, writable layer, logs), volumes and ephemeral storage, from the runtime's container
// statistics. CPU rates (nanocores) are the change of CPU time since an earlier sample.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentPod } from '../objects.js';
import type { ContainerInfo, ContainerRuntime, ContainerStats, SandboxInfo } from '../runtime/types.js';
import { podLogDirectory } from '../sandbox.js';
import { cgroupUsage } from '../cgroups.js';
import { diskUsage, fsFigures, networkInterfaces, nodeCpuNanos, nodeMemory, processCounts, type FsFigures, type InterfaceFigures } from './host.js';

export interface CpuStats {
  time: string;
  usageNanoCores?: number;
  usageCoreNanoSeconds: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface FsStats extends Partial<FsFigures> {
  time: string;
}

export interface NetworkStats extends Partial<InterfaceFigures> {
  time: string;
  interfaces: InterfaceFigures[];
}

export interface ContainerSummary {
  name: string;
  startTime: string;
  cpu?: CpuStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface VolumeSummary extends FsStats {
  name: string;
  pvcRef?: { name: string; namespace: string };
}

export interface PodSummary {
  podRef: { name: string; namespace: string; uid: string };
  startTime: string;
  containers: ContainerSummary[];
  cpu?: CpuStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeSummary[];
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count: number };
}

export interface Summary {
  node: {
    nodeName: string;
    systemContainers: ContainerSummary[];
    startTime: string;
    cpu?: CpuStats;
    memory?: MemoryStats;
    network?: NetworkStats;
    fs?: FsStats;
    runtime?: { imageFs?: FsStats };
    rlimit?: { time: string; maxpid: number; curproc: number };
  };
  pods: PodSummary[];
}

export interface StatsDeps {
  nodeName: string;
  runtime: ContainerRuntime;
  rootDir: string;
  /** the pods the node runs, with their containers */
  pods(): { pod: AgentPod; containers: ContainerInfo[]; sandbox?: SandboxInfo }[];
  /** the pod's folder (its volumes live under it) */
  podDir(pod: AgentPod): string;
  /** simulated nodes: node figures are the sum of their pods, filesystems the node's declared capacity */
  simulated?: { capacityBytes: number };
  labelDomain: string;
  /** the cgroups of the agent (--agent-cgroups), the runtime (--runtime-cgroups) and the pods (kubepods) */
  systemCgroups?: { kubelet?: string; runtime?: string; pods?: string };
  cgroupFsRoot?: string;
}

export interface StatsProvider {
  summary(): Promise<Summary>;
  /** takes a sample now, so the next summary has rates */
  sample(): Promise<void>;
}

// times keep their milliseconds here, for /metrics/resource, whose consumers divide by the window between two
// samples; the JSON of /stats/summary has whole seconds, as the reference writes its times (summaryJson)
const iso = (ms: number) => new Date(ms).toISOString();

/** the summary as /stats/summary sends it: times in whole seconds */
export const summaryJson = (s: Summary): string =>
  JSON.stringify(s, (key, value) => ((key === 'time' || key === 'startTime') && typeof value === 'string' ? value.replace(/\.\d+Z$/, 'Z') : value));
const agentStart = Date.now();

/** two samples of cumulative CPU time per key, to derive a rate */
interface CpuSample {
  at: number;
  nanos: number;
}

export function createStats(d: StatsDeps): StatsProvider {
  const history = new Map<string, CpuSample[]>();
  const minWindowMs = 1000;
  /** the keys of the summary being made: the samples of the others (containers and pods gone) are dropped after it */
  let touched = new Set<string>();

  /** the CPU rate since the newest sample at least a second old, remembering this one */
  function rate(key: string, at: number, nanos: number): number | undefined {
    touched.add(key);
    const samples = history.get(key) ?? [];
    const base = [...samples].reverse().find((s) => at - s.at >= minWindowMs);
    const older = samples.filter((s) => at - s.at < 60_000);
    if (!samples.length || at - samples.at(-1)!.at >= minWindowMs) older.push({ at, nanos });
    history.set(key, older.slice(-3));
    if (!base || nanos < base.nanos) return undefined;
    return Math.round(((nanos - base.nanos) * 1000) / (at - base.at));
  }

  const cpuOf = (key: string, at: number, nanos: number, given?: number): CpuStats => {
    const r = given ?? rate(key, at, nanos);
    return { time: iso(at), usageCoreNanoSeconds: Math.round(nanos), ...(r !== undefined ? { usageNanoCores: r } : {}) };
  };

  /**
   * `cpuOnly`: the figures a sample needs (the CPU counters, for rates) without walking the disk for logs, volumes
   * and file systems, which with thousands of pods a process (their folders mostly absent on simulated nodes) was
   * most of the agent's CPU
   */
  async function summary(cpuOnly = false): Promise<Summary> {
    touched = new Set();
    const made = await collect(cpuOnly);
    for (const key of history.keys()) if (!touched.has(key)) history.delete(key);
    return made;
  }

  async function collect(cpuOnly: boolean): Promise<Summary> {
    const now = Date.now();
    const stats = new Map<string, ContainerStats>((await d.runtime.containerStats().catch(() => [])).map((s) => [s.id, s]));
    const sandboxStats = new Map((await d.runtime.sandboxStats?.().catch(() => []) ?? []).map((s) => [s.id, s]));
    const imageFs = cpuOnly ? undefined : await d.runtime.imageFsUsage?.().catch(() => undefined);
    const imageFsFigures = imageFs?.mountpoint ? await fsFigures(imageFs.mountpoint) : undefined;
    const nodeFs = d.simulated || cpuOnly ? undefined : await fsFigures(d.rootDir);
    const pods: PodSummary[] = [];
    for (const { pod, containers, sandbox } of d.pods()) {
      const running = containers.filter((c) => c.state === 'running');
      if (!running.length && !sandbox) continue;
      const cs: ContainerSummary[] = [];
      let podCpu = 0;
      let podMemory = 0;
      let haveCpu = false;
      /** the pod's rate when the runtime gave every container's (the fake runtime does: then nothing is sampled) */
      let podRate: number | undefined = 0;
      let ephemeral = 0;
      for (const c of running) {
        const s = stats.get(c.id);
        const at = s?.timestamp ?? now;
        const logs = cpuOnly ? { bytes: 0, inodes: 0 } : await diskUsage(join(podLogDirectory(d.rootDir, pod), c.name));
        ephemeral += logs.bytes + (s?.writableLayer?.usedBytes ?? 0);
        const fs = (figures: FsFigures | undefined, used: number, inodesUsed: number | undefined): FsStats => ({
          time: iso(at), ...(figures ? { availableBytes: figures.availableBytes, capacityBytes: figures.capacityBytes, inodes: figures.inodes, inodesFree: figures.inodesFree } : {}),
          usedBytes: used, ...(inodesUsed !== undefined ? { inodesUsed } : {}),
        });
        if (s?.cpu) {
          podCpu += s.cpu.usageCoreNanoSeconds;
          haveCpu = true;
          podRate = podRate !== undefined && s.cpu.usageNanoCores !== undefined ? podRate + s.cpu.usageNanoCores : undefined;
        }
        if (s?.memory) podMemory += s.memory.workingSetBytes;
        cs.push({
          name: c.name,
          startTime: iso(c.startedAt ?? c.createdAt),
          ...(s?.cpu ? { cpu: cpuOf(`c/${c.id}`, at, s.cpu.usageCoreNanoSeconds, s.cpu.usageNanoCores) } : {}),
          ...(s?.memory ? { memory: { time: iso(at), ...s.memory } } : {}),
          ...(s?.writableLayer ? { rootfs: fs(imageFsFigures, s.writableLayer.usedBytes, s.writableLayer.inodesUsed) } : {}),
          logs: fs(nodeFs, logs.bytes, logs.inodes),
        });
      }
      const volumes = cpuOnly ? [] : await volumeStats(pod, now);
      for (const v of volumes) ephemeral += v.usedBytes ?? 0;
      const net = sandbox ? sandboxStats.get(sandbox.id) : undefined;
      const uid = pod.metadata.uid;
      pods.push({
        podRef: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid },
        startTime: pod.status?.startTime ?? iso(now),
        containers: cs,
        ...(haveCpu ? { cpu: cpuOf(`p/${uid}`, now, podCpu, podRate) } : {}),
        ...(running.length ? { memory: { time: iso(now), workingSetBytes: podMemory, usageBytes: podMemory } } : {}),
        ...(net?.network?.length ? { network: { time: iso(net.timestamp), ...net.network[0], interfaces: net.network } } : {}),
        ...(volumes.length ? { volume: volumes } : {}),
        'ephemeral-storage': { time: iso(now), ...(nodeFs ? { availableBytes: nodeFs.availableBytes, capacityBytes: nodeFs.capacityBytes } : {}), usedBytes: ephemeral },
        ...(net?.processCount ? { process_stats: { process_count: net.processCount } } : {}),
      });
    }

    let cpu: CpuStats;
    let memory: MemoryStats;
    if (d.simulated) {
      const nanos = pods.reduce((n, p) => n + (p.cpu?.usageCoreNanoSeconds ?? 0), 0);
      const given = pods.every((p) => !p.cpu || p.cpu.usageNanoCores !== undefined);
      cpu = cpuOf('node', now, nanos, given ? pods.reduce((n, p) => n + (p.cpu?.usageNanoCores ?? 0), 0) : undefined);
      const ws = pods.reduce((n, p) => n + (p.memory?.workingSetBytes ?? 0), 0);
      memory = { time: iso(now), workingSetBytes: ws, usageBytes: ws };
    } else {
      cpu = cpuOf('node', now, nodeCpuNanos());
      memory = { time: iso(now), ...nodeMemory() };
    }
    const interfaces = d.simulated ? [] : networkInterfaces();
    const simulatedFs = d.simulated ? { capacityBytes: d.simulated.capacityBytes, availableBytes: d.simulated.capacityBytes, usedBytes: 0 } : undefined;
    return {
      node: {
        nodeName: d.nodeName,
        systemContainers: systemContainers(now),
        startTime: iso(agentStart),
        cpu,
        memory,
        ...(interfaces.length ? { network: { time: iso(now), ...interfaces[0], interfaces } } : {}),
        fs: { time: iso(now), ...(nodeFs ?? simulatedFs) },
        runtime: { imageFs: { time: iso(now), ...(imageFsFigures ?? simulatedFs), ...(imageFs ? { usedBytes: imageFs.used, inodesUsed: imageFs.inodesUsed } : {}) } },
        rlimit: { time: iso(now), ...processCounts() },
      },
      pods,
    };
  }

  /** the agent (its cgroup, else its process), the runtime and the pods' cgroup when known */
  function systemContainers(now: number): ContainerSummary[] {
    const out: ContainerSummary[] = [];
    const groups = d.systemCgroups ?? {};
    for (const name of ['kubelet', 'runtime', 'pods'] as const) {
      const path = groups[name];
      const use = path ? cgroupUsage(path, d.cgroupFsRoot) : undefined;
      if (use) {
        out.push({ name, startTime: iso(agentStart), cpu: cpuOf(`system/${name}`, now, use.cpuNanos), memory: { time: iso(now), workingSetBytes: use.workingSetBytes, usageBytes: use.usageBytes } });
      } else if (name === 'kubelet') {
        const cpu = process.cpuUsage();
        const rss = process.memoryUsage().rss;
        out.push({ name, startTime: iso(agentStart), cpu: cpuOf('system/kubelet', now, (cpu.user + cpu.system) * 1000), memory: { time: iso(now), workingSetBytes: rss, rssBytes: rss } });
      }
    }
    return out;
  }

  /** usage of the volumes the agent keeps in the pod's folder */
  async function volumeStats(pod: AgentPod, now: number): Promise<VolumeSummary[]> {
    const out: VolumeSummary[] = [];
    const base = join(d.podDir(pod), 'volumes');
    for (const kind of await readdir(base).catch(() => [] as string[])) {
      if (!kind.startsWith(`${d.labelDomain}~`)) continue;
      for (const name of await readdir(join(base, kind)).catch(() => [] as string[])) {
        const dir = join(base, kind, name);
        const [use, fs] = await Promise.all([diskUsage(dir), d.simulated ? undefined : fsFigures(dir)]);
        out.push({ time: iso(now), name, ...(fs ? { availableBytes: fs.availableBytes, capacityBytes: fs.capacityBytes, inodes: fs.inodes, inodesFree: fs.inodesFree } : {}), usedBytes: use.bytes, inodesUsed: use.inodes });
      }
    }
    for (const v of pod.spec.volumes ?? []) {
      const claim = v.persistentVolumeClaim;
      if (!claim) continue;
      out.push({ time: iso(now), name: v.name, pvcRef: { name: claim.claimName, namespace: pod.metadata.namespace } });
    }
    return out;
  }

  return {
    summary: () => summary(),
    async sample() {
      await summary(true);
    },
  };
}
