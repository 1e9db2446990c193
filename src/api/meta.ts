// Object metadata and the small meta kinds every client parses (Status, lists, watch events).

export interface OwnerReference {
  apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string; generateName?: string; namespace?: string; uid?: string; resourceVersion?: string;
  generation?: number; creationTimestamp?: string | null; deletionTimestamp?: string | null; deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>; annotations?: Record<string, string>; finalizers?: string[];
  ownerReferences?: OwnerReference[]; managedFields?: unknown[];
}

export interface ApiObject { apiVersion?: string; kind?: string; metadata: ObjectMeta; [field: string]: unknown }

export interface StatusCause { reason?: string; message?: string; field?: string }
export interface StatusDetails {
  name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[]; retryAfterSeconds?: number;
}
export interface Status {
  kind: 'Status'; apiVersion: 'v1'; metadata: Record<string, never>;
  status: 'Success' | 'Failure'; message?: string; reason?: string; details?: StatusDetails; code: number;
}

export const apiVersionOf = (group: string, version: string) => (group ? `${group}/${version}` : version);

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** RFC 3339 with seconds precision, as the reference writes timestamps */
/** the last second formatted: most timestamps of a busy server fall in the same second as the one before */
let lastSecond = NaN;
let lastText = '';
export const nowTimestamp = (d = new Date()) => {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = d.toISOString().replace(/\.\d+Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
};

/** a typed object (src/api/types) as the server holds it, stored or on its way there: its metadata is always set */
export type Stored<T extends { metadata?: object }> = T & { metadata: NonNullable<T['metadata']> };

/** RFC 3339 with microseconds, as the reference writes MicroTime fields (lease renewals, event times) */
export const nowMicroTime = (d = new Date()) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
