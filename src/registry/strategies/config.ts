// Secrets and ConfigMaps (keys, sizes, types, `immutable`), ServiceAccounts, Endpoints, persistent volumes and claims.
import type { ApiObject } from '../../api/meta.js';
import { apiDomains, naming } from '../../api/naming.js';
import { defineStrategy } from '../strategy.js';
import { defaultClaimSpec, fill } from '../defaults/pod.js';
import { type Causes, forbidden, immutable, invalid, isSet, notSupported, oneOf, portNumber, required } from '../validation/fields.js';
import { sameJson } from '../validation/pod.js';
import { quantityValue } from '../../api/quantity.js';

const configKey = /^[-._a-zA-Z0-9]+$/;
const maxDataBytes = 1024 * 1024;

function keyCauses(at: string, key: string): Causes {
  const out: Causes = [];
  if (key.length > 253) out.push(invalid(at, key, 'must be no more than 253 characters'));
  if (!configKey.test(key))
    out.push(invalid(at, key, "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"));
  if (key === '.' || key === '..') out.push(invalid(at, key, `must not be '${key}'`));
  else if (key.startsWith('..')) out.push(invalid(at, key, "must not start with '..'"));
  return out;
}

const tooLong = (field: string, max: number) => ({ reason: 'FieldValueTooLong', field, message: `Too long: must have at most ${max} bytes` });

/** once `immutable: true` is stored, the data and the flag stay as they are */
function immutableData(obj: any, old: any, fields: string[]): Causes {
  if (old.immutable !== true) return [];
  const out: Causes = [];
  if (obj.immutable !== true) out.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!sameJson(obj[f] ?? {}, old[f] ?? {})) out.push(forbidden(f, 'field is immutable when `immutable` is set'));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Secret

const secretLabelDomains = apiDomains.map(d => naming(d).labelDomain);
/** `<labelDomain>/<kind>` for either API domain */
const secretKind = (type: unknown) => {
  const t = String(type ?? '');
  const slash = t.indexOf('/');
  return slash > 0 && secretLabelDomains.includes(t.slice(0, slash)) ? { domain: t.slice(0, slash), kind: t.slice(slash + 1) } : undefined;
};

/** stringData is a write-only convenience: its entries replace those of data, encoded */
function foldStringData(secret: any) {
  if (secret.stringData && typeof secret.stringData === 'object') {
    secret.data = { ...(secret.data ?? {}) };
    for (const [k, v] of Object.entries(secret.stringData)) secret.data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  }
  delete secret.stringData;
}

const decoded = (v: unknown) => Buffer.from(String(v ?? ''), 'base64');

function validateSecret(secret: any): Causes {
  const out: Causes = [];
  const data: Record<string, string> = secret.data ?? {};
  let size = 0;
  for (const [k, v] of Object.entries(data)) { out.push(...keyCauses(`data[${k}]`, k)); size += decoded(v).length; }
  if (size > maxDataBytes) out.push(tooLong('data', maxDataBytes));
  const known = secretKind(secret.type);
  const needKey = (key: string) => { if (!(key in data)) out.push(required(`data[${key}]`)); };
  switch (known?.kind) {
    case 'service-account-token':
      if (!secret.metadata.annotations?.[`${known.domain}/service-account.name`])
        out.push(required(`metadata.annotations[${known.domain}/service-account.name]`));
      break;
    case 'dockercfg':
      needKey('.dockercfg');
      if ('.dockercfg' in data && !isJson(decoded(data['.dockercfg']))) out.push(invalid('data[.dockercfg]', '<secret contents redacted>', 'invalid character in JSON'));
      break;
    case 'dockerconfigjson':
      needKey('.dockerconfigjson');
      if ('.dockerconfigjson' in data && !isJson(decoded(data['.dockerconfigjson']))) out.push(invalid('data[.dockerconfigjson]', '<secret contents redacted>', 'invalid character in JSON'));
      break;
    case 'basic-auth':
      if (!('username' in data) && !('password' in data)) out.push(required('data[username]'), required('data[password]'));
      break;
    case 'ssh-auth':
      needKey('ssh-privatekey');
      break;
    case 'tls':
      needKey('tls.crt');
      needKey('tls.key');
      break;
  }
  return out;
}

const isJson = (b: Buffer) => { try { JSON.parse(b.toString('utf8')); return true; } catch { return false; } };

const prepareSecret = (obj: ApiObject) => { const s = obj as any; fill(s, { type: 'Opaque' }); foldStringData(s); };

export const secrets = defineStrategy({
  generation: false,
  selectableFields: { type: (o: any) => o.type },
  prepareForCreate: prepareSecret,
  prepareForUpdate: prepareSecret,
  validate: validateSecret,
  validateUpdate: (obj: any, old: any) => [...validateSecret(obj), ...immutable('type', obj.type, old.type), ...immutableData(obj, old, ['data'])],
});

// ---------------------------------------------------------------------------------------------
// ConfigMap

function validateConfigMap(cm: any): Causes {
  const out: Causes = [];
  let size = 0;
  for (const [k, v] of Object.entries((cm.data ?? {}) as Record<string, unknown>)) { out.push(...keyCauses(`data[${k}]`, k)); size += String(v ?? '').length; }
  for (const [k, v] of Object.entries((cm.binaryData ?? {}) as Record<string, unknown>)) {
    out.push(...keyCauses(`binaryData[${k}]`, k));
    if (cm.data && k in cm.data) out.push(invalid(`binaryData[${k}]`, k, 'duplicate of key present in data'));
    size += decoded(v).length;
  }
  if (size > maxDataBytes) out.push(tooLong('', maxDataBytes));
  return out;
}

export const configMaps = defineStrategy({
  generation: false,
  validate: validateConfigMap,
  validateUpdate: (obj: any, old: any) => [...validateConfigMap(obj), ...immutableData(obj, old, ['data', 'binaryData'])],
});

export const serviceAccounts = defineStrategy({ generation: false });

// ---------------------------------------------------------------------------------------------
// Endpoints

function defaultEndpoints(obj: ApiObject) {
  for (const subset of ((obj as any).subsets ?? []))
    for (const p of subset?.ports ?? []) if (p) fill(p, { protocol: 'TCP' });
}

function validateEndpoints(obj: any): Causes {
  const out: Causes = [];
  for (const [i, subset] of (obj.subsets ?? []).entries()) {
    for (const [j, a] of (subset?.addresses ?? []).entries()) if (!a?.ip) out.push(required(`subsets[${i}].addresses[${j}].ip`));
    for (const [j, p] of (subset?.ports ?? []).entries()) {
      out.push(...portNumber(`subsets[${i}].ports[${j}].port`, p?.port));
      out.push(...oneOf(`subsets[${i}].ports[${j}].protocol`, p?.protocol, ['SCTP', 'TCP', 'UDP']));
    }
  }
  return out;
}

export const endpoints = defineStrategy({
  generation: false, allowCreateOnUpdate: true,
  prepareForCreate: defaultEndpoints, prepareForUpdate: defaultEndpoints,
  validate: validateEndpoints, validateUpdate: validateEndpoints,
});

// ---------------------------------------------------------------------------------------------
// PersistentVolumeClaim and PersistentVolume

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const volumeModes = ['Block', 'Filesystem'];

function validateAccessModes(at: string, modes: unknown): Causes {
  const list = Array.isArray(modes) ? modes : [];
  if (!list.length) return [required(at, 'at least 1 access mode is required')];
  const out: Causes = list.filter(m => !accessModes.includes(m)).map(m => notSupported(at, m, accessModes));
  if (list.includes('ReadWriteOncePod') && list.length > 1) out.push(forbidden(at, 'may not use ReadWriteOncePod with other access modes'));
  return out;
}

function storageQuantity(at: string, q: unknown): Causes {
  if (!isSet(q)) return [required(at)];
  const v = quantityValue(q);
  return v !== undefined && v <= 0 ? [invalid(at, q, 'must be greater than zero')] : [];
}

function validateClaim(pvc: any): Causes {
  const s = pvc.spec ?? {};
  const out = validateAccessModes('spec.accessModes', s.accessModes);
  out.push(...storageQuantity('spec.resources[storage]', s.resources?.requests?.storage));
  if (isSet(s.volumeMode)) out.push(...oneOf('spec.volumeMode', s.volumeMode, volumeModes));
  return out;
}

function validateClaimUpdate(pvc: any, old: any): Causes {
  const out = validateClaim(pvc);
  // only the requested size may change (and a claim's volume may be named once)
  const strip = (s: any) => {
    const c = structuredClone(s ?? {});
    if (c.resources) delete c.resources.requests;
    if (!old.spec?.volumeName) delete c.volumeName;
    return c;
  };
  if (!sameJson(strip(pvc.spec), strip(old.spec)))
    out.push(forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims'));
  return out;
}

export const persistentVolumeClaims = defineStrategy({
  generation: false,
  prepareForCreate(obj: any) { obj.status = { phase: 'Pending' }; defaultClaimSpec(obj.spec ??= {}); },
  prepareForUpdate(obj: any) { defaultClaimSpec(obj.spec ??= {}); },
  validate: validateClaim,
  validateUpdate: validateClaimUpdate,
});

const pvSources = ['gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'iscsi', 'cinder', 'cephfs',
  'fc', 'flocker', 'flexVolume', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume',
  'scaleIO', 'local', 'storageos', 'csi'];

function defaultVolume(obj: any) {
  const s = obj.spec ??= {};
  fill(s, { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
  if (s.hostPath) fill(s.hostPath, { type: '' });
}

function validateVolume(pv: any): Causes {
  const s = pv.spec ?? {};
  const out = validateAccessModes('spec.accessModes', s.accessModes);
  out.push(...storageQuantity('spec.capacity[storage]', s.capacity?.storage));
  const sources = pvSources.filter(k => isSet(s[k]));
  if (!sources.length) out.push(required('spec', 'must specify a volume type'));
  for (const k of sources.slice(1)) out.push(forbidden(`spec.${k}`, 'may not specify more than 1 volume type'));
  out.push(...oneOf('spec.persistentVolumeReclaimPolicy', s.persistentVolumeReclaimPolicy, ['Delete', 'Recycle', 'Retain']));
  if (isSet(s.volumeMode)) out.push(...oneOf('spec.volumeMode', s.volumeMode, volumeModes));
  if (s.hostPath && !s.hostPath.path) out.push(required('spec.hostPath.path'));
  if (s.local && !s.local.path) out.push(required('spec.local.path'));
  if (s.nfs) { if (!s.nfs.server) out.push(required('spec.nfs.server')); if (!s.nfs.path) out.push(required('spec.nfs.path')); }
  if (s.csi) { if (!s.csi.driver) out.push(required('spec.csi.driver')); if (!s.csi.volumeHandle) out.push(required('spec.csi.volumeHandle')); }
  return out;
}

function validateVolumeUpdate(pv: any, old: any): Causes {
  const out = validateVolume(pv);
  const source = pvSources.find(k => isSet(old.spec?.[k]));
  if (source && source !== 'csi' && !sameJson(pv.spec?.[source], old.spec?.[source]))
    out.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  out.push(...immutable('spec.volumeMode', pv.spec?.volumeMode, old.spec?.volumeMode));
  return out;
}

export const persistentVolumes = defineStrategy({
  generation: false,
  prepareForCreate(obj: any) { obj.status = { phase: 'Pending' }; defaultVolume(obj); },
  prepareForUpdate: defaultVolume,
  validate: validateVolume,
  validateUpdate: validateVolumeUpdate,
});

