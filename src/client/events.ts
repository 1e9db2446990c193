// Records events about objects, as the reference's recorders do, without letting a busy controller flood the
// server: a repeat of an event (same object, type, reason and message) raises the stored event's count
// instead of writing a new one; more than ten different messages of one reason about one object within
// ten minutes are combined into one event; and each object's events pass a token bucket (25 at once, then
// one per five minutes) so repeats beyond that are dropped. Writes go out in the background.
// `core` writes v1 Events (the controller manager's recorder); `events` writes events.<domain>/v1 Events
// with a series for repeats (the scheduler's recorder). Both are the same stored events.

import { nowMicroTime, nowTimestamp } from '../api/meta.js';
import type { Naming } from '../api/naming.js';
import { isNotFound, type Client, type ResourceRef } from './rest-client.js';

export interface ObjectLike {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** records an event about an object (its apiVersion and kind must be set) */
  event(regarding: ObjectLike, type: EventType, reason: string, message: string, extra?: { action?: string; related?: ObjectLike }): void;
  /** resolves once the events recorded so far are written (or given up) */
  flush(): Promise<void>;
}

export interface EventRecorderOptions {
  names: Naming;
  /** the reporting component, e.g. `deployment-controller` */
  component: string;
  /** the reporting instance (host name) */
  host?: string;
  /** which API writes them; default `core` */
  api?: 'core' | 'events';
  log?(message: string): void;
}

const maxSimilar = 10;
const similarWindowMs = 10 * 60_000;
const spamBurst = 25;
const spamRefillMs = 5 * 60_000;
const cacheSize = 4096;
const maxPending = 1000;

interface Written { name: string; namespace: string; count: number; firstTimestamp: string }

/** A map that forgets its oldest entries past `size`. */
function lru<K, V>(size: number) {
  const m = new Map<K, V>();
  return {
    get(k: K) {
      const v = m.get(k);
      if (v !== undefined) { m.delete(k); m.set(k, v); }
      return v;
    },
    set(k: K, v: V) {
      m.delete(k);
      m.set(k, v);
      if (m.size > size) m.delete(m.keys().next().value as K);
    },
  };
}

const refOf = (o: ObjectLike) => ({
  apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace,
  uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion,
});

/** the wall clock in nanoseconds when this module loaded, less the monotonic clock then */
const clockOrigin = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
let lastEventNanos = 0n;

/**
 * `<object>.<unix nanoseconds in hex>`, as the reference names events: exact integers (a double loses the nanoseconds),
 * from the monotonic clock and strictly increasing, so names sort in the order the events were recorded. Lists are in
 * name order, and `kubectl describe` keeps that order among events of the same second.
 */
export function eventName(objectName: string): string {
  const now = clockOrigin + process.hrtime.bigint();
  lastEventNanos = now > lastEventNanos ? now : lastEventNanos + 1n;
  return `${objectName}.${lastEventNanos.toString(16)}`;
}

export function createEventRecorder(client: Client, o: EventRecorderOptions): EventRecorder {
  const api = o.api ?? 'core';
  const host = o.host ?? '';
  const ref: ResourceRef = api === 'core'
    ? { group: '', version: 'v1', resource: 'events' }
    : { group: o.names.group('events'), version: 'v1', resource: 'events' };
  const written = lru<string, Written>(cacheSize);
  const similar = lru<string, { messages: Set<string>; since: number }>(cacheSize);
  const buckets = lru<string, { tokens: number; at: number }>(cacheSize);
  let pending = 0;
  let tail: Promise<void> = Promise.resolve();

  const allowed = (objectKey: string) => {
    const now = Date.now();
    const b = buckets.get(objectKey) ?? { tokens: spamBurst, at: now };
    b.tokens = Math.min(spamBurst, b.tokens + (now - b.at) / spamRefillMs);
    b.at = now;
    buckets.set(objectKey, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  };

  /** the message, or the combined one once too many different messages of one kind came in */
  const aggregate = (aggregateKey: string, message: string) => {
    const now = Date.now();
    let s = similar.get(aggregateKey);
    if (!s || now - s.since > similarWindowMs) s = { messages: new Set(), since: now };
    s.messages.add(message);
    similar.set(aggregateKey, s);
    return s.messages.size >= maxSimilar ? { key: aggregateKey, message: `(combined from similar events): ${message}` } : undefined;
  };

  /** an event's name and times, taken when it is recorded (as the reference does), not when its turn to be written comes */
  type Recorded = { name: string; now: string; micro: string };
  const write = async (key: string, regarding: ObjectLike, type: EventType, reason: string, message: string, extra: { action?: string; related?: ObjectLike }, at: Recorded) => {
    const namespace = regarding.metadata.namespace || 'default';
    const events = client.resource(ref, namespace);
    const prev = written.get(key);
    const { name, now } = at;
    if (prev) {
      const count = prev.count + 1;
      const patch = api === 'core'
        ? { count, lastTimestamp: now, message }
        : { series: { count, lastObservedTime: at.micro } };
      try {
        await events.patch(prev.name, patch, api === 'core' ? 'strategic' : 'merge');
        written.set(key, { ...prev, count });
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
        // the event was removed (events expire): write a new one
      }
    }
    const body = api === 'core'
      ? {
        apiVersion: 'v1', kind: 'Event', metadata: { name, namespace },
        involvedObject: refOf(regarding), reason, message, type, count: 1,
        source: { component: o.component, ...(host ? { host } : {}) },
        firstTimestamp: now, lastTimestamp: now, reportingComponent: o.component, reportingInstance: host,
        ...(extra.action ? { action: extra.action } : {}), ...(extra.related ? { related: refOf(extra.related) } : {}),
      }
      : {
        apiVersion: `${ref.group}/v1`, kind: 'Event', metadata: { name, namespace },
        eventTime: at.micro, reportingController: o.component, reportingInstance: host || o.component,
        action: extra.action ?? reason, reason, regarding: refOf(regarding), note: message, type,
        ...(extra.related ? { related: refOf(extra.related) } : {}),
      };
    await events.create(body);
    written.set(key, { name, namespace, count: 1, firstTimestamp: now });
  };

  return {
    event(regarding, type, reason, message, extra = {}) {
      const r = regarding.metadata;
      const objectKey = [regarding.apiVersion, regarding.kind, r.namespace, r.name, r.uid].join('\u0000');
      if (!allowed(objectKey)) return;
      if (pending >= maxPending) return;   // the server is not keeping up: drop rather than grow without bound
      const base = [o.component, host, objectKey, type, reason, extra.action ?? ''].join('\u0000');
      const combined = aggregate(base, message);
      const key = combined?.key ?? `${base}\u0000${message}`;
      const text = combined?.message ?? message;
      pending++;
      const at = { name: eventName(r.name ?? ''), now: nowTimestamp(), micro: nowMicroTime() };
      tail = tail.then(() => write(key, regarding, type, reason, text, extra, at))
        .catch((e) => o.log?.(`event ${reason} about ${regarding.kind} ${r.namespace ?? ''}/${r.name}: ${(e as Error).message}`))
        .finally(() => { pending--; });
    },
    flush: () => tail,
  };
}
