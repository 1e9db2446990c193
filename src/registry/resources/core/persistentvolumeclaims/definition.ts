// core/v1 persistent volume claims: only the requested size may change once created.
import type { Stored } from '../../../../api/meta.js';
import { quantityValue } from '../../../../api/quantity.js';
import type { PersistentVolumeClaim, PersistentVolumeClaimSpec } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { defaultClaimSpec } from '../../../defaults/pod-spec.js';
import { type Causes, forbidden, isSet, oneOf, sameJson } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column } from '../../columns.js';
import { storageQuantity, validateAccessModes, volumeModes } from '../persistentvolumes/strategy.js';
import { accessModes, phaseColumn, storageClassOf, volumeModeColumn } from '../persistentvolumes/definition.js';

function validateClaim(pvc: PersistentVolumeClaim): Causes {
  const s: PersistentVolumeClaimSpec = pvc.spec ?? {};
  const out = validateAccessModes('spec.accessModes', s.accessModes);
  out.push(...storageQuantity('spec.resources[storage]', s.resources?.requests?.storage));
  if (isSet(s.volumeMode)) out.push(...oneOf('spec.volumeMode', s.volumeMode, volumeModes));
  return out;
}

/** the class annotation of claims written before storageClassName (`volume.beta.<domain>/storage-class`) */
const hasBetaClass = (pvc: PersistentVolumeClaim) => Object.keys(pvc.metadata?.annotations ?? {}).some(k => /^volume\.beta\.[^/]+\/storage-class$/.test(k));

function validateClaimUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): Causes {
  const out = validateClaim(pvc);
  // a claim that named no class may be given one once (the default class, assigned after the claim was made)
  const classFromNil = old.spec?.storageClassName == null && pvc.spec?.storageClassName != null && !hasBetaClass(old) && !hasBetaClass(pvc);
  // only a bound claim's requested size may change (and a claim's volume may be named once)
  const bound = pvc.status?.phase === 'Bound';
  const strip = (s: PersistentVolumeClaimSpec | undefined) => {
    const c = structuredClone(s ?? {});
    if (bound && c.resources?.requests) c.resources.requests.storage = old.spec?.resources?.requests?.storage!;
    if (!old.spec?.volumeName) delete c.volumeName;
    if (classFromNil) delete c.storageClassName;
    return c;
  };
  if (!sameJson(strip(pvc.spec), strip(old.spec)))
    out.push(forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims'));
  // volumes are never shrunk (the reference's recovery from a failed expansion is an alpha feature, off)
  const [newSize, oldSize] = [pvc.spec?.resources?.requests?.storage, old.spec?.resources?.requests?.storage].map(quantityValue);
  if (newSize !== undefined && oldSize !== undefined && newSize < oldSize)
    out.push(forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  return out;
}

export const strategy = defineStrategy<Stored<PersistentVolumeClaim>>({
  generation: false,
  defaults: pvc => defaultClaimSpec(pvc.spec ??= {}),
  prepareForCreate(pvc) { pvc.status = { phase: 'Pending' }; },
  validate: validateClaim,
  validateUpdate: validateClaimUpdate,
});

const columns: TableColumn<PersistentVolumeClaim>[] = [
  phaseColumn('claim'),
  column('Volume', 'string', o => o.spec?.volumeName ?? '', 'The volume bound to the claim.'),
  column('Capacity', 'string', o => (o.spec?.volumeName ? String(o.status?.capacity?.storage ?? '0') : ''), 'Capacity of the bound volume.'),
  column('Access Modes', 'string', o => (o.spec?.volumeName ? accessModes(o.status?.accessModes) : ''), 'Access modes of the bound volume.'),
  column('StorageClass', 'string', storageClassOf, 'Storage class of the claim.'),
  age,
  volumeModeColumn,
];

export const definition = define<PersistentVolumeClaim>({
  group: '', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', shortNames: ['pvc'], namespaced: true,
  versions: only('v1', s.persistentVolumeClaim), subresources: status, strategy, columns,
});
