// Events the agent reports (Pulled, Created, Started, Killing, BackOff, Unhealthy, Evicted, node
// Starting and NodeReady), created in the API at --event-qps with --event-burst for the whole process.
// When the API server falls behind, a bounded queue drops the oldest instead of growing.

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

/** How a process's events reach the API: one budget and one bounded queue for all the nodes it runs. */
export interface EventSink {
  send(event: CoreEvent): void;
  /** resolves when every queued event was sent */
  flushed(): Promise<void>;
}

/** events created at once, so that the budget is used when the server is slow to answer */
const maxInFlight = 8;

/**
 * The process's events, created at --event-qps with --event-burst however many nodes it simulates (as the
 * reference's limit is per agent process), from one queue of at most 1000 that drops the oldest when full (as the
 * reference's event broadcaster drops what its queue cannot take): with a queue and a budget per node, a thousand
 * simulated nodes could hold a million events and spend most of the process's API budget on them.
 */
export function eventSink(client: Client, qps: number, burst: number, log: (m: string) => void): EventSink {
  const limiter = tokenBucket(qps, burst);
  const queue: CoreEvent[] = [];
  let inFlight = 0;
  let waiters: (() => void)[] = [];

  const pump = () => {
    while (inFlight < maxInFlight && queue.length) {
      const e = queue.shift()!;
      inFlight++;
      void (async () => {
        await limiter.take();
        await client.resource<CoreEvent>(eventsRef, e.metadata?.namespace).create(e).catch((err) => log(`event ${e.reason} for ${e.involvedObject.name}: ${(err as Error).message}`));
      })().finally(() => {
        inFlight--;
        pump();
        if (!inFlight && !queue.length) for (const w of waiters.splice(0)) w();
      });
    }
  };

  return {
    send(event) {
      queue.push(event);
      if (queue.length > maxQueued) queue.shift();
      pump();
    },
    flushed() {
      if (!inFlight && !queue.length) return Promise.resolve();
      return new Promise((r) => waiters.push(r));
    },
  };
}

/** A node's events, made here and sent through its process's sink. */
export function eventRecorder(sink: EventSink, nodeName: string): Recorder {
  return {
    event(object, type, reason, message, fieldPath) {
      const m = object.metadata;
      const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      const kind = object.kind ?? 'Pod';
      const namespace = m.namespace || 'default';
      sink.send({
        apiVersion: 'v1', kind: 'Event',
        metadata: { name: eventName(m.name ?? ''), namespace },
        involvedObject: { apiVersion: 'v1', kind, name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), ...(m.uid ? { uid: m.uid } : {}), ...(fieldPath ? { fieldPath } : {}) },
        reason, message, type, count: 1,
        source: { component: 'kubelet', host: nodeName },
        firstTimestamp: now, lastTimestamp: now,
        reportingComponent: 'kubelet', reportingInstance: nodeName,
      });
    },
    flushed: () => sink.flushed(),
  };
}
