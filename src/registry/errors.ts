// Storage errors as the Status a client gets: the one mapping the store, the reads and the endpoints share.
import { alreadyExists, gone, internalError, notFound, serviceUnavailable, tooLarge, type ApiError } from '../api/status.js';
import { isStorageError } from '../storage/types.js';

/** the object a write concerned, which names it in NotFound and AlreadyExists */
export interface ErrorTarget { group: string; resource: string; name: string }

/** the Status of a storage error; undefined for any other error */
export function storageFailure(e: unknown, target?: ErrorTarget): ApiError | undefined {
  if (!isStorageError(e)) return undefined;
  switch (e.code) {
    case 'KeyExists': return target ? alreadyExists(target.group, target.resource, target.name) : internalError(e.message);
    case 'NotFound': return target ? notFound(target.group, target.resource, target.name) : internalError(e.message);
    case 'Compacted': return gone(`too old resource version: ${e.message}`);
    case 'TooLarge': return tooLarge(e.message);
    case 'Unavailable': return serviceUnavailable(e.message);
    default: return internalError(e.message);
  }
}
