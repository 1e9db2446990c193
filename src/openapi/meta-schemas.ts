// The apimachinery definitions that operations name but no kind embeds: the bodies of delete and patch
// requests, the Status answer and watch events. What they mean is in the description tables.
import type { Schema } from '../api/schema.js';
import { atomicList, int32, int64, bool, metaRef, obj, rawExtension, str } from '../api/schemas/build.js';
import { listMeta } from '../api/schemas/meta.js';

export const statusCause = obj(metaRef('StatusCause'), { field: str(), message: str(), reason: str() });

export const statusDetails = obj(metaRef('StatusDetails'), {
  causes: atomicList(statusCause), group: str(), kind: str(), name: str(), retryAfterSeconds: int32(), uid: str(),
});

export const status = obj(metaRef('Status'), {
  apiVersion: str(), code: int32(), details: statusDetails, kind: str(), message: str(), metadata: listMeta, reason: str(), status: str(),
});

export const preconditions = obj(metaRef('Preconditions'), { resourceVersion: str(), uid: str() });

export const deleteOptions = obj(metaRef('DeleteOptions'), {
  apiVersion: str(), dryRun: atomicList(str()), gracePeriodSeconds: int64(), kind: str(), orphanDependents: bool(),
  preconditions, propagationPolicy: str(),
});

export const patchBody: Schema = { type: 'object', 'x-ref': metaRef('Patch') };

export const watchEvent = obj(metaRef('WatchEvent'), { object: rawExtension, type: str() }, { required: ['type', 'object'] });

/** definitions whose x-kubernetes-group-version-kind lists every served group version */
export const everyGroupVersion = [deleteOptions, watchEvent];
