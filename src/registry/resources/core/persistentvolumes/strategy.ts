// Persistent volumes: one source, a capacity, access modes; the source and the volume mode never change.
import { posix } from 'node:path';
import type { Stored } from '../../../../api/meta.js';
import type { PersistentVolume, PersistentVolumeSpec } from '../../../../api/types/core-v1.js';
import { quantityValue } from '../../../../api/quantity.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { type Causes, forbidden, immutable, invalid, isSet, notSupported, oneOf, required, sameJson } from '../../../validation/fields.js';

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
export const volumeModes = ['Block', 'Filesystem'];

/** the access modes of a volume or a claim (the reference explains the missing ones to claims only) */
export function validateAccessModes(at: string, modes: unknown, missing = 'at least 1 access mode is required'): Causes {
  const list: unknown[] = Array.isArray(modes) ? modes : [];
  if (!list.length) return [required(at, missing)];
  const out: Causes = list.filter(m => !accessModes.includes(m as string)).map(m => notSupported(at, m, accessModes));
  if (list.includes('ReadWriteOncePod') && list.length > 1) out.push(forbidden(at, 'may not use ReadWriteOncePod with other access modes'));
  return out;
}

/** a storage size: set, and above zero */
export function storageQuantity(at: string, q: unknown): Causes {
  if (!isSet(q)) return [required(at)];
  const v = quantityValue(q);
  return v !== undefined && v <= 0 ? [invalid(at, q, 'must be greater than zero')] : [];
}

const pvSources = ['gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'iscsi', 'cinder', 'cephfs',
  'fc', 'flocker', 'flexVolume', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume',
  'scaleIO', 'local', 'storageos', 'csi'] as const satisfies ReadonlyArray<keyof PersistentVolumeSpec>;

/** the kinds whose plugins took mount options from the beta annotation (`volume.beta.<domain>/mount-options`) */
const mountableSources: readonly string[] = ['gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder',
  'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk'];

function defaultVolume(pv: PersistentVolume) {
  const s = specOf(pv);
  fill(s, { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
  if (s.hostPath) fill(s.hostPath, { type: '' });
}

/** a volume's capacity: its storage and nothing else, each above zero */
function capacity(cap: Record<string, unknown> | undefined): Causes {
  const keys = Object.keys(cap ?? {});
  const out: Causes = [];
  if (!keys.length) out.push(required('spec.capacity'));
  if (!keys.includes('storage') || keys.length > 1) {
    out.push(keys.length ? notSupported('spec.capacity', cap, ['storage'])
      : { reason: 'FieldValueNotSupported', field: 'spec.capacity', message: 'Unsupported value: core.ResourceList(nil): supported values: "storage"' });
  }
  for (const k of keys) out.push(...storageQuantity(`spec.capacity[${k}]`, cap?.[k]));
  return out;
}

function validateVolume(pv: PersistentVolume): Causes {
  const s: PersistentVolumeSpec = pv.spec ?? {};
  const out = validateAccessModes('spec.accessModes', s.accessModes, '');
  out.push(...capacity(s.capacity));
  if (isSet(s.nodeAffinity) && !isSet(s.nodeAffinity.required)) out.push(required('spec.nodeAffinity.required', 'must specify required node constraints'));
  const sources = pvSources.filter(k => isSet(s[k]));
  if (!sources.length) out.push(required('spec', 'must specify a volume type'));
  for (const k of sources.slice(1)) out.push(forbidden(`spec.${k}`, 'may not specify more than 1 volume type'));
  // a local volume is on one node: the scheduler learns which from its node affinity
  if (sources[0] === 'local' && !isSet(s.nodeAffinity)) out.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  if (s.hostPath && posix.normalize(String(s.hostPath.path ?? '')).replace(/(.)\/$/, '$1') === '/' && s.persistentVolumeReclaimPolicy === 'Recycle')
    out.push(forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  out.push(...oneOf('spec.persistentVolumeReclaimPolicy', s.persistentVolumeReclaimPolicy, ['Delete', 'Recycle', 'Retain']));
  if (isSet(s.volumeMode)) out.push(...oneOf('spec.volumeMode', s.volumeMode, volumeModes));
  const mountOptionsKey = Object.keys(pv.metadata?.annotations ?? {}).find(k => /^volume\.beta\.[^/]+\/mount-options$/.test(k));
  if (mountOptionsKey && !sources.some(k => mountableSources.includes(k)))
    out.push(forbidden(`metadata.annotations.${mountOptionsKey}`, 'may not specify mount options for this volume type'));
  if (s.hostPath && !s.hostPath.path) out.push(required('spec.hostPath.path'));
  if (s.local && !s.local.path) out.push(required('spec.local.path'));
  if (s.nfs) { if (!s.nfs.server) out.push(required('spec.nfs.server')); if (!s.nfs.path) out.push(required('spec.nfs.path')); }
  if (s.csi) { if (!s.csi.driver) out.push(required('spec.csi.driver')); if (!s.csi.volumeHandle) out.push(required('spec.csi.volumeHandle')); }
  return out;
}

function validateVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): Causes {
  const out = validateVolume(pv);
  const source = pvSources.find(k => isSet(old.spec?.[k]));
  if (source && source !== 'csi' && !sameJson(pv.spec?.[source], old.spec?.[source]))
    out.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  // the reference names this field without its spec prefix
  out.push(...immutable('volumeMode', pv.spec?.volumeMode, old.spec?.volumeMode));
  return out;
}

export const strategy = defineStrategy<Stored<PersistentVolume>>({
  generation: false,
  defaults: defaultVolume,
  prepareForCreate(pv) { pv.status = { phase: 'Pending' }; },
  validate: validateVolume,
  validateUpdate: validateVolumeUpdate,
});
