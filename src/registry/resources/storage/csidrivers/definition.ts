// storage/v1 CSI drivers: how the cluster talks to a volume driver.
import type { Stored } from '../../../../api/meta.js';
import type { CSIDriver } from '../../../../api/types/storage-v1.js';
import * as s from '../../../../api/schemas/storage-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { type Causes, isSet, notSupported } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Ephemeral', 'Persistent'];

function validateCsiDriver(driver: CSIDriver): Causes {
  const s = driver.spec ?? {};
  const out: Causes = [];
  if (isSet(s.fsGroupPolicy) && !fsGroupPolicies.includes(s.fsGroupPolicy)) out.push(notSupported('spec.fsGroupPolicy', s.fsGroupPolicy, fsGroupPolicies));
  for (const [i, m] of (s.volumeLifecycleModes ?? []).entries())
    if (!lifecycleModes.includes(m)) out.push(notSupported(`spec.volumeLifecycleModes[${i}]`, m, lifecycleModes));
  return out;
}

function defaultCsiDriver(driver: CSIDriver) {
  const s = specOf(driver);
  fill(s, { attachRequired: true, podInfoOnMount: false, requiresRepublish: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType' });
  if (!(s.volumeLifecycleModes ?? []).length) s.volumeLifecycleModes = ['Persistent'];
}

export const strategy = defineStrategy<Stored<CSIDriver>>({
  defaults: defaultCsiDriver,
  validate: validateCsiDriver,
  validateUpdate: validateCsiDriver,
});

const columns: TableColumn<CSIDriver>[] = [
  column('AttachRequired', 'boolean', o => o.spec?.attachRequired ?? true, 'Indicates this CSI volume driver requires an attach operation.'),
  column('PodInfoOnMount', 'boolean', o => o.spec?.podInfoOnMount ?? false, 'Indicates this CSI volume driver requires additional pod information during mount operations.'),
  column('StorageCapacity', 'boolean', o => o.spec?.storageCapacity ?? false, 'Indicates this CSI volume driver exposes storage capacity.'),
  column('TokenRequests', 'string', o => (o.spec?.tokenRequests ?? []).map(t => t.audience || '<api-server-default>').join(',') || '<unset>', 'Indicates the CSIDriver wants pods\' service account tokens.'),
  column('RequiresRepublish', 'boolean', o => o.spec?.requiresRepublish ?? false, 'Indicates this CSI volume driver requires periodic NodePublishVolume calls.'),
  column('Modes', 'string', o => (o.spec?.volumeLifecycleModes ?? ['Persistent']).join(','), 'Volume lifecycle modes supported by the driver.'),
  age,
];

export const definition = define<CSIDriver>({
  group: 'storage', domainGroup: true, resource: 'csidrivers', kind: 'CSIDriver', namespaced: false, versions: only('v1', s.csiDriver),
  strategy, columns,
});
