// The node's cgroup hierarchy (the reference's QoS layout): with --cgroups-per-qos, `kubepods` under
// --cgroup-root holds the guaranteed pods directly and the `burstable` and `besteffort` groups; each pod
// has a group `pod<uid>` whose limits are its containers' sums, and the runtime puts the pod's
// containers under it. `kubepods` is capped at the node's allocatable when --enforce-node-allocatable
// has `pods`; the reserved groups get the reserved amounts when it has `system-reserved` or
// `cluster-reserved`. --cgroup-driver=systemd names the groups as systemd slices
// (kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice).
//
// The groups are written straight to the cgroup filesystem: cgroup v1 (one hierarchy per controller)
// and v2 (one unified hierarchy, controllers enabled per level).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentPod } from './objects.js';
import { milliCpuToQuota, milliCpuToShares, podLimit, podRequests, qosClass, type QosClass } from './resources.js';

export type CgroupDriver = 'cgroupfs' | 'systemd';

export interface CgroupSettings {
  driver: CgroupDriver;
  /** --cgroup-root; '' is the root of the hierarchy */
  root: string;
  perQos: boolean;
  /** --enforce-node-allocatable levels */
  enforce: string[];
  systemReservedCgroup?: string;
  clusterReservedCgroup?: string;
  /** the node's capacity: cpu in millicores, memory in bytes, pids */
  capacity: { cpu: number; memory: number; pids: number };
  systemReserved: Record<string, number>;
  clusterReserved: Record<string, number>;
  /** --pod-max-pids; -1 or 0 is no limit */
  podPidsLimit: number;
  cfsQuota: boolean;
  cfsPeriodUs: number;
  /** --qos-reserved memory, as a fraction (needs the QOSReserved gate) */
  qosReservedMemory?: number;
  /** where the cgroup filesystems are mounted (tests point it elsewhere) */
  fsRoot?: string;
}

export interface CgroupManager {
  readonly version: 1 | 2;
  /** creates kubepods and the QoS groups and enforces node allocatable */
  start(): Promise<void>;
  /** the pod's group, created with its limits; its name for the runtime (the sandbox's cgroup parent) */
  ensurePod(pod: AgentPod): Promise<string>;
  /** ends processes left in the pod's group and removes it */
  removePod(pod: AgentPod): Promise<void>;
  /** the burstable and best-effort groups follow the pods that run (shares of requests, reserved memory) */
  updateQos(pods: AgentPod[]): Promise<void>;
  /** a group's folder on the filesystem for a controller (v1) or the unified one (v2) */
  pathOf(name: string, controller: string): string;
  /** the name of the pod's group as the runtime sees it */
  podCgroupName(pod: AgentPod): string;
  /** groups of pods no source wants (left from before a restart) are removed; returns their uids */
  removeOrphans(wanted: (uid: string) => boolean): Promise<string[]>;
}

/** the levels of a pod's group below the root: [kubepods, burstable?, pod<uid>] */
function podLevels(pod: AgentPod, perQos: boolean): string[] {
  if (!perQos) return [];
  const qos = qosClass(pod);
  const pod$ = `pod${pod.metadata.uid}`;
  return qos === 'Guaranteed' ? ['kubepods', pod$] : ['kubepods', qos.toLowerCase(), pod$];
}

/** `[kubepods, burstable, podX]` as systemd slices: the runtime's name is the last one, the path nests them */
export function systemdSlices(levels: string[]): string[] {
  const escape = (s: string) => s.replaceAll('-', '_');
  return levels.map((_, i) => `${levels.slice(0, i + 1).map(escape).join('-')}.slice`);
}

/** A group's path in the hierarchy and its name for the runtime, for one driver. */
export function cgroupName(driver: CgroupDriver, root: string, levels: string[]): { path: string; runtimeName: string } {
  if (driver === 'systemd') {
    const slices = systemdSlices(levels);
    const base = root && root !== '/' ? `/${root.replace(/^\/+|\/+$/g, '')}` : '';
    return { path: `${base}/${slices.join('/')}`, runtimeName: slices.at(-1) ?? (root || '/') };
  }
  const path = `/${[root.replace(/^\/+|\/+$/g, ''), ...levels].filter(Boolean).join('/')}`;
  return { path, runtimeName: path };
}

/** v1 shares to v2 weight, as the runtimes convert them */
const sharesToWeight = (shares: number) => Math.round(1 + ((shares - 2) * 9999) / 262142);

interface Limits {
  cpuShares?: number;
  cpuQuotaUs?: number;
  memoryBytes?: number;
  pids?: number;
}

export function createCgroupManager(s: CgroupSettings): CgroupManager {
  const fsRoot = s.fsRoot ?? '/sys/fs/cgroup';
  const version: 1 | 2 = existsSync(join(fsRoot, 'cgroup.controllers')) ? 2 : 1;
  /** v1: every mounted hierarchy, each controller's folder */
  const hierarchies = version === 1 ? v1Hierarchies(fsRoot) : [];
  const named = (levels: string[]) => cgroupName(s.driver, s.root, levels);

  const pathOf = (name: string, controller: string) =>
    version === 2 ? join(fsRoot, name) : join(fsRoot, hierarchies.includes(controller) ? controller : controller === 'cpuacct' ? 'cpu,cpuacct' : controller, name);

  const write = async (file: string, value: string | number) => {
    try {
      await writeFile(file, String(value));
    } catch (e) {
      throw new Error(`cgroup: writing ${value} to ${file}: ${(e as Error).message}`);
    }
  };

  /** creates a group (and the levels above it) in every hierarchy */
  async function create(path: string) {
    if (version === 2) {
      const parts = path.split('/').filter(Boolean);
      for (let i = 0; i < parts.length; i++) {
        const dir = join(fsRoot, ...parts.slice(0, i + 1));
        await mkdir(dir, { recursive: true });
        // the controllers are enabled at every level above a group that uses them
        const parent = join(fsRoot, ...parts.slice(0, i));
        const available = (await readFile(join(parent, 'cgroup.controllers'), 'utf8').catch(() => '')).split(/\s+/);
        const wanted = ['cpu', 'cpuset', 'memory', 'pids', 'io', 'hugetlb'].filter((c) => available.includes(c));
        if (wanted.length) await write(join(parent, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' ')).catch(() => {});
      }
      return;
    }
    for (const h of hierarchies) {
      const parts = path.split('/').filter(Boolean);
      for (let i = 0; i < parts.length; i++) {
        const dir = join(fsRoot, h, ...parts.slice(0, i + 1));
        if (existsSync(dir)) continue;
        await mkdir(dir);
        // a new cpuset group has no CPUs or memory nodes until they are copied from its parent
        if (h === 'cpuset' || h.split(',').includes('cpuset')) {
          for (const f of ['cpuset.cpus', 'cpuset.mems']) {
            const parentValue = (await readFile(join(dir, '..', f), 'utf8').catch(() => '')).trim();
            if (parentValue) await write(join(dir, f), parentValue);
          }
        }
      }
    }
  }

  async function apply(path: string, l: Limits) {
    if (version === 2) {
      const dir = join(fsRoot, path);
      if (l.cpuShares !== undefined) await write(join(dir, 'cpu.weight'), sharesToWeight(l.cpuShares));
      if (l.cpuQuotaUs !== undefined) await write(join(dir, 'cpu.max'), `${l.cpuQuotaUs > 0 ? l.cpuQuotaUs : 'max'} ${s.cfsPeriodUs}`);
      if (l.memoryBytes !== undefined) await write(join(dir, 'memory.max'), l.memoryBytes > 0 ? l.memoryBytes : 'max');
      if (l.pids !== undefined && existsSync(join(dir, 'pids.max'))) await write(join(dir, 'pids.max'), l.pids > 0 ? l.pids : 'max');
      return;
    }
    if (l.cpuShares !== undefined) await write(join(pathOf(path, 'cpu'), 'cpu.shares'), l.cpuShares);
    if (l.cpuQuotaUs !== undefined) {
      await write(join(pathOf(path, 'cpu'), 'cpu.cfs_period_us'), s.cfsPeriodUs);
      await write(join(pathOf(path, 'cpu'), 'cpu.cfs_quota_us'), l.cpuQuotaUs > 0 ? l.cpuQuotaUs : -1);
    }
    if (l.memoryBytes !== undefined) await write(join(pathOf(path, 'memory'), 'memory.limit_in_bytes'), l.memoryBytes > 0 ? l.memoryBytes : -1);
    if (l.pids !== undefined && hierarchies.includes('pids')) await write(join(pathOf(path, 'pids'), 'pids.max'), l.pids > 0 ? l.pids : 'max');
  }

  async function remove(path: string) {
    const dirs = version === 2 ? [join(fsRoot, path)] : hierarchies.map((h) => join(fsRoot, h, path));
    for (let attempt = 0; attempt < 20; attempt++) {
      let left = 0;
      for (const dir of dirs) {
        if (!existsSync(dir)) continue;
        // processes left behind (the runtime normally ends them) are killed before the group goes
        for (const sub of descendants(dir)) {
          for (const pid of readFileSync(join(sub, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
            try {
              process.kill(Number(pid), 'SIGKILL');
            } catch {}
          }
          await rmdir(sub).catch(() => left++);
        }
      }
      if (!left) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`cgroup ${path} could not be removed: processes are still in it`);
  }

  const reservedTotal = (k: string) => (s.systemReserved[k] ?? 0) + (s.clusterReserved[k] ?? 0);
  const enforcePods = s.enforce.includes('pods');
  /** kubepods is capped at allocatable when enforced, else at capacity */
  const podsLimits = (): Limits => {
    const minus = (k: string) => (enforcePods ? reservedTotal(k) : 0);
    return {
      cpuShares: milliCpuToShares(s.capacity.cpu - minus('cpu')),
      memoryBytes: s.capacity.memory - minus('memory'),
      ...(enforcePods && reservedTotal('pid') ? { pids: s.capacity.pids - reservedTotal('pid') } : {}),
    };
  };
  const top = () => named(['kubepods']).path;

  return {
    version,
    async start() {
      if (!s.perQos) return;
      await create(top());
      await apply(top(), podsLimits());
      for (const qos of ['burstable', 'besteffort']) {
        const path = named(['kubepods', qos]).path;
        await create(path);
        await apply(path, { cpuShares: minShares(qos) });
      }
      const reservedGroups: [string, string | undefined, Record<string, number>][] = [
        ['system-reserved', s.systemReservedCgroup, s.systemReserved], ['cluster-reserved', s.clusterReservedCgroup, s.clusterReserved],
      ];
      for (const [level, group, reserved] of reservedGroups) {
        if (!s.enforce.includes(level)) continue;
        if (!group) throw new Error(`--enforce-node-allocatable has ${level} but --${level}-cgroup is not set`);
        const path = `/${group.replace(/^\/+/, '')}`;
        if (!existsSync(pathOf(path, 'memory')) && !existsSync(pathOf(path, 'cpu'))) throw new Error(`the ${level} cgroup ${group} does not exist`);
        await apply(path, {
          ...(reserved.cpu ? { cpuShares: milliCpuToShares(reserved.cpu) } : {}),
          ...(reserved.memory ? { memoryBytes: reserved.memory } : {}),
          ...(reserved.pid ? { pids: reserved.pid } : {}),
        });
      }
    },
    async ensurePod(pod) {
      if (!s.perQos) return s.root ? named([]).runtimeName : '';
      const { path, runtimeName } = named(podLevels(pod, true));
      await create(path);
      const cpuLimit = podLimit(pod, 'cpu');
      const requested = podRequests(pod);
      await apply(path, {
        cpuShares: qosClass(pod) === 'BestEffort' ? 2 : milliCpuToShares(requested.cpu ?? 0),
        ...(s.cfsQuota ? { cpuQuotaUs: cpuLimit ? milliCpuToQuota(cpuLimit, s.cfsPeriodUs) : 0 } : {}),
        memoryBytes: podLimit(pod, 'memory') ?? 0,
        ...(s.podPidsLimit > 0 ? { pids: s.podPidsLimit } : {}),
      });
      return runtimeName;
    },
    async removePod(pod) {
      if (!s.perQos) return;
      await remove(named(podLevels(pod, true)).path);
    },
    async updateQos(pods) {
      if (!s.perQos) return;
      const burstable = pods.filter((p) => qosClass(p) === 'Burstable');
      const guaranteed = pods.filter((p) => qosClass(p) === 'Guaranteed');
      const sum = (list: AgentPod[], k: string) => list.reduce((n, p) => n + (podRequests(p)[k] ?? 0), 0);
      const burstableLimits: Limits = { cpuShares: milliCpuToShares(sum(burstable, 'cpu')) };
      const bestEffortLimits: Limits = { cpuShares: 2 };
      if (s.qosReservedMemory !== undefined) {
        const allocatable = podsLimits().memoryBytes!;
        burstableLimits.memoryBytes = Math.max(1, allocatable - s.qosReservedMemory * sum(guaranteed, 'memory'));
        bestEffortLimits.memoryBytes = Math.max(1, burstableLimits.memoryBytes - s.qosReservedMemory * sum(burstable, 'memory'));
      }
      await apply(named(['kubepods', 'burstable']).path, burstableLimits);
      await apply(named(['kubepods', 'besteffort']).path, bestEffortLimits);
    },
    pathOf,
    async removeOrphans(wanted) {
      if (!s.perQos) return [];
      const removed: string[] = [];
      for (const levels of [['kubepods'], ['kubepods', 'burstable'], ['kubepods', 'besteffort']]) {
        const dir = version === 2 ? join(fsRoot, named(levels).path) : pathOf(named(levels).path, 'memory');
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          const uid = s.driver === 'systemd' ? /pod([0-9a-f_]+)\.slice$/.exec(e.name)?.[1]?.replaceAll('_', '-') : /^pod(.+)$/.exec(e.name)?.[1];
          if (!e.isDirectory() || !uid || wanted(uid)) continue;
          await remove(named([...levels, `pod${uid}`]).path);
          removed.push(uid);
        }
      }
      return removed;
    },
    podCgroupName: (pod) => (s.perQos ? named(podLevels(pod, true)).runtimeName : s.root ? named([]).runtimeName : ''),
  };
}

const minShares = (qos: string) => (qos === 'besteffort' ? 2 : milliCpuToShares(0));

/** the mounted v1 hierarchies, by folder name (cpu, memory, pids, cpu,cpuacct, ...) */
function v1Hierarchies(fsRoot: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(fsRoot);
  } catch {
    return [];
  }
  return entries.filter((e) => e !== 'unified' && existsSync(join(fsRoot, e, 'cgroup.procs')) && !readdirSync(join(fsRoot, e)).includes('cgroup.controllers'));
}

/** a group and every group below it, deepest first */
function descendants(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) out.push(...descendants(join(dir, e.name)));
  out.push(dir);
  return out;
}

export type { QosClass };

/** CPU time and memory of a group (v1 or v2), for the statistics of the agent, the runtime and the pods */
export function cgroupUsage(path: string, fsRoot = '/sys/fs/cgroup'): { cpuNanos: number; usageBytes: number; workingSetBytes: number } | undefined {
  const read = (f: string) => {
    try {
      return readFileSync(join(fsRoot, f), 'utf8');
    } catch {
      return undefined;
    }
  };
  const statValue = (text: string | undefined, key: string) => Number(new RegExp(`^${key} (\\d+)`, 'm').exec(text ?? '')?.[1] ?? 0);
  if (existsSync(join(fsRoot, 'cgroup.controllers'))) {
    const cpu = read(join(path, 'cpu.stat'));
    const current = read(join(path, 'memory.current'));
    if (cpu === undefined && current === undefined) return undefined;
    const usage = Number(current ?? 0);
    return { cpuNanos: statValue(cpu, 'usage_usec') * 1000, usageBytes: usage, workingSetBytes: Math.max(0, usage - statValue(read(join(path, 'memory.stat')), 'inactive_file')) };
  }
  const cpu = read(join('cpuacct', path, 'cpuacct.usage')) ?? read(join('cpu,cpuacct', path, 'cpuacct.usage'));
  const usageText = read(join('memory', path, 'memory.usage_in_bytes'));
  if (cpu === undefined && usageText === undefined) return undefined;
  const usage = Number(usageText ?? 0);
  return { cpuNanos: Number(cpu ?? 0), usageBytes: usage, workingSetBytes: Math.max(0, usage - statValue(read(join('memory', path, 'memory.stat')), 'total_inactive_file')) };
}

/** moves a process into a group (made when missing) in every hierarchy */
export async function joinCgroup(path: string, pid: number, fsRoot = '/sys/fs/cgroup'): Promise<void> {
  const dirs = existsSync(join(fsRoot, 'cgroup.controllers')) ? [join(fsRoot, path)] : v1Hierarchies(fsRoot).map((h) => join(fsRoot, h, path));
  for (const dir of dirs) {
    await mkdir(dir, { recursive: true });
    if (dir.includes('cpuset')) {
      for (const f of ['cpuset.cpus', 'cpuset.mems']) {
        const own = (await readFile(join(dir, f), 'utf8').catch(() => '')).trim();
        if (!own) await writeFile(join(dir, f), (await readFile(join(dir, '..', f), 'utf8').catch(() => '')).trim()).catch(() => {});
      }
    }
    await writeFile(join(dir, 'cgroup.procs'), String(pid));
  }
}
