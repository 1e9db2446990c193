// storage/v1 storage classes.
import type { Stored } from '../../../../api/meta.js';
import type { StorageClass } from '../../../../api/types/storage-v1.js';
import type { TopologySelectorTerm } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/storage-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { qualifiedNameErrors } from '../../../../api/selectors.js';
import { type Causes, duplicate, forbidden, immutable, invalid, isSet, notSupported, oneOf, qualifiedName, required, sameJson } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column, nameColumn } from '../../columns.js';

/** the default class is named with a ' (default)' suffix, as the reference prints it (either annotation, GA or beta) */
const isDefaultClass = (sc: StorageClass) =>
  Object.entries(sc.metadata?.annotations ?? {}).some(([k, v]) => /^storageclass(\.beta)?\.[^/]+\/is-default-class$/.test(k) && v === 'true');
const storageClassName = (sc: StorageClass) => `${sc.metadata?.name ?? ''}${isDefaultClass(sc) ? ' (default)' : ''}`;

// a class provisions volumes that are deleted or kept: Recycle is a volume's policy, not a class's
const reclaimPolicies = ['Delete', 'Retain'];
const bindingModes = ['Immediate', 'WaitForFirstConsumer'];

function validateStorageClass(sc: StorageClass): Causes {
  const out: Causes = [];
  const provisioner = sc.provisioner ?? '';
  if (!provisioner) out.push(required('provisioner'));
  else out.push(...qualifiedNameErrors(String(provisioner).toLowerCase()).map(p => invalid('provisioner', provisioner, p)));
  if (Object.keys(sc.parameters ?? {}).includes('')) out.push(invalid('parameters', '', 'field can not be empty.'));
  if (isSet(sc.reclaimPolicy) && (sc.reclaimPolicy as string) !== '' && !reclaimPolicies.includes(sc.reclaimPolicy)) out.push(notSupported('reclaimPolicy', sc.reclaimPolicy, reclaimPolicies));
  out.push(...oneOf('volumeBindingMode', sc.volumeBindingMode, bindingModes));
  out.push(...allowedTopologies(sc.allowedTopologies ?? []));
  return out;
}

/** each term's requirements: a label key once, at least one value, each value once; no term twice */
function allowedTopologies(terms: TopologySelectorTerm[]): Causes {
  const out: Causes = [];
  const seen: string[] = [];
  terms.forEach((term, i) => {
    const byKey = new Map<string, string[]>();
    (term.matchLabelExpressions ?? []).forEach((req, j) => {
      const at = `allowedTopologies[${i}].matchLabelExpressions[${j}]`;
      const values = req.values ?? [];
      if (!values.length) out.push(required(`${at}.values`));
      values.forEach((v, k) => { if (values.indexOf(v) < k) out.push(duplicate(`${at}.values[${k}]`, v)); });
      out.push(...qualifiedName(`${at}.key`, req.key ?? ''));
      if (byKey.has(req.key)) out.push(duplicate(`${at}.key`, req.key));
      byKey.set(req.key, [...new Set(values)].sort());
    });
    const key = JSON.stringify([...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (byKey.size && seen.includes(key)) out.push(duplicate(`allowedTopologies[${i}].matchLabelExpressions`, ''));
    seen.push(key);
  });
  return out;
}

function validateStorageClassUpdate(sc: StorageClass, old: StorageClass): Causes {
  const out = validateStorageClass(sc);
  if (!sameJson(sc.parameters ?? {}, old.parameters ?? {})) out.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if ((sc.provisioner ?? '') !== (old.provisioner ?? '')) out.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (sc.reclaimPolicy !== old.reclaimPolicy) out.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  out.push(...immutable('volumeBindingMode', sc.volumeBindingMode, old.volumeBindingMode));
  return out;
}

export const strategy = defineStrategy<Stored<StorageClass>>({
  // the reference keeps no generation for storage classes
  generation: false,
  defaults: sc => fill(sc, { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' }),
  validate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,
});

export const definition = define<StorageClass>({
  group: 'storage', domainGroup: true, resource: 'storageclasses', kind: 'StorageClass', shortNames: ['sc'], namespaced: false,
  versions: only('v1', s.storageClass), strategy,
  columns: [
    nameColumn(storageClassName),
    column('Provisioner', 'string', o => o.provisioner ?? '', 'Indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', o => o.reclaimPolicy ?? 'Delete', 'Indicates the type of the reclaim policy.'),
    column('VolumeBindingMode', 'string', o => o.volumeBindingMode ?? 'Immediate', 'Indicates how PersistentVolumeClaims should be bound.'),
    column('AllowVolumeExpansion', 'string', o => o.allowVolumeExpansion ?? false, 'Indicates whether the storage class allow volume expand.'),
    age,
  ],
});
