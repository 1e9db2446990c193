// coordination/v1: leases.
import { kind, type DescriptionTable } from './common.js';

export default {
  Lease: kind('A Lease records who holds a lock and until when; used for leader election and node heartbeats.', {
    spec: 'The holder and the times of the lease.',
  }),
  LeaseSpec: {
    '': 'The state of a lease.',
    holderIdentity: 'The identity of the current holder.',
    leaseDurationSeconds: 'How long the holder keeps the lease after its last renewal; after that, others may take it.',
    acquireTime: 'When the current holder acquired the lease.',
    renewTime: 'When the holder last renewed the lease.',
    leaseTransitions: 'How many times the lease has changed holder.',
  },
} satisfies DescriptionTable;
