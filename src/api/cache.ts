// Stored objects and their change events, and the watch cache as other layers see it: a resource's current objects
// and their changes, served from memory. Authorization, admission and the registry read through these interfaces;
// the storage and watch layers implement them.
import type { ApiObject } from './meta.js';
import type { Revision } from './resource-version.js';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredObject {
  key: string;
  /** the object, its metadata.resourceVersion set to rev */
  obj: ApiObject;
  /** the revision of the object's last write (for a deleted object: of the delete) */
  rev: Revision;
  /** obj as JSON bytes, made once when first needed and shared by every list and watch that sends it */
  bytes?: Buffer;
  /** obj in its protobuf envelope, made once when a watch first sends it that way and shared by every watch that does */
  protobuf?: Buffer;
}

export interface ObjectEvent {
  type: EventType;
  key: string;
  /** the object after the event; for DELETED, its last state with the delete's resourceVersion */
  cur: StoredObject;
  /** the object before the event (absent for ADDED) */
  prev?: StoredObject;
  rev: Revision;
}

export interface CacheSubscriber {
  /** receives the resource's changes in order */
  send(ev: ObjectEvent): void;
  /** the cache stopped: no more events follow */
  end(err?: Error): void;
}

export interface ResourceCache {
  readonly prefix: string;
  /** resolves once the cache holds the stored state (again, after it re-listed) */
  readonly ready: Promise<void>;
  /** all objects under a key prefix (the resource prefix or a namespace below it), sorted by key */
  snapshot(keyPrefix: string): StoredObject[];
  get(key: string): StoredObject | undefined;
  /** how many objects the resource has */
  count(): number;
  /**
   * Follows the resource's changes. When the cache had to list storage again (its storage watch could not go on),
   * a subscriber gets the difference between what it had and what is stored as events, so its view stays whole.
   */
  subscribe(s: CacheSubscriber): () => void;
}

/** the watch cache's views, one per resource (by its key prefix) */
export interface ResourceCaches {
  cache(prefix: string): ResourceCache;
}
