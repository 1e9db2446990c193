// Image garbage collection by the spec's thresholds: when the image filesystem is fuller than
// --image-gc-high-threshold percent, unused images are removed, least recently used first, until
// usage is down to --image-gc-low-threshold; images younger than --minimum-image-ttl-duration and
// the sandbox image stay. 100 as the high threshold disables it. Dead containers are collected by
// --minimum-container-ttl-duration, --maximum-dead-containers-per-container and --maximum-dead-containers.

import type { ContainerInfo, ContainerRuntime, ImageInfo } from './runtime/types.js';

export interface ImageUse {
  firstSeen: number;
  lastUsed: number;
}

export interface ImageGcPolicy {
  highPercent: number;
  lowPercent: number;
  minAgeMs: number;
}

export function imagesToRemove(images: ImageInfo[], inUse: Set<string>, pinned: (i: ImageInfo) => boolean, usage: { used: number; capacity: number },
  policy: ImageGcPolicy, seen: Map<string, ImageUse>, now: number): ImageInfo[] {
  if (policy.highPercent >= 100 || usage.capacity <= 0) return [];
  if ((usage.used / usage.capacity) * 100 < policy.highPercent) return [];
  let toFree = usage.used - (usage.capacity * policy.lowPercent) / 100;
  const candidates = images
    .filter((i) => !inUse.has(i.id) && !pinned(i) && now - (seen.get(i.id)?.firstSeen ?? now) >= policy.minAgeMs)
    .sort((a, b) => (seen.get(a.id)?.lastUsed ?? 0) - (seen.get(b.id)?.lastUsed ?? 0));
  const out: ImageInfo[] = [];
  for (const i of candidates) {
    if (toFree <= 0) break;
    out.push(i);
    toFree -= i.size;
  }
  return out;
}

/** One round of image collection on a runtime; returns the ids removed. */
export async function collectImages(runtime: ContainerRuntime, policy: ImageGcPolicy, sandboxImage: string, seen: Map<string, ImageUse>, log: (m: string) => void): Promise<string[]> {
  const usage = await runtime.imageFsUsage?.();
  const images = await runtime.listImages();
  const containers = await runtime.listContainers();
  const now = Date.now();
  const inUse = new Set(containers.map((c) => c.imageRef));
  for (const i of images) {
    const u = seen.get(i.id) ?? { firstSeen: now, lastUsed: 0 };
    if (inUse.has(i.id)) u.lastUsed = now;
    seen.set(i.id, u);
  }
  for (const id of seen.keys()) if (!images.some((i) => i.id === id)) seen.delete(id);
  if (!usage) return [];
  const removed: string[] = [];
  for (const i of imagesToRemove(images, inUse, (x) => x.names.includes(sandboxImage), usage, policy, seen, now)) {
    try {
      await runtime.removeImage(i.id);
      removed.push(i.id);
      seen.delete(i.id);
    } catch (e) {
      log(`image garbage collection: removing ${i.names[0] ?? i.id}: ${(e as Error).message}`);
    }
  }
  return removed;
}

export interface ContainerGcPolicy {
  /** dead containers younger than this stay (--minimum-container-ttl-duration) */
  minAgeMs: number;
  /** dead instances kept per container of a pod (--maximum-dead-containers-per-container); -1: no cap */
  maxPerContainer: number;
  /** dead containers kept on the node in all (--maximum-dead-containers); -1: no cap */
  maxContainers: number;
}

/**
 * One round of container collection: dead containers past the minimum age are removed beyond the caps,
 * oldest first, the node-wide cap shared evenly among the containers of each pod. The newest instance
 * of every container stays (its exit decides restarts and init containers).
 */
export function containersToRemove(dead: ContainerInfo[], newest: Set<string>, policy: ContainerGcPolicy, now: number): ContainerInfo[] {
  const evictable = dead.filter((c) => !newest.has(c.id) && now - (c.finishedAt ?? c.createdAt) >= policy.minAgeMs);
  const units = new Map<string, ContainerInfo[]>();
  for (const c of evictable) {
    const key = `${c.sandboxId}/${c.name}`;
    units.set(key, [...(units.get(key) ?? []), c]);
  }
  for (const list of units.values()) list.sort((a, b) => (b.finishedAt ?? b.createdAt) - (a.finishedAt ?? a.createdAt));
  const out: ContainerInfo[] = [];
  const keep = (n: number) => {
    for (const [key, list] of units) {
      out.push(...list.slice(Math.max(0, n)));
      units.set(key, list.slice(0, Math.max(0, n)));
    }
  };
  if (policy.maxPerContainer >= 0) keep(policy.maxPerContainer);
  const total = () => [...units.values()].reduce((n, l) => n + l.length, 0);
  if (policy.maxContainers >= 0 && total() > policy.maxContainers) {
    keep(Math.max(1, Math.floor(policy.maxContainers / Math.max(1, units.size))));
    const rest = [...units.values()].flat().sort((a, b) => (a.finishedAt ?? a.createdAt) - (b.finishedAt ?? b.createdAt));
    out.push(...rest.slice(0, Math.max(0, rest.length - policy.maxContainers)));
  }
  return out;
}
