// The key-value contract every backend implements, modelled on etcd v3 MVCC.
// A revision is global and monotonic; every write gets the next one. An object's
// resourceVersion is the decimal string of the revision that last modified it (src/api/resource-version.ts).
import type { Revision } from '../api/resource-version.js';

export type { Revision };

export interface KeyValue {
  key: string;
  value: Uint8Array;
  /** revision of the write that created this incarnation of the key */
  createRevision: Revision;
  /** revision of the write that last changed the key */
  modRevision: Revision;
}

export interface GetResult { kv?: KeyValue; revision: Revision }

export interface ListOptions {
  /** read at this revision (0 or absent: the current one) */
  revision?: Revision;
  /** at most this many items (0 or absent: all) */
  limit?: number;
  /** first key to return (inclusive); must lie under the prefix */
  start?: string;
  /** false: the caller does not need `remaining`, which a backend may then leave out rather than count */
  countRemaining?: boolean;
}

export interface ListResult {
  kvs: KeyValue[];
  /** the revision the list was read at */
  revision: Revision;
  /** more keys remain under the prefix after the last one returned */
  more: boolean;
  /** keys remaining after this page (present when more is true) */
  remaining?: number;
}

export interface WriteResult { kv: KeyValue; revision: Revision }

export type WatchEventType = 'put' | 'delete';

export interface WatchEvent {
  type: WatchEventType;
  /** for delete: the key with an empty value and modRevision = the delete's revision */
  kv: KeyValue;
  /** the value before this event (absent for a create) */
  prevKv?: KeyValue;
}

export interface WatchOptions {
  /** deliver events with revision > afterRevision; absent: only live events from now */
  afterRevision?: Revision;
}

export interface Watch { close(): void }

export interface WatchHandler {
  /** events in revision order, without gap or duplicate; a batch shares no ordering issue with the next */
  onEvents(events: WatchEvent[]): void;
  /** the watch ended with an error (for example Compacted); no more events follow */
  onError(err: StorageError): void;
  /**
   * A networked backend lost the watch's stream and is opening it again (false), or has it again (true). Events
   * resume after the last one delivered, without gap or duplicate, unless the watch ends with Compacted.
   */
  onConnection?(connected: boolean): void;
}

export interface KV {
  /** the backend's name, for logs and health checks */
  readonly name: string;
  get(key: string, opts?: { revision?: Revision }): Promise<GetResult>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  count(prefix: string): Promise<number>;
  /** create-if-absent; throws KeyExists */
  create(key: string, value: Uint8Array): Promise<WriteResult>;
  /** compare-and-swap on the key's modRevision; throws Conflict (with the current kv) or NotFound */
  update(key: string, value: Uint8Array, expectedModRevision: Revision): Promise<WriteResult>;
  /** delete guarded by the expected modRevision when given; throws Conflict or NotFound.
   *  The result's kv is the deleted value; revision is the delete's revision. */
  delete(key: string, expectedModRevision?: Revision): Promise<WriteResult>;
  /** watch a prefix; events after opts.afterRevision, or from now */
  watch(prefix: string, opts: WatchOptions, handler: WatchHandler): Watch;
  /** drop history at or before revision; later reads and watches before it throw Compacted */
  compact(revision: Revision): Promise<void>;
  /** the latest revision */
  currentRevision(): Promise<Revision>;
  /** the oldest revision still readable (the compacted revision + 1, or 1) */
  oldestRevision(): Promise<Revision>;
  /** a cheap liveness probe for health checks; throws when the store cannot serve */
  check(): Promise<void>;
  close(): Promise<void>;
}

export type StorageErrorCode = 'KeyExists' | 'Conflict' | 'NotFound' | 'Compacted' | 'FutureRevision' | 'Unavailable' | 'Invalid' | 'TooLarge'
  /** the store holds what this server cannot read (a value encrypted with a key it lacks) */
  | 'Internal';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key?: string,
    /** Conflict: the key's current value; Compacted: the compacted revision; FutureRevision: the latest revision */
    readonly current?: KeyValue,
    readonly compactedRevision?: Revision,
    readonly currentRevision?: Revision,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export const isStorageError = (e: unknown, code?: StorageErrorCode): e is StorageError =>
  e instanceof StorageError && (code === undefined || e.code === code);

/**
 * The largest value a store takes: etcd's default request limit (--max-request-bytes), which the embedded stores keep
 * to as well, so that an object that fits one backend fits all (and no object grows, patch by patch, past what a
 * request may carry)
 */
export const maxValueBytes = 1.5 * 1024 * 1024;
/** refuses a value over maxValueBytes */
export function checkValueSize(key: string, value: Uint8Array): void {
  if (value.length > maxValueBytes)
    throw new StorageError('TooLarge', `the object is ${value.length} bytes, over the ${maxValueBytes} bytes storage takes`, key);
}
export const keyExists = (key: string) => new StorageError('KeyExists', `key ${key} already exists`, key);
export const notFound = (key: string) => new StorageError('NotFound', `key ${key} not found`, key);
export const conflict = (key: string, current?: KeyValue) =>
  new StorageError('Conflict', `key ${key} was modified (expected revision does not match)`, key, current);
export const compacted = (requested: Revision, compactedAt: Revision) =>
  new StorageError('Compacted', `revision ${requested} has been compacted (oldest available is ${compactedAt + 1})`, undefined, undefined, compactedAt);
export const futureRevision = (requested: Revision, current: Revision) =>
  new StorageError('FutureRevision', `revision ${requested} is newer than the current revision ${current}`, undefined, undefined, undefined, current);

/** end of a prefix range: every key that starts with prefix sorts below it */
export const prefixEnd = (prefix: string): string => prefix + '\uffff';
