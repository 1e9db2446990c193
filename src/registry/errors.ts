// Storage errors as the Status a client gets: the one mapping the store, the reads and the endpoints share.
import { alreadyExists, conflict, expired, internalError, notFound, serviceUnavailable, timeout, tooLarge, type ApiError } from '../api/status.js';
import type { Revision } from '../api/resource-version.js';
import { isStorageError } from '../storage/types.js';

/** what a request concerned: the object a write named, the revision a read asked for */
export interface ErrorTarget {
  group: string;
  resource: string;
  name?: string;
  revision?: Revision;
  /** the read went on from a continue token */
  continuing?: boolean;
  /** the read was a list (not a watch) */
  listing?: boolean;
}

const continueTooOld = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** the Status of a storage error; undefined for any other error */
export function storageFailure(e: unknown, target?: ErrorTarget): ApiError | undefined {
  if (!isStorageError(e)) return undefined;
  const named = target?.name !== undefined ? target as ErrorTarget & { name: string } : undefined;
  switch (e.code) {
    case 'KeyExists': return named ? alreadyExists(named.group, named.resource, named.name) : internalError(e.message);
    case 'NotFound': return named ? notFound(named.group, named.resource, named.name) : internalError(e.message);
    case 'Conflict': return named ? conflict(named.group, named.resource, named.name, e.message) : internalError(e.message);
    case 'Compacted':
      if (target?.continuing) return expired(continueTooOld);
      if (target?.listing) return expired('The resourceVersion for the provided list is too old.');
      return expired(e.compactedRevision === undefined ? e.message : `too old resource version: ${target?.revision ?? 0} (${e.compactedRevision + 1})`);
    // a version this server has not reached (504, as the reference answers)
    case 'FutureRevision': {
      const failure = timeout(`Too large resource version: ${target?.revision ?? 0}, current: ${e.currentRevision ?? 0}`, 1);
      // client libraries tell this wait from other timeouts by its cause, and then list afresh
      failure.status.details!.causes = [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }];
      return failure;
    }
    case 'TooLarge': return tooLarge(e.message);
    // clients retry after a moment (client libraries honour Retry-After on any 5xx): storage usually comes back
    case 'Unavailable': return serviceUnavailable(`storage is unavailable: ${e.message}`, 1);
    default: return internalError(e.message);
  }
}
