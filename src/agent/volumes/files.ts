// The files of content volumes: the keys of a ConfigMap or Secret (all of them, or the listed items),
// downward API fields, and service-account tokens. Projected volumes combine them.

import type { AgentPod, ConfigMapVolumeSource, DownwardAPIVolumeFile, KeyToPath, SecretVolumeSource, ServiceAccountTokenProjection } from '../objects.js';
import { fieldValue, resourceValue } from '../fieldpath.js';
import type { FileSet } from './atomic-writer.js';
import { configMapData, fetchObject, secretData } from './api-objects.js';
import { notFound, type VolumeContext } from './types.js';
import { serviceAccountToken } from './token.js';

export const defaultFileMode = 0o644;

/** the keys as files: each key under its own name, or only the items, each at its path */
function keyedFiles(kind: string, name: string, data: Map<string, Buffer>, items: KeyToPath[] | undefined, mode: number, optional: boolean): FileSet {
  const out: FileSet = new Map();
  if (!items?.length) {
    for (const [k, v] of data) out.set(k, { data: v, mode });
    return out;
  }
  for (const item of items) {
    const v = data.get(item.key);
    if (v === undefined) {
      if (optional) continue;
      throw new Error(`${kind} references non-existent ${kind === 'configmap' ? 'config' : 'secret'} key: ${item.key}`);
    }
    out.set(item.path, { data: v, mode: item.mode ?? mode });
  }
  return out;
}

export async function configMapFiles(src: ConfigMapVolumeSource, pod: AgentPod, ctx: VolumeContext, defaultMode: number): Promise<FileSet> {
  const name = src.name ?? '';
  const cm = await fetchObject(ctx, 'configmap', pod.metadata.namespace, name);
  if (!cm) {
    if (src.optional) return new Map();
    throw notFound('configmap', name);
  }
  return keyedFiles('configmap', name, configMapData(cm), src.items, src.defaultMode ?? defaultMode, !!src.optional);
}

export async function secretFiles(src: SecretVolumeSource & { name?: string }, pod: AgentPod, ctx: VolumeContext, defaultMode: number): Promise<FileSet> {
  const name = src.secretName ?? src.name ?? '';
  const secret = await fetchObject(ctx, 'secret', pod.metadata.namespace, name);
  if (!secret) {
    if (src.optional) return new Map();
    throw notFound('secret', name);
  }
  return keyedFiles('secret', name, secretData(secret), src.items, src.defaultMode ?? defaultMode, !!src.optional);
}

export function downwardFiles(items: DownwardAPIVolumeFile[], pod: AgentPod, ctx: VolumeContext, defaultMode: number): FileSet {
  const out: FileSet = new Map();
  for (const item of items) {
    const value = item.fieldRef ? fieldValue(pod, item.fieldRef.fieldPath, ctx.facts(pod))
      : item.resourceFieldRef ? resourceValue(pod, undefined, item.resourceFieldRef, ctx.allocatable)
        : '';
    out.set(item.path, { data: Buffer.from(value), mode: item.mode ?? defaultMode });
  }
  return out;
}

export async function tokenFiles(src: ServiceAccountTokenProjection, key: string, pod: AgentPod, ctx: VolumeContext, mode: number): Promise<FileSet> {
  const token = await serviceAccountToken(pod, key, src, ctx);
  return new Map([[src.path, { data: Buffer.from(token), mode }]]);
}
