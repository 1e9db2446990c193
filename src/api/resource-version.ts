// resourceVersion: the storage revision of an object's last write, as the decimal string clients see. The one place
// that turns revisions into resourceVersions and back; everything else handles (and compares) revisions as numbers.
import { badRequest, fieldCause } from './status.js';
import type { StatusCause } from './meta.js';

/** a storage revision: global, monotonic, one per write */
export type Revision = number;

/** the resourceVersion clients see for a revision */
export const formatResourceVersion = (rev: Revision): string => String(rev);

/**
 * A resourceVersion a client sent: undefined when absent or empty, else its revision (0 means "any").
 * Anything but a decimal integer is a 400.
 */
export function parseResourceVersion(text: string | undefined, field = 'resource version'): Revision | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,16}$/.test(text)) throw badRequest(`invalid ${field} "${text}": must be a decimal integer`);
  return Number(text);
}

/** the revision of an object's resourceVersion; 0 when it has none or one this server did not write */
export const revisionOf = (obj: { metadata?: { resourceVersion?: string } } | undefined): Revision => {
  const text = obj?.metadata?.resourceVersion;
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : 0;
};

/** the options of a list or watch that decide which revision is read */
export interface ListOptionsText {
  watch: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  continue: string;
  /** the sendInitialEvents parameter as given (absent: undefined) */
  sendInitialEvents: string | undefined;
  watchListEnabled: boolean;
}

/** what is wrong with a list's or watch's options, as the reference checks them before reading (a 422 on ListOptions) */
export function listOptionProblems(o: ListOptionsText): StatusCause[] {
  const out: StatusCause[] = [];
  const forbid = (field: string, why: string) => out.push(fieldCause('FieldValueForbidden', field, `Forbidden: ${why}`));
  const notSupported = (value: string, supported: string[]) =>
    out.push(fieldCause('FieldValueNotSupported', 'resourceVersionMatch', `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map(s => JSON.stringify(s)).join(', ')}`));
  const match = o.resourceVersionMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined) {
      if (match !== 'NotOlderThan') forbid('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
      if (!o.watchListEnabled) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
    }
    if (match) {
      if (o.sendInitialEvents === undefined) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      if (match !== 'NotOlderThan') notSupported(match, ['NotOlderThan']);
      if (o.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    }
    return out;
  }
  if (match) {
    if (!o.resourceVersion) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (o.continue) forbid('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan') notSupported(match, ['Exact', 'NotOlderThan', '']);
    if (match === 'Exact' && o.resourceVersion === '0') forbid('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  if (o.sendInitialEvents !== undefined) forbid('sendInitialEvents', 'sendInitialEvents is forbidden for list');
  return out;
}
