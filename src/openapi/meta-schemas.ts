// The apimachinery definitions that operations name but no kind embeds: the bodies of delete and patch
// requests, the Status answer and watch events.
import type { Schema } from '../api/schema.js';
import { atomicList, int32, int64, bool, metaRef, obj, rawExtension, str } from '../api/schemas/build.js';
import { listMeta } from '../api/schemas/meta.js';

export const statusCause = obj(metaRef('StatusCause'), { field: str(), message: str(), reason: str() },
  { description: 'StatusCause provides more information about an api.Status failure.' });

export const statusDetails = obj(metaRef('StatusDetails'), {
  causes: atomicList(statusCause), group: str(), kind: str(), name: str(), retryAfterSeconds: int32(), uid: str(),
}, { description: 'StatusDetails is a set of additional properties that MAY be set by the server to provide additional information about a response.' });

export const status = obj(metaRef('Status'), {
  apiVersion: str(), code: int32(), details: statusDetails, kind: str(), message: str(), metadata: listMeta, reason: str(), status: str(),
}, { description: 'Status is a return value for calls that do not return other objects.' });

export const preconditions = obj(metaRef('Preconditions'), { resourceVersion: str(), uid: str() },
  { description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.' });

export const deleteOptions = obj(metaRef('DeleteOptions'), {
  apiVersion: str(), dryRun: atomicList(str()), gracePeriodSeconds: int64(), kind: str(), orphanDependents: bool(),
  preconditions, propagationPolicy: str(),
}, { description: 'DeleteOptions may be provided when deleting an API object.' });

export const patchBody: Schema = {
  type: 'object', 'x-ref': metaRef('Patch'),
  description: 'Patch is provided to give a concrete name and type to the PATCH request body.',
};

export const watchEvent = obj(metaRef('WatchEvent'), { object: rawExtension, type: str() },
  { required: ['type', 'object'], description: 'Event represents a single event to a watched resource.' });

/** definitions whose x-kubernetes-group-version-kind lists every served group version */
export const everyGroupVersion = [deleteOptions, watchEvent];
