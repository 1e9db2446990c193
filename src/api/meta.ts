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
  kind: 'Status'; apiVersion: 'v1'; metadata: { continue?: string };
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

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Why a string is not an RFC 3339 time as the reference decodes Time and MicroTime (a fraction of a second allowed in
 * both), or undefined: object fields, log options and the node agent's queries read times this way.
 */
export function timeProblem(v: string): string | undefined {
  const m = rfc3339.exec(v);
  const fits = m && +m[2] >= 1 && +m[2] <= 12 && +m[3] >= 1 && +m[3] <= 31 && +m[4] <= 23 && +m[5] <= 59 && +m[6] <= 59 && +(m[7] ?? 0) <= 23 && +(m[8] ?? 0) <= 59;
  return fits ? undefined : `parsing time ${JSON.stringify(v)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 time`;
}

const canonical = { time: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, micro: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/ };

/**
 * A time (one timeProblem passes) as the reference writes a decoded one back: in UTC, a Time to the second (a fraction
 * dropped), a MicroTime to the microsecond (six digits). One whose year would leave 0000-9999 is kept as written.
 */
export function canonicalTime(v: string, micro: boolean): string {
  if ((micro ? canonical.micro : canonical.time).test(v)) return v;
  const m = rfc3339.exec(v);
  if (!m) return v;
  const east = m[7] === undefined ? 0 : (v[v.length - 6] === '-' ? -1 : 1) * (+m[7] * 60 + +m[8]);
  const d = new Date(0);
  d.setUTCFullYear(+m[1], +m[2] - 1, +m[3]);
  d.setUTCHours(+m[4], +m[5] - east, +m[6], 0);
  if (d.getUTCFullYear() < 0 || d.getUTCFullYear() > 9999) return v;
  const whole = d.toISOString().slice(0, 19);
  const fraction = /^[.,](\d+)/.exec(v.slice(19))?.[1] ?? '';
  return micro ? `${whole}.${fraction.slice(0, 6).padEnd(6, '0')}Z` : `${whole}Z`;
}

let monotonicToWall = performance.timeOrigin;
/**
 * The wall clock in milliseconds since the epoch, to the microsecond: the monotonic clock's reading, on the wall
 * clock's scale (re-based whenever the two part by a millisecond, as when the wall clock is set)
 */
export function preciseNow(): number {
  const wall = Date.now(), precise = monotonicToWall + performance.now();
  if (Math.abs(precise - wall) < 1) return precise;
  monotonicToWall = wall - performance.now();
  return wall;
}

/** RFC 3339 with microseconds, as the reference writes MicroTime fields (audit events, lease renewals, event times) */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const micros = Math.min(999, Math.floor((ms - whole) * 1000));
  return new Date(whole).toISOString().replace(/Z$/, `${String(micros).padStart(3, '0')}Z`);
}

export const nowMicroTime = (d?: Date) => microTime(d ? d.getTime() : preciseNow());
