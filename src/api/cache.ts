// The watch cache as other layers see it: a resource's current objects and their change events, served from
// memory. Authorization, admission and the registry read through these interfaces; the watch layer implements them.
import type { ApiObject } from './meta.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CachedObject {
  key: string;
  obj: ApiObject;
  rev: number;
  /** obj as JSON bytes, made once when first needed and shared by every list and watch that sends it */
  bytes?: Buffer;
}

export interface CacheEvent {
  type: EventType;
  key: string;
  /** the object after the event; for DELETED, its last state with the delete's resourceVersion */
  cur: CachedObject;
  prev?: CachedObject;
  rev: number;
  at: number;
}

export interface CacheWatcher {
  /** receives events in order; return false to be removed */
  send(ev: CacheEvent): void;
  /** the cache dropped the watcher (history lost, cache stopped) */
  end(err?: Error): void;
}

export interface ResourceCache {
  readonly prefix: string;
  ready: Promise<void>;
  /** latest revision whose events this cache has applied */
  revision(): number;
  /** all objects under a key prefix (the resource prefix or a namespace below it), sorted by key */
  snapshot(keyPrefix: string): CachedObject[];
  get(key: string): CachedObject | undefined;
  /** events after rev (exclusive) from history, or undefined when history does not reach back that far */
  since(rev: number): CacheEvent[] | undefined;
  subscribe(w: CacheWatcher): () => void;
}
