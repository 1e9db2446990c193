// coordination/v1 leases: held by one holder at a time (leader election, node heartbeats).
import type { Stored } from '../../../../api/meta.js';
import type { Lease } from '../../../../api/types/coordination-v1.js';
import * as s from '../../../../api/schemas/coordination-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, invalid, isSet, nonNegative } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

function validateLease(l: Lease): Causes {
  const s = l.spec ?? {};
  const out: Causes = [];
  if (isSet(s.leaseDurationSeconds) && s.leaseDurationSeconds <= 0) out.push(invalid('spec.leaseDurationSeconds', s.leaseDurationSeconds, 'must be greater than 0'));
  out.push(...nonNegative('spec.leaseTransitions', s.leaseTransitions));
  return out;
}

const columns: TableColumn<Lease>[] = [column('Holder', 'string', o => o.spec?.holderIdentity ?? '', 'The holder of the lease.'), age];

export const definition = define<Lease>({
  group: 'coordination', domainGroup: true, resource: 'leases', kind: 'Lease', namespaced: true, versions: only('v1', s.lease),
  strategy: defineStrategy<Stored<Lease>>({ generation: false, allowCreateOnUpdate: true, validate: validateLease, validateUpdate: validateLease }),
  columns,
});
