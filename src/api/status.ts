// The error catalogue: every failure reaches the client as a Status body with the reference's reason and code.
import type { Status, StatusCause, StatusDetails } from './meta.js';

export class ApiError extends Error {
  constructor(readonly status: Status, readonly headers: Record<string, string> = {}) {
    super(status.message);
    this.name = 'ApiError';
  }
  get code() { return this.status.code; }
  get reason() { return this.status.reason; }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/**
 * The Status with its fields in the reference's order (kind, apiVersion, metadata, status, message, reason, details,
 * code; details and causes likewise) and its empty optional fields left out, so the JSON is byte for byte the
 * reference's: some clients compare error bodies whole.
 */
export function orderedStatus(s: Status): Status {
  const d = s.details;
  const details: StatusDetails | undefined = d && omitEmpty({
    name: d.name, group: d.group, kind: d.kind, uid: d.uid,
    causes: d.causes?.map(orderedCause),
    retryAfterSeconds: d.retryAfterSeconds,
  });
  return omitEmpty({
    kind: 'Status', apiVersion: 'v1', metadata: s.metadata ?? {}, status: s.status,
    message: s.message, reason: s.reason, details, code: s.code,
  }) as Status;
}

/** a cause with its fields in the reference's order, its empty ones left out */
export const orderedCause = (c: StatusCause): StatusCause => omitEmpty({ reason: c.reason, message: c.message, field: c.field });

const omitEmpty = <T extends object>(o: T): T =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '' && v !== 0 && !(Array.isArray(v) && !v.length))) as T;

export function statusBody(code: number, reason: string, message: string, details?: StatusDetails): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) s.details = details;
  return s;
}

export const successStatus = (details?: StatusDetails): Status => {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
};

const err = (code: number, reason: string, message: string, details?: StatusDetails, headers?: Record<string, string>) =>
  new ApiError(statusBody(code, reason, message, details), headers);

/** "pods" or "deployments.apps", as the reference names a resource in messages */
export const qualifiedResource = (group: string, resource: string) => (group ? `${resource}.${group}` : resource);

export const badRequest = (message: string, causes?: StatusCause[]) =>
  err(400, 'BadRequest', message, causes ? { causes } : undefined);
export const unauthorized = (message = 'Unauthorized') => err(401, 'Unauthorized', message);
export const forbidden = (message: string, details?: StatusDetails) => err(403, 'Forbidden', message, details);
export const notFound = (group: string, resource: string, name: string) =>
  err(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, { name, group: group || undefined, kind: resource });
export const pathNotFound = (path: string) => err(404, 'NotFound', `the server could not find the requested resource${path ? ` (${path})` : ''}`, {});
export const methodNotSupported = (what: string, method: string) =>
  err(405, 'MethodNotAllowed', `${method} is not supported on ${what}`, {});
export const notAcceptable = (accepted: string[]) =>
  err(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
/** a representation the endpoint offers, asked for a response it does not fit */
export const notAcceptableFor = (message: string) => err(406, 'NotAcceptable', message);
/** beingDeleted: the object in the way is being deleted, which the reference's message says first */
export const alreadyExists = (group: string, resource: string, name: string, beingDeleted = false) =>
  err(409, 'AlreadyExists', `${beingDeleted ? 'object is being deleted: ' : ''}${qualifiedResource(group, resource)} "${name}" already exists`,
    { name, group: group || undefined, kind: resource });
export const conflict = (group: string, resource: string, name: string, why: string) =>
  err(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`,
    { name, group: group || undefined, kind: resource });
export const gone = (message: string) => err(410, 'Gone', message);
export const expired = (message: string) => err(410, 'Expired', message);
export const tooLarge = (message = 'Request entity too large: limit is 3145728') => err(413, 'RequestEntityTooLarge', message);
/** a body (or patch) of a media type the endpoint does not take: the reference's message names only what it takes */
export const unsupportedMediaType = (supported: string[]) =>
  err(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`);
/** the texts of causes for a message, each once as the reference aggregates them (300,000 equal causes say it once),
 *  several in brackets: `[a, b]` */
const causeTexts = (causes: StatusCause[]) => {
  const texts = [...new Set(causes.map(c => `${c.field ? `${c.field}: ` : ''}${c.message}`))];
  return texts.length > 1 ? `[${texts.join(', ')}]` : texts.join('');
};
export const invalid = (group: string, kind: string, name: string, causes: StatusCause[]) =>
  err(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${causeTexts(causes)}`,
    { name, group: group || undefined, kind, causes });
/** retryAfterSeconds 0 says no delay: no Retry-After header, which clients would take as "retry at once" (client-go
 *  then repeats the request ten times in a row), as the reference leaves it out for 0 */
export const tooManyRequests = (message: string, retryAfterSeconds = 1) => retryAfterSeconds > 0
  ? err(429, 'TooManyRequests', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) })
  : err(429, 'TooManyRequests', message, {});
export const internalError = (message: string) =>
  err(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
export const serviceUnavailable = (message: string, retryAfterSeconds?: number) => retryAfterSeconds
  ? err(503, 'ServiceUnavailable', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) })
  : err(503, 'ServiceUnavailable', message);
export const timeout = (message: string, retryAfterSeconds = 1) => retryAfterSeconds
  ? err(504, 'Timeout', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) })
  : err(504, 'Timeout', message);

/** a cause as field validation reports it */
export const fieldCause = (reason: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTypeInvalid',
  field: string, message: string): StatusCause => ({ reason, message, field });
