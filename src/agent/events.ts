// Events the agent reports (Pulled, Created, Started, Killing, BackOff, Unhealthy, Evicted, node
// Starting, NodeReady and the pressure conditions' NodeHasSufficientMemory...), created in the API at --event-qps
// with --event-burst for the whole process.
// When the API server falls behind, a bounded queue drops the oldest instead of growing; a repeated event raises
// the count of the one already made.

import { isNotFound, type Client } from '../client/rest-client.js';
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
/** repeats remembered (the reference's correlator keeps 4096 per process) */
const maxRemembered = 4096;

/** One distinct event (object, type, reason, message, source): created once, its count raised on each repeat. */
interface Tracked {
  event: CoreEvent;
  created: boolean;
  queued: boolean;
  sending: boolean;
  /** repeated while being sent: queued again once that ends */
  again: boolean;
}

/** what makes two events the same one, as the reference's correlator tells them */
const eventKey = (e: CoreEvent) => {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.apiVersion, o.kind, o.namespace, o.name, o.uid, o.fieldPath, e.type, e.reason, e.message].join('\u0000');
};

/**
 * The process's events, created at --event-qps with --event-burst however many nodes it simulates (as the
 * reference's limit is per agent process), from one queue of at most 1000 that drops the oldest when full (as the
 * reference's event broadcaster drops what its queue cannot take): with a queue and a budget per node, a thousand
 * simulated nodes could hold a million events and spend most of the process's API budget on them.
 * A repeat of an event (same object, type, reason, message and source) raises the stored event's `count` and
 * `lastTimestamp` instead of creating another, as the reference's correlator does (`kubectl describe` shows
 * "(x5 over 2m)"); repeats while the first is still queued only raise the count it is created with.
 */
export function eventSink(client: Client, qps: number, burst: number, log: (m: string) => void): EventSink {
  const limiter = tokenBucket(qps, burst);
  const queue: Tracked[] = [];
  const remembered = new Map<string, Tracked>();
  let inFlight = 0;
  let waiters: (() => void)[] = [];

  const write = async (t: Tracked) => {
    const e = t.event;
    const events = client.resource<CoreEvent>(eventsRef, e.metadata?.namespace);
    if (t.created) {
      try {
        await events.patch(e.metadata!.name!, { count: e.count, lastTimestamp: e.lastTimestamp }, 'strategic');
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // the event expired meanwhile: it is made again
      }
    }
    await events.create(e);
    t.created = true;
  };

  const pump = () => {
    while (inFlight < maxInFlight && queue.length) {
      const t = queue.shift()!;
      t.queued = false;
      t.sending = true;
      inFlight++;
      void (async () => {
        await limiter.take();
        await write(t).catch((err) => log(`event ${t.event.reason} for ${t.event.involvedObject.name}: ${(err as Error).message}`));
      })().finally(() => {
        inFlight--;
        t.sending = false;
        if (t.again) {
          t.again = false;
          enqueue(t);
        }
        pump();
        if (!inFlight && !queue.length) for (const w of waiters.splice(0)) w();
      });
    }
  };

  const enqueue = (t: Tracked) => {
    t.queued = true;
    queue.push(t);
    if (queue.length > maxQueued) queue.shift()!.queued = false;
  };

  return {
    send(event) {
      const key = eventKey(event);
      const seen = remembered.get(key);
      if (seen) {
        remembered.delete(key);
        remembered.set(key, seen);
        seen.event = { ...seen.event, count: (seen.event.count ?? 1) + 1, lastTimestamp: event.lastTimestamp };
        if (seen.sending) seen.again = true;
        else if (!seen.queued) enqueue(seen);
      } else {
        const t: Tracked = { event, created: false, queued: false, sending: false, again: false };
        remembered.set(key, t);
        if (remembered.size > maxRemembered) remembered.delete(remembered.keys().next().value!);
        enqueue(t);
      }
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
        // the object's version when it was seen, as the reference's references carry it (a repeat keeps the first's)
        involvedObject: {
          apiVersion: 'v1', kind, name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), ...(m.uid ? { uid: m.uid } : {}),
          ...(m.resourceVersion ? { resourceVersion: m.resourceVersion } : {}), ...(fieldPath ? { fieldPath } : {}),
        },
        reason, message, type, count: 1,
        source: { component: 'kubelet', host: nodeName },
        firstTimestamp: now, lastTimestamp: now,
        reportingComponent: 'kubelet', reportingInstance: nodeName,
      });
    },
    flushed: () => sink.flushed(),
  };
}
