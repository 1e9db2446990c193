// core/v1 persistent volume claims: only the requested size may change once created.
import type { Stored } from '../../../../api/meta.js';
import { quantityValue } from '../../../../api/quantity.js';
import type { PersistentVolumeClaim, PersistentVolumeClaimSpec, TypedObjectReference } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy, type StrategyContext } from '../../../strategy.js';
import { defaultClaimSpec } from '../../../defaults/pod-spec.js';
import { type Causes, dnsSubdomain, forbidden, invalid, isSet, oneOf, required, sameJson } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column } from '../../columns.js';
import { storageQuantity, validateAccessModes, volumeModes } from '../persistentvolumes/strategy.js';
import { accessModes, phaseColumn, storageClassOf, volumeModeColumn } from '../persistentvolumes/definition.js';

function validateClaim(pvc: PersistentVolumeClaim): Causes {
  const s: PersistentVolumeClaimSpec = pvc.spec ?? {};
  const out = validateAccessModes('spec.accessModes', s.accessModes);
  out.push(...storageQuantity('spec.resources[storage]', s.resources?.requests?.storage));
  if (isSet(s.volumeMode)) out.push(...oneOf('spec.volumeMode', s.volumeMode, volumeModes));
  if (s.dataSource) out.push(...validateDataSource('spec.dataSource', s.dataSource));
  if (s.dataSourceRef) out.push(...validateDataSource('spec.dataSourceRef', s.dataSourceRef));
  // the reference shows the field's path as the invalid value
  if (s.dataSourceRef?.namespace) {
    if (s.dataSource) out.push(invalid('spec', 'dataSource', 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (s.dataSource && s.dataSourceRef && !sameJson(sourceKey(s.dataSource), sourceKey(s.dataSourceRef))) {
    out.push(invalid('spec', 'dataSource', 'must match dataSourceRef'));
  }
  return out;
}

const sourceKey = (r: TypedObjectReference) => ({ apiGroup: r.apiGroup ?? '', kind: r.kind, name: r.name });

/** an object to fill the volume from: a claim of the core group, or any named kind of a valid group */
function validateDataSource(at: string, ref: TypedObjectReference): Causes {
  const out: Causes = [];
  if (!ref.name) out.push(required(`${at}.name`));
  if (!ref.kind) out.push(required(`${at}.kind`));
  if (!ref.apiGroup && ref.kind !== 'PersistentVolumeClaim') out.push(invalid(at, ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (ref.apiGroup) out.push(...dnsSubdomain(`${at}.apiGroup`, ref.apiGroup));
  return out;
}

/**
 * The two data source fields kept in step, as the reference's API server keeps them: a reference to another
 * namespace is dropped while CrossNamespaceVolumeDataSource is off (unless the claim had one), and either field
 * set alone is copied to the other (dataSourceRef to dataSource only when it names no namespace).
 */
function syncDataSources(spec: PersistentVolumeClaimSpec, old: PersistentVolumeClaimSpec | undefined, ctx: StrategyContext) {
  if (spec.dataSourceRef?.namespace && !ctx.featureGates?.CrossNamespaceVolumeDataSource && !old?.dataSourceRef) delete spec.dataSourceRef;
  if (old) return;
  const { dataSource, dataSourceRef } = spec;
  if (dataSource && !dataSourceRef) spec.dataSourceRef = { ...pick(dataSource) };
  else if (dataSourceRef && !dataSource && !dataSourceRef.namespace) spec.dataSource = { ...pick(dataSourceRef) };
}
const pick = (r: TypedObjectReference) => ({ ...(r.apiGroup !== undefined ? { apiGroup: r.apiGroup } : {}), kind: r.kind, name: r.name });

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
  prepareForCreate(pvc, ctx) { pvc.status = { phase: 'Pending' }; syncDataSources(pvc.spec ??= {}, undefined, ctx); },
  prepareForUpdate(pvc, old, ctx) { syncDataSources(pvc.spec ??= {}, old.spec ?? {}, ctx); },
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
