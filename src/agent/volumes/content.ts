// Volumes whose files the agent writes and keeps up to date: configMap, secret, downwardAPI and
// projected. Secrets and projected volumes (which may carry tokens) live on a tmpfs, never on disk.
// With the pod's fsGroup the files belong to that group and are readable by it.

import { mkdir } from 'node:fs/promises';
import type { AgentPod, Volume } from '../objects.js';
import { writeAtomically, type FileSet } from './atomic-writer.js';
import { configMapFiles, defaultFileMode, downwardFiles, secretFiles, tokenFiles } from './files.js';
import { memoryVolumeSize } from './empty-dir.js';
import type { VolumeContext, VolumeKind } from './types.js';

function contentKind(folder: string, inMemory: boolean, files: (v: Volume, pod: AgentPod, ctx: VolumeContext) => Promise<FileSet>): VolumeKind {
  return {
    folder,
    refreshed: true,
    async setUp(volume, pod, dir, ctx) {
      await mkdir(dir, { recursive: true });
      if (inMemory && !(await ctx.mounter.mountsUnder(dir)).includes(dir)) {
        await ctx.mounter.mount('tmpfs', dir, 'tmpfs', [...(ctx.sizeMemoryVolumes ? [`size=${memoryVolumeSize(pod, undefined, ctx.allocatable)}`] : []), 'mode=0755']);
      }
      const set = await files(volume, pod, ctx);
      const gid = pod.spec.securityContext?.fsGroup;
      if (gid !== undefined) for (const f of set.values()) f.mode |= 0o440;
      await writeAtomically(dir, set, gid);
      return { path: dir, readOnly: true };
    },
  };
}

type FilesOf = (v: Volume, pod: AgentPod, ctx: VolumeContext) => Promise<FileSet>;

const configMapFilesOf: FilesOf = (v, pod, ctx) => configMapFiles(v.configMap!, pod, ctx, defaultFileMode);
const secretFilesOf: FilesOf = (v, pod, ctx) => secretFiles(v.secret!, pod, ctx, defaultFileMode);
const downwardFilesOf: FilesOf = async (v, pod, ctx) => downwardFiles(v.downwardAPI!.items ?? [], pod, ctx, v.downwardAPI!.defaultMode ?? defaultFileMode);
const projectedFilesOf: FilesOf = async (v, pod, ctx) => {
  const mode = v.projected!.defaultMode ?? defaultFileMode;
  const out: FileSet = new Map();
  for (const [i, s] of (v.projected!.sources ?? []).entries()) {
    const part = s.configMap ? await configMapFiles({ ...s.configMap, defaultMode: undefined }, pod, ctx, mode)
      : s.secret ? await secretFiles({ ...s.secret, defaultMode: undefined }, pod, ctx, mode)
        : s.downwardAPI ? downwardFiles(s.downwardAPI.items ?? [], pod, ctx, mode)
          : s.serviceAccountToken ? await tokenFiles(s.serviceAccountToken, `${pod.metadata.uid}/${v.name}/${i}`, pod, ctx, mode)
            : new Map();
    for (const [path, f] of part) {
      if (out.has(path)) throw new Error(`projected volume ${v.name}: the path ${path} is given twice`);
      out.set(path, f);
    }
  }
  return out;
};

export const configMapVolume = contentKind('configmap', false, configMapFilesOf);

export const secretVolume = contentKind('secret', true, secretFilesOf);

export const downwardApiVolume = contentKind('downward-api', false, downwardFilesOf);

export const projectedVolume = contentKind('projected', true, projectedFilesOf);

/** the files of a content volume (configMap, secret, downwardAPI, projected) as the agent would write them; undefined for other kinds */
export function contentFiles(v: Volume, pod: AgentPod, ctx: VolumeContext): Promise<FileSet> | undefined {
  const of = v.configMap ? configMapFilesOf : v.secret ? secretFilesOf : v.downwardAPI ? downwardFilesOf : v.projected ? projectedFilesOf : undefined;
  return of?.(v, pod, ctx);
}
