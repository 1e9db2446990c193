// The volume manager: sets up every volume of a pod in its folder under --root-dir
// (pods/<uid>/volumes/<domain>~<kind>/<name>), keeps the content volumes up to date, turns a
// container's volumeMounts into the runtime's mounts (subPaths bound in place so a link inside the
// volume cannot lead out of it), and unmounts and removes everything when the pod goes.

import { mkdir, open, readdir, realpath, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { AgentPod, Container, Volume } from '../objects.js';
import { configMapVolume, contentFiles, downwardApiVolume, projectedVolume, secretVolume } from './content.js';
import { emptyDirVolume } from './empty-dir.js';
import { hostPathVolume } from './host-path.js';
import { persistentClaimVolume } from './persistent-claim.js';
import type { PreparedVolume, VolumeContext, VolumeKind } from './types.js';

export type { VolumeContext } from './types.js';

export type Propagation = 'private' | 'hostToContainer' | 'bidirectional';

/** a file of a simulated container's mount: its path in the container */
export interface MountedFile { path: string; data: Buffer; mode: number }

export interface MountSpec {
  containerPath: string;
  hostPath: string;
  readOnly: boolean;
  propagation: Propagation;
}

const kinds: Partial<Record<keyof Volume, VolumeKind>> = {
  emptyDir: emptyDirVolume,
  hostPath: hostPathVolume,
  configMap: configMapVolume,
  secret: secretVolume,
  downwardAPI: downwardApiVolume,
  projected: projectedVolume,
  persistentVolumeClaim: persistentClaimVolume,
  ephemeral: persistentClaimVolume,
};

/** a failure to set up one volume; the message is the reference's event text */
export class VolumeError extends Error {
  constructor(readonly volume: string, override readonly cause: Error) {
    super(`MountVolume.SetUp failed for volume "${volume}" : ${cause.message}`);
  }
}

/** the volumes of a pod that failed to set up, each with its own event text */
export class VolumeErrors extends Error {
  constructor(readonly failures: VolumeError[]) {
    super(failures.map((f) => f.message).join('; '));
  }
}

function kindOf(v: Volume): [keyof Volume, VolumeKind] {
  for (const [key, kind] of Object.entries(kinds) as [keyof Volume, VolumeKind][]) if (v[key] !== undefined && v[key] !== null) return [key, kind];
  const source = Object.keys(v).find((k) => k !== 'name') ?? 'none';
  throw new VolumeError(v.name, new Error(`volume type ${source} is not supported by this agent (emptyDir, hostPath, configMap, secret, downwardAPI, projected, persistentVolumeClaim and ephemeral are)`));
}

export interface VolumeManager {
  /** the pod's own folder under --root-dir */
  podDir(pod: AgentPod): string;
  /** sets up every volume of the pod (again: brings content volumes up to date); throws VolumeErrors naming each that failed */
  setUp(pod: AgentPod): Promise<void>;
  /** content volumes of the pod written again when their source changed; tokens renewed when due (throws as setUp) */
  refresh(pod: AgentPod): Promise<void>;
  /** whether the pod has volumes set up here that refresh() brings up to date (most pods of a node have some) */
  refreshes(pod: AgentPod): boolean;
  /** the runtime's mounts for one container; `env` expands subPathExpr */
  containerMounts(pod: AgentPod, container: Container, env: Map<string, string>): Promise<MountSpec[]>;
  /** unmounts and removes the pod's folder */
  tearDown(pod: AgentPod): Promise<void>;
  /** folders of pods no source wants (left from before a restart) are unmounted and removed; returns their uids */
  removeOrphans(wanted: (uid: string) => boolean): Promise<string[]>;
  /** simulated nodes: the files a container's content mounts would show (nothing is written or mounted) */
  simulatedFiles?(pod: AgentPod, container: Container): Promise<MountedFile[]>;
}

/**
 * The files a container of a simulated node would see through its configMap, secret, downwardAPI and projected
 * mounts (a subPath mount: the part under it), at their paths in the container. A volume whose content cannot be
 * read is left out, as a simulated container runs whatever its mounts hold.
 */
export async function simulatedMountFiles(pod: AgentPod, container: Container, ctx: VolumeContext): Promise<MountedFile[]> {
  const out: MountedFile[] = [];
  for (const m of container.volumeMounts ?? []) {
    const v = (pod.spec.volumes ?? []).find((x) => x.name === m.name);
    const files = v && await contentFiles(v, pod, ctx)?.catch(() => undefined);
    if (!files) continue;
    const sub = (m.subPath ?? '').replace(/\/+$/, '');
    for (const [path, f] of files) {
      const rel = !sub ? path : path === sub ? '' : path.startsWith(`${sub}/`) ? path.slice(sub.length + 1) : undefined;
      if (rel !== undefined) out.push({ path: rel ? `${m.mountPath.replace(/\/+$/, '')}/${rel}` : m.mountPath, data: f.data, mode: f.mode });
    }
  }
  return out;
}

export function createVolumeManager(rootDir: string, ctx: VolumeContext): VolumeManager {
  const prepared = new Map<string, Map<string, PreparedVolume>>();
  const podDir = (pod: AgentPod) => join(rootDir, 'pods', pod.metadata.uid);
  const volumeDir = (pod: AgentPod, kind: VolumeKind, name: string) => join(podDir(pod), 'volumes', `${ctx.names.labelDomain}~${kind.folder}`, name);

  async function setUpOne(pod: AgentPod, v: Volume, onlyRefreshed: boolean) {
    const [, kind] = kindOf(v);
    if (onlyRefreshed && !kind.refreshed) return;
    try {
      const result = await kind.setUp(v, pod, kind.folder ? volumeDir(pod, kind, v.name) : '', ctx);
      let byName = prepared.get(pod.metadata.uid);
      if (!byName) prepared.set(pod.metadata.uid, (byName = new Map()));
      byName.set(v.name, result);
    } catch (e) {
      throw e instanceof VolumeError ? e : new VolumeError(v.name, e as Error);
    }
  }

  /** every volume tried, one failing not keeping the others from being set up (the reference reports each) */
  async function setUpAll(pod: AgentPod, onlyRefreshed: boolean) {
    const failures: VolumeError[] = [];
    for (const v of pod.spec.volumes ?? []) await setUpOne(pod, v, onlyRefreshed).catch((e: VolumeError) => { failures.push(e); });
    if (failures.length) throw new VolumeErrors(failures);
  }

  return {
    podDir,
    async setUp(pod) {
      await mkdir(podDir(pod), { recursive: true });
      await setUpAll(pod, false);
    },
    async refresh(pod) {
      if (!prepared.has(pod.metadata.uid)) return;
      await setUpAll(pod, true);
    },
    refreshes(pod) {
      const byName = prepared.get(pod.metadata.uid);
      return !!byName && (pod.spec.volumes ?? []).some((v) => byName.has(v.name) && kindOf(v)[1].refreshed);
    },
    async containerMounts(pod, container, env) {
      const byName = prepared.get(pod.metadata.uid) ?? new Map<string, PreparedVolume>();
      const out: MountSpec[] = [];
      for (const [index, m] of (container.volumeMounts ?? []).entries()) {
        const volume = byName.get(m.name);
        if (!volume) throw new Error(`volume ${JSON.stringify(m.name)} of mount ${m.mountPath} is not set up (no volume of that name in the pod)`);
        let hostPath = volume.path;
        const sub = m.subPathExpr ? expand(m.subPathExpr, env) : m.subPath;
        if (sub) hostPath = await bindSubPath(pod, volume.path, sub, join(podDir(pod), 'volume-subpaths', m.name, container.name, String(index)));
        out.push({
          containerPath: m.mountPath, hostPath, readOnly: !!m.readOnly || volume.readOnly,
          propagation: m.mountPropagation === 'Bidirectional' ? 'bidirectional' : m.mountPropagation === 'HostToContainer' ? 'hostToContainer' : 'private',
        });
      }
      return out;
    },
    tearDown: (pod) => removePodDir(pod.metadata.uid),
    async removeOrphans(wanted) {
      const removed: string[] = [];
      for (const uid of await readdir(join(rootDir, 'pods')).catch(() => [] as string[])) {
        if (wanted(uid)) continue;
        await removePodDir(uid);
        removed.push(uid);
      }
      return removed;
    },
  };

  async function removePodDir(uid: string) {
    prepared.delete(uid);
    for (const key of ctx.tokens.keys()) if (key.startsWith(`${uid}/`)) ctx.tokens.delete(key);
    const dir = join(rootDir, 'pods', uid);
    for (const m of await ctx.mounter.mountsUnder(dir)) await ctx.mounter.unmount(m);
    await rm(dir, { recursive: true, force: true });
  }

  /** the subPath resolved inside the volume (created as a folder when missing), bound at `target` */
  async function bindSubPath(pod: AgentPod, volumePath: string, sub: string, target: string): Promise<string> {
    if (sub.startsWith('/') || sub.split('/').includes('..')) throw new Error(`subPath ${JSON.stringify(sub)} must be a relative path without '..'`);
    const root = await realpath(volumePath);
    const wanted = join(root, sub);
    if (!(await stat(wanted).catch(() => undefined))) await mkdir(wanted, { recursive: true, mode: 0o750 });
    const real = await realpath(wanted);
    const rel = relative(root, real);
    if (rel === '..' || rel.startsWith(`..${sep}`)) throw new Error(`subPath ${JSON.stringify(sub)} of pod ${pod.metadata.name} leads out of its volume (to ${real})`);
    if ((await ctx.mounter.mountsUnder(target)).includes(target)) return target;
    await mkdir(dirname(target), { recursive: true });
    if ((await stat(real)).isDirectory()) await mkdir(target, { recursive: true });
    else await (await open(target, 'a')).close();
    await ctx.mounter.bind(real, target);
    return target;
  }
}

/** $(VAR) references to the container's environment, $$ for a literal $ */
export function expand(s: string, env: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, name) => (all === '$$' ? '$' : env.get(name) ?? all));
}
