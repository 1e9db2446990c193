// Events the agent reports (Pulled, Created, Started, Killing, BackOff, Unhealthy, Evicted, node
// Starting and NodeReady), created in the API at --event-qps with --event-burst. When the API server
// falls behind, a bounded queue drops the oldest instead of growing.

import type { Client } from '../client/rest-client.js';
import type { Event as CoreEvent, EventTarget } from './objects.js';
import { tokenBucket } from '../client/rate-limit.js';
import { eventName } from '../client/events.js';

export type EventType = 'Normal' | 'Warning';

export interface Recorder {
  event(object: EventTarget, type: EventType, reason: string, message: string, fieldPath?: string): void;
  /** resolves when every queued event was sent */
  flushed(): Promise<void>;
}

export const noEvents: Recorder = { event() {}, flushed: () => Promise.resolve() };

const eventsRef = { group: '', version: 'v1', resource: 'events' };
const maxQueued = 1000;

export function eventRecorder(client: Client, nodeName: string, qps: number, burst: number, log: (m: string) => void): Recorder {
  const limiter = tokenBucket(qps, burst);
  const queue: CoreEvent[] = [];
  let sending = false;
  let waiters: (() => void)[] = [];

  const pump = async () => {
    if (sending) return;
    sending = true;
    for (let e = queue.shift(); e; e = queue.shift()) {
      await limiter.take();
      await client.resource<CoreEvent>(eventsRef, e.metadata?.namespace).create(e).catch((err) => log(`event ${e.reason} for ${e.involvedObject.name}: ${(err as Error).message}`));
    }
    sending = false;
    for (const w of waiters.splice(0)) w();
  };

  return {
    event(object, type, reason, message, fieldPath) {
      const m = object.metadata;
      const now = new Date();
      const kind = object.kind ?? 'Pod';
      const namespace = m.namespace || 'default';
      queue.push({
        apiVersion: 'v1', kind: 'Event',
        metadata: { name: eventName(m.name ?? ''), namespace },
        involvedObject: { apiVersion: 'v1', kind, name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), ...(m.uid ? { uid: m.uid } : {}), ...(fieldPath ? { fieldPath } : {}) },
        reason, message, type, count: 1,
        source: { component: 'kubelet', host: nodeName },
        firstTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), lastTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        reportingComponent: 'kubelet', reportingInstance: nodeName,
      });
      if (queue.length > maxQueued) queue.shift();
      void pump();
    },
    flushed() {
      if (!sending && !queue.length) return Promise.resolve();
      return new Promise((r) => waiters.push(r));
    },
  };
}
