// resourceVersion: the storage revision of an object's last write, as the decimal string clients see. The one place
// that turns revisions into resourceVersions and back; everything else handles (and compares) revisions as numbers.
import { badRequest } from './status.js';

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
