// Pod sources merged into one desired set (the reference agent's PodConfig): each source sends its
// full set (`set`) or single changes; the merger turns them into adds, updates and removes of pods
// by uid. Changes that only touch a pod's status or resourceVersion are not updates, except the conditions
// its readiness gates name (another controller writes them; the pod's Ready condition follows them).

import { createHash } from 'node:crypto';
import type { AgentPod } from '../objects.js';

export type SourceName = 'api' | 'file' | 'http';

export interface PodChanges {
  update(pod: AgentPod): void;
  remove(uid: string): void;
}

export interface PodConfig {
  set(source: SourceName, pods: AgentPod[]): void;
  upsert(source: SourceName, pod: AgentPod): void;
  delete(source: SourceName, uid: string): void;
  /** every desired pod, by uid (the copy last handed over: later ones that changed nothing to run are not kept) */
  pods(): Map<string, AgentPod>;
  /** resolves once each named source has sent its first full set */
  seenAll(sources: SourceName[]): Promise<void>;
}

/**
 * What makes a pod different to run, as a digest (kept per pod: the text itself would be as large as the spec);
 * the first-seen annotation of static pods changes on every read. The status of each condition a readiness gate
 * names counts too, as the reference's agent syncs a pod again when its readiness gates change.
 */
const fingerprint = (pod: AgentPod) => {
  const annotations = Object.entries(pod.metadata?.annotations ?? {}).filter(([k]) => !k.endsWith('/config.seen'));
  const gates = (pod.spec?.readinessGates ?? []).map((g) => pod.status?.conditions?.find((c) => c.type === g.conditionType)?.status ?? null);
  const text = JSON.stringify([pod.spec, pod.metadata?.deletionTimestamp ?? null, pod.metadata?.deletionGracePeriodSeconds ?? null, pod.metadata?.labels ?? null, annotations, gates]);
  return createHash('sha1').update(text).digest('base64');
};

export function createPodConfig(changes: PodChanges): PodConfig {
  const bySource = new Map<SourceName, Map<string, { pod: AgentPod; print: string }>>();
  const seen = new Set<SourceName>();
  const waiters: { sources: SourceName[]; resolve(): void }[] = [];

  const sourceMap = (s: SourceName) => {
    let m = bySource.get(s);
    if (!m) bySource.set(s, (m = new Map()));
    return m;
  };
  const upsert = (source: SourceName, pod: AgentPod) => {
    const m = sourceMap(source);
    const uid = pod.metadata.uid;
    const print = fingerprint(pod);
    const old = m.get(uid);
    // a copy that changes nothing to run (a new status, resourceVersion) is not kept: the one the workers hold stays
    if (old && old.print === print) return;
    m.set(uid, { pod, print });
    changes.update(pod);
  };
  const remove = (source: SourceName, uid: string) => {
    if (sourceMap(source).delete(uid)) changes.remove(uid);
  };

  return {
    set(source, pods) {
      const incoming = new Set(pods.map((p) => p.metadata.uid));
      for (const uid of [...sourceMap(source).keys()]) if (!incoming.has(uid)) remove(source, uid);
      for (const pod of pods) upsert(source, pod);
      seen.add(source);
      for (const w of [...waiters]) {
        if (w.sources.every((s) => seen.has(s))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    },
    upsert,
    delete: remove,
    pods() {
      const all = new Map<string, AgentPod>();
      for (const m of bySource.values()) for (const [uid, { pod }] of m) all.set(uid, pod);
      return all;
    },
    seenAll(sources) {
      if (sources.every((s) => seen.has(s))) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ sources, resolve }));
    },
  };
}
