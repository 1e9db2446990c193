// What a client is told when storage refuses: the one place where storage errors become Status errors.
import { alreadyExists, conflict, expired, internalError, notFound, timeout, tooLarge } from '../api/status.js';
import type { Revision } from '../api/resource-version.js';
import { isStorageError } from '../storage/types.js';

export interface ErrorScope {
  group: string;
  resource: string;
  name?: string;
  /** the revision the request asked for */
  revision?: Revision;
  /** the request went on from a continue token */
  continuing?: boolean;
}

const continueTooOld = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** the Status error for a storage error; anything else is returned as it is */
export function apiErrorOf(e: unknown, at: ErrorScope): unknown {
  if (!isStorageError(e)) return e;
  const name = at.name ?? '';
  switch (e.code) {
    case 'KeyExists': return alreadyExists(at.group, at.resource, name);
    case 'NotFound': return notFound(at.group, at.resource, name);
    case 'Conflict': return conflict(at.group, at.resource, name, e.message);
    case 'Compacted':
      if (at.continuing) return expired(continueTooOld);
      return expired(e.compactedRevision === undefined ? e.message : `too old resource version: ${at.revision ?? 0} (${e.compactedRevision + 1})`);
    // a version this server has not reached (504, as the reference answers)
    case 'FutureRevision': return timeout(`Too large resource version: ${at.revision ?? 0}, current: ${e.currentRevision ?? 0}`, 1);
    case 'TooLarge': return tooLarge(e.message);
    default: return internalError(e.message);
  }
}
