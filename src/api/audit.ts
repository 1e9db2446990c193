// Auditing as the rest of the server sees it: the levels of detail a request is recorded at, and the record a
// request carries through the pipeline so handlers and admission can add to it.

/** None records nothing; Metadata the request line, user and outcome; Request adds the request body; RequestResponse the response body */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

export const auditLevels: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];

/** whether `level` records at least as much as `atLeast` */
export const levelCovers = (level: AuditLevel, atLeast: AuditLevel) => auditLevels.indexOf(level) >= auditLevels.indexOf(atLeast);

/** the audit record of one request, present when the policy records the request at all */
export interface AuditRecord {
  readonly level: AuditLevel;
  /** adds an annotation kept when the record's level is at least `level` (default Metadata); the first value of a key stays */
  annotate(key: string, value: string, level?: AuditLevel): void;
  /** the request body as received (kept, when it is JSON, at level Request and above) */
  requestBody(body: Buffer, contentType: string): void;
  /** the decoded object of a create or update: names the event's object where the path did not (a create's name) */
  requestObject(obj: { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } }): void;
  /** the response body as sent (kept, when it is JSON, at level RequestResponse) */
  responseBody(body: string | Buffer, contentType: string): void;
  /** the connection was upgraded (101, written straight to its socket): the response has started */
  switchedProtocols(): void;
}
