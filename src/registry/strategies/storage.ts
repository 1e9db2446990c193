// CSI drivers and volume attachments (storage/v1).
import { defineStrategy } from '../strategy.js';
import { fill } from '../defaults/pod.js';
import { type Causes, dnsSubdomain, forbidden, immutable, isSet, notSupported, required } from '../validation/fields.js';

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Ephemeral', 'Persistent'];

function validateCsiDriver(obj: any): Causes {
  const s = obj.spec ?? {};
  const out: Causes = [];
  if (isSet(s.fsGroupPolicy) && !fsGroupPolicies.includes(s.fsGroupPolicy)) out.push(notSupported('spec.fsGroupPolicy', s.fsGroupPolicy, fsGroupPolicies));
  for (const [i, m] of ((s.volumeLifecycleModes ?? []) as unknown[]).entries())
    if (!lifecycleModes.includes(m as string)) out.push(notSupported(`spec.volumeLifecycleModes[${i}]`, m, lifecycleModes));
  return out;
}

/** the reference's defaults, applied to every write as its decoder applies them */
function defaultCsiDriver(obj: any) {
  const s = obj.spec ??= {};
  fill(s, { attachRequired: true, podInfoOnMount: false, requiresRepublish: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType' });
  if (!(s.volumeLifecycleModes ?? []).length) s.volumeLifecycleModes = ['Persistent'];
}

export const csiDrivers = defineStrategy({
  prepareForCreate: defaultCsiDriver,
  prepareForUpdate: defaultCsiDriver,
  validate: validateCsiDriver,
  validateUpdate: validateCsiDriver,
});

const oneSource = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

function validateVolumeAttachment(obj: any): Causes {
  const s = obj.spec ?? {};
  const out: Causes = [];
  if (!s.attacher) out.push(required('spec.attacher'));
  const src = s.source ?? {};
  const hasPv = isSet(src.persistentVolumeName), hasInline = isSet(src.inlineVolumeSpec);
  if (!hasPv && !hasInline) out.push(required('spec.source', oneSource));
  else if (hasPv && hasInline) out.push(forbidden('spec.source', oneSource));
  if (!s.nodeName) out.push(required('spec.nodeName'));
  else out.push(...dnsSubdomain('spec.nodeName', s.nodeName));
  return out;
}

export const volumeAttachments = defineStrategy({
  // the status is the attacher's to write, through /status
  prepareForCreate(obj: any) { obj.status = { attached: false }; },
  validate: validateVolumeAttachment,
  validateUpdate: (obj: any, old: any) => [...validateVolumeAttachment(obj), ...immutable('spec', obj.spec, old.spec)],
});
