// The CPU manager (--cpu-manager-policy). `none`: containers run on every CPU. `static`: a container of a
// guaranteed pod asking for whole CPUs gets CPUs of its own; every other container runs on the shared
// pool (all CPUs less the exclusive ones; the reserved CPUs stay in it and are never given away). The
// CPUs are taken when the pod is admitted (a pod that cannot get them is rejected), given back when it
// ends, and written to a state file under --root-dir so a restart keeps them. Containers of the shared
// pool follow it every --cpu-manager-reconcile-period.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { AgentPod, Container } from './objects.js';
import { qosClass, requests } from './resources.js';

export interface CpuManagerSettings {
  policy: 'none' | 'static';
  /** --reserved-cpus, or as many of the first CPUs as the system and cluster reservations hold */
  reserved: number[];
  /** policy options: full-pcpus-only is accepted (every CPU here is a full physical CPU's thread set) */
  options: Record<string, string>;
  rootDir: string;
  /** the CPUs of the node (default: every CPU of the machine) */
  all?: number[];
}

export interface CpuManager {
  readonly policy: 'none' | 'static';
  /** takes the pod's exclusive CPUs; a message when it cannot */
  allocate(pod: AgentPod): string | undefined;
  /** the CPUs a container runs on: its own, or the shared pool; '' under `none` */
  cpuset(pod: AgentPod, c: Container): string;
  release(uid: string): void;
}

const stateFile = 'cpu_manager_state';

/** `0-2,5` ↔ [0, 1, 2, 5] */
export function parseCpuList(s: string): number[] {
  const out: number[] = [];
  for (const part of s.split(',').map((x) => x.trim()).filter(Boolean)) {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    for (let i = a; i <= (b ?? a); i++) out.push(i);
  }
  return [...new Set(out)].sort((x, y) => x - y);
}

export function formatCpuList(list: number[]): string {
  const sorted = [...new Set(list)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return ranges.join(',');
}

/** whole CPUs a container of a guaranteed pod asks for, else 0 */
function exclusiveCount(pod: AgentPod, c: Container): number {
  if (qosClass(pod) !== 'Guaranteed') return 0;
  const milli = requests(c).cpu ?? 0;
  return milli > 0 && milli % 1000 === 0 ? milli / 1000 : 0;
}

export function createCpuManager(s: CpuManagerSettings): CpuManager {
  const all = s.all ?? cpus().map((_, i) => i);
  /** uid → container → its CPUs */
  const assigned = new Map<string, Map<string, number[]>>();
  const file = join(s.rootDir, stateFile);
  if (s.policy === 'static' && !s.reserved.length) throw new Error('the static CPU manager policy needs reserved CPUs: set --reserved-cpus, or a cpu amount in --system-reserved or --cluster-reserved');
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as { policyName: string; entries?: Record<string, Record<string, string>> };
    if (state.policyName !== s.policy) throw new Error(`the CPU manager state in ${file} was written by policy ${state.policyName}, not ${s.policy}: drain the node and remove the file to change the policy`);
    for (const [uid, containers] of Object.entries(state.entries ?? {})) assigned.set(uid, new Map(Object.entries(containers).map(([name, list]) => [name, parseCpuList(list)])));
  }
  const taken = () => new Set([...assigned.values()].flatMap((m) => [...m.values()].flat()));
  const shared = () => {
    const t = taken();
    return all.filter((c) => !t.has(c));
  };
  const save = () => {
    const entries = Object.fromEntries([...assigned].map(([uid, m]) => [uid, Object.fromEntries([...m].map(([n, l]) => [n, formatCpuList(l)]))]));
    writeFileSync(file, JSON.stringify({ policyName: s.policy, defaultCpuSet: formatCpuList(shared()), entries }));
  };
  mkdirSync(s.rootDir, { recursive: true });
  save();

  return {
    policy: s.policy,
    allocate(pod) {
      if (s.policy !== 'static' || assigned.has(pod.metadata.uid)) return undefined;
      const mine = new Map<string, number[]>();
      const busy = taken();
      for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
        const n = exclusiveCount(pod, c);
        if (!n) continue;
        const free = all.filter((cpu) => !busy.has(cpu) && !s.reserved.includes(cpu));
        if (free.length < n) return `not enough cpus available to satisfy request: requested=${n}, available=${free.length}`;
        const pick = free.slice(0, n);
        for (const cpu of pick) busy.add(cpu);
        mine.set(c.name, pick);
      }
      if (mine.size) {
        assigned.set(pod.metadata.uid, mine);
        save();
      }
      return undefined;
    },
    cpuset(pod, c) {
      if (s.policy !== 'static') return '';
      const own = assigned.get(pod.metadata.uid)?.get(c.name);
      return formatCpuList(own ?? shared());
    },
    release(uid) {
      if (assigned.delete(uid)) save();
    },
  };
}
