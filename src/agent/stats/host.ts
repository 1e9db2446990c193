// The node's own figures: CPU time and memory of the machine (from the root cgroup when it is
// readable, else /proc), its network interfaces, filesystems and process counts.

import { existsSync, readFileSync } from 'node:fs';
import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

/** CPU time the machine spent, in nanoseconds */
export function nodeCpuNanos(fsRoot = '/sys/fs/cgroup'): number {
  const v1 = read(join(fsRoot, 'cpuacct', 'cpuacct.usage')) || read(join(fsRoot, 'cpu,cpuacct', 'cpuacct.usage'));
  if (v1.trim()) return Number(v1.trim());
  // /proc/stat: the busy jiffies of all CPUs (user, nice, system, irq, softirq, steal), 100 per second
  const cpu = read('/proc/stat').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const busy = (cpu[0] ?? 0) + (cpu[1] ?? 0) + (cpu[2] ?? 0) + (cpu[5] ?? 0) + (cpu[6] ?? 0) + (cpu[7] ?? 0);
  return busy * 1e7;
}

export interface MemoryFigures {
  availableBytes: number;
  usageBytes: number;
  workingSetBytes: number;
  rssBytes: number;
  pageFaults: number;
  majorPageFaults: number;
}

/** the machine's memory: used (total less free), the working set (less the inactive file cache), faults */
export function nodeMemory(): MemoryFigures {
  const meminfo = read('/proc/meminfo');
  const kb = (key: string) => Number(new RegExp(`^${key.replace(/[()]/g, '\\$&')}:\\s+(\\d+)`, 'm').exec(meminfo)?.[1] ?? 0) * 1024;
  const vmstat = read('/proc/vmstat');
  const count = (key: string) => Number(new RegExp(`^${key} (\\d+)`, 'm').exec(vmstat)?.[1] ?? 0);
  const usage = kb('MemTotal') - kb('MemFree');
  return {
    availableBytes: kb('MemAvailable'),
    usageBytes: usage,
    workingSetBytes: Math.max(0, usage - kb('Inactive(file)')),
    rssBytes: kb('AnonPages'),
    pageFaults: count('pgfault'),
    majorPageFaults: count('pgmajfault'),
  };
}

export interface InterfaceFigures {
  name: string;
  rxBytes: number;
  rxErrors: number;
  txBytes: number;
  txErrors: number;
}

/** the interfaces of a network namespace (the node's by default), loopback left out */
export function networkInterfaces(devFile = '/proc/net/dev'): InterfaceFigures[] {
  return read(devFile).split('\n').slice(2).filter((l) => l.includes(':')).map((l) => {
    const [name, rest] = l.split(':') as [string, string];
    const f = rest.trim().split(/\s+/).map(Number);
    return { name: name.trim(), rxBytes: f[0] ?? 0, rxErrors: f[2] ?? 0, txBytes: f[8] ?? 0, txErrors: f[10] ?? 0 };
  }).filter((i) => i.name !== 'lo');
}

export interface FsFigures {
  availableBytes: number;
  capacityBytes: number;
  usedBytes: number;
  inodesFree: number;
  inodes: number;
  inodesUsed: number;
}

/** the filesystem holding a path (its nearest existing folder) */
export async function fsFigures(path: string): Promise<FsFigures | undefined> {
  let dir = path;
  while (!existsSync(dir) && dir !== '/') dir = join(dir, '..');
  const s = await statfs(dir).catch(() => undefined);
  if (!s) return undefined;
  return {
    availableBytes: s.bavail * s.bsize, capacityBytes: s.blocks * s.bsize, usedBytes: (s.blocks - s.bfree) * s.bsize,
    inodesFree: s.ffree, inodes: s.files, inodesUsed: s.files - s.ffree,
  };
}

/** bytes and inodes under a folder (links not followed); a bound on the entries keeps a huge tree cheap */
export async function diskUsage(dir: string, maxEntries = 100_000): Promise<{ bytes: number; inodes: number }> {
  let bytes = 0;
  let inodes = 0;
  const stack = [dir];
  while (stack.length && inodes < maxEntries) {
    const d = stack.pop()!;
    const st = await lstat(d).catch(() => undefined);
    if (!st) continue;
    inodes++;
    bytes += st.blocks * 512;
    if (!st.isDirectory()) continue;
    for (const e of await readdir(d).catch(() => [] as string[])) stack.push(join(d, e));
  }
  return { bytes, inodes };
}

export function processCounts(): { maxpid: number; curproc: number } {
  return {
    maxpid: Number(read('/proc/sys/kernel/pid_max').trim()) || 32768,
    curproc: Number(read('/proc/loadavg').split(' ')[3]?.split('/')[1] ?? 0),
  };
}
