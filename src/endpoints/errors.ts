// Errors from the pure modules (patches, selectors, storage) as the Status bodies the reference returns.
import { ApiError, statusBody, internalError } from '../api/status.js';
import type { Status } from '../api/meta.js';
import { PatchError } from '../patch/common.js';
import { SelectorError } from '../api/selectors.js';
import { ApplyError, ConflictError } from '../apply/managed-fields.js';
import { storageFailure } from '../registry/errors.js';

export function toApiError(e: unknown): ApiError {
  return knownApiError(e) ?? internalError(e instanceof Error ? e.message : String(e));
}

/** the Status of an error the server expects (a refusal of the request, a storage failure); undefined for any other */
export function knownApiError(e: unknown): ApiError | undefined {
  if (e instanceof ApiError) return e;
  if (e instanceof PatchError) {
    return e.asCause
      ? new ApiError(statusBody(e.code, e.reason, 'the server rejected our request due to an error in our request', { causes: [{ message: e.message }] }))
      : new ApiError(statusBody(e.code, e.reason, e.message));
  }
  if (e instanceof ConflictError) return new ApiError(e.status() as Status);
  if (e instanceof ApplyError) return new ApiError(statusBody(e.code, e.code === 400 ? 'BadRequest' : e.code === 422 ? 'Invalid' : 'InternalError', e.message));
  if (e instanceof SelectorError) return new ApiError(statusBody(400, 'BadRequest', e.message));
  return storageFailure(e);
}
