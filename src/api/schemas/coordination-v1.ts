// coordination/v1 definitions.
import { apiRef, int32, microTime, obj, str } from './build.js';
import { kind } from './meta.js';

export const lease = kind(apiRef('coordination.v1', 'Lease'), {
  spec: obj(apiRef('coordination.v1', 'LeaseSpec'), {
    holderIdentity: str(),
    leaseDurationSeconds: int32(),
    acquireTime: microTime,
    renewTime: microTime,
    leaseTransitions: int32(),
  }),
});
