// Writes pod statuses to the API server: one write per change, coalesced per pod (a newer status
// replaces one not yet sent), the pod's uid checked so a recreated pod of the same name is never
// written over. Static pods report through their mirror pods. Pods being deleted are removed with
// grace 0 once their containers have stopped. Mirror pods are created, replaced and deleted here.

import { createHash } from 'node:crypto';
import type { Naming } from '../api/naming.js';
import { ApiError, isConflict, isNotFound, type Client } from '../client/rest-client.js';
import { configAnnotations, isStaticPod } from './sources/static.js';
import { podKey, type AgentPod, type PodStatus } from './objects.js';
import { backoffMs } from '../client/backoff.js';

interface Pending {
  pod: AgentPod;
  status: PodStatus;
}

/** what is kept of a written status to know it unchanged: a digest, not the text (as large as the status) */
const digest = (status: PodStatus) => createHash('sha1').update(JSON.stringify(status)).digest('base64');

export const podsRef = { group: '', version: 'v1', resource: 'pods' };

export interface StatusManager {
  set(pod: AgentPod, status: PodStatus): void;
  /** the pod's containers stopped after its deletion began: remove it from the API */
  terminated(pod: AgentPod): void;
  /** the pod left the API: nothing more is written for it, and what was kept for it goes */
  forget(uid: string): void;
  /** mirror pods in the API (from the API source), by namespace/name */
  observeMirror(pod: AgentPod, deleted: boolean): void;
  /** makes the API's mirror pods match the static pods */
  syncMirrors(staticPods: AgentPod[]): void;
  /** resolves when nothing is waiting to be written */
  flushed(): Promise<void>;
  stop(): void;
}

export function createStatusManager(client: Client, names: Naming, nodeName: string, nodeUid: () => string | undefined, log: (m: string) => void,
  retryDelayMs = (attempt: number) => backoffMs(attempt, undefined, { baseMs: 1000, maxMs: 60_000 })): StatusManager {
  const pending = new Map<string, Pending>();
  /** a digest of the status last written, by pod uid */
  const written = new Map<string, string>();
  const mirrors = new Map<string, AgentPod>();
  /** the last status of each static pod, written again once its mirror pod exists */
  const latest = new Map<string, Pending>();
  let active = 0;
  let stopped = false;
  let idle: (() => void)[] = [];
  const a = configAnnotations(names);
  const keyOf = podKey;
  const maxInFlight = 16;

  /** pods with a write on the wire: a newer status for one waits in pending until that write is done */
  const writing = new Set<string>();
  /** failed writes in a row, by pod, for the pause before the next try */
  const failures = new Map<string, number>();
  const retryTimers = new Map<string, NodeJS.Timeout>();
  /** pods forgotten while a write of theirs was on the wire: its outcome is not kept */
  const forgotten = new Set<string>();

  const pump = () => {
    for (const [uid, item] of pending) {
      if (stopped || active >= maxInFlight) break;
      if (writing.has(uid) || retryTimers.has(uid)) continue;
      pending.delete(uid);
      writing.add(uid);
      active++;
      void write(uid, item).finally(() => {
        writing.delete(uid);
        forgotten.delete(uid);
        active--;
        pump();
        if (!active && !pending.size) for (const r of idle.splice(0)) r();
      });
    }
  };

  const write = async (uid: string, { pod, status }: Pending) => {
    const text = digest(status);
    if (written.get(uid) === text) return;
    const pods = client.resource(podsRef, pod.metadata.namespace);
    try {
      if (isStaticPod(pod, names)) {
        const mirror = mirrors.get(keyOf(pod));
        if (!mirror || mirror.metadata.annotations?.[a.mirror] !== pod.metadata.uid) return; // written once the mirror exists
        await pods.status.patch(pod.metadata.name, { metadata: { uid: mirror.metadata.uid }, status }, 'merge');
      } else {
        await pods.status.patch(pod.metadata.name, { metadata: { uid }, status }, 'merge');
      }
      if (!forgotten.has(uid)) written.set(uid, text);
      failures.delete(uid);
    } catch (e) {
      if (isNotFound(e)) return;
      log(`writing the status of pod ${keyOf(pod)} failed: ${(e as Error).message}`);
      // a refusal (invalid, forbidden, another pod of that name) stays one; conflicts, throttling and outages pass
      const code = e instanceof ApiError ? e.code : 0;
      const retry = code === 0 || code === 409 || code === 429 || code >= 500;
      if (!retry || stopped || forgotten.has(uid)) return;
      // the latest status goes again (a newer one may have come meanwhile), after a pause that grows per pod
      const attempt = failures.get(uid) ?? 0;
      failures.set(uid, attempt + 1);
      if (!pending.has(uid)) pending.set(uid, { pod, status });
      const timer = setTimeout(() => { retryTimers.delete(uid); pump(); }, retryDelayMs(attempt));
      timer.unref();
      retryTimers.set(uid, timer);
    }
  };

  const ensureMirror = async (pod: AgentPod) => {
    const pods = client.resource(podsRef, pod.metadata.namespace);
    const existing = mirrors.get(keyOf(pod));
    if (existing?.metadata.annotations?.[a.mirror] === pod.metadata.uid) return;
    try {
      if (existing) await pods.delete(existing.metadata.name, { gracePeriodSeconds: 0, preconditions: { uid: existing.metadata.uid } });
      const { uid: _u, resourceVersion: _r, ...meta } = pod.metadata;
      const uid = nodeUid();
      const created = await pods.create({
        apiVersion: 'v1', kind: 'Pod',
        metadata: { ...meta, annotations: { ...meta.annotations, [a.mirror]: pod.metadata.uid }, ...(uid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid, controller: true }] } : {}) },
        spec: pod.spec,
      });
      mirrors.set(keyOf(pod), created);
      written.delete(pod.metadata.uid);
    } catch (e) {
      if (!isConflict(e) && !isNotFound(e)) log(`mirror pod ${keyOf(pod)}: ${(e as Error).message}`);
    }
  };

  return {
    set(pod, status) {
      if (stopped) return;
      if (isStaticPod(pod, names)) latest.set(pod.metadata.uid, { pod, status });
      pending.set(pod.metadata.uid, { pod, status });
      pump();
    },
    terminated(pod) {
      if (isStaticPod(pod, names)) return;
      const pods = client.resource(podsRef, pod.metadata.namespace);
      void (async () => {
        // the final status first, then the removal
        await this.flushed();
        await pods.delete(pod.metadata.name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }).catch((e) => {
          if (!isNotFound(e) && !isConflict(e)) log(`deleting pod ${keyOf(pod)} failed: ${(e as Error).message}`);
        });
        this.forget(pod.metadata.uid);
      })();
    },
    forget(uid) {
      if (writing.has(uid)) forgotten.add(uid);
      written.delete(uid);
      latest.delete(uid);
      failures.delete(uid);
      pending.delete(uid);
      clearTimeout(retryTimers.get(uid));
      retryTimers.delete(uid);
    },
    observeMirror(pod, deleted) {
      if (deleted) mirrors.delete(keyOf(pod));
      else mirrors.set(keyOf(pod), pod);
    },
    syncMirrors(staticPods) {
      const wanted = new Set(staticPods.map(keyOf));
      for (const pod of staticPods) void ensureMirror(pod).then(() => {
        // a status computed before the mirror existed is sent now
        const last = latest.get(pod.metadata.uid);
        if (last && !stopped && written.get(pod.metadata.uid) !== digest(last.status)) {
          pending.set(pod.metadata.uid, last);
          pump();
        }
      });
      const staticUids = new Set(staticPods.map((p) => p.metadata.uid));
      for (const [uid, { pod }] of latest) if (isStaticPod(pod, names) && !staticUids.has(uid)) latest.delete(uid);
      for (const [key, mirror] of mirrors) {
        if (wanted.has(key)) continue;
        mirrors.delete(key);
        void client.resource(podsRef, mirror.metadata.namespace).delete(mirror.metadata.name, { gracePeriodSeconds: 0, preconditions: { uid: mirror.metadata.uid } }).catch(() => {});
      }
    },
    flushed() {
      if (!active && !pending.size) return Promise.resolve();
      return new Promise((r) => idle.push(r));
    },
    stop() {
      stopped = true;
      pending.clear();
      for (const t of retryTimers.values()) clearTimeout(t);
      retryTimers.clear();
      for (const r of idle.splice(0)) r();
    },
  };
}
