// storage/v1 volume attachments: a volume attached to a node; the spec never changes and the attacher writes the status.
import type { Stored } from '../../../../api/meta.js';
import type { VolumeAttachment, VolumeAttachmentSpec } from '../../../../api/types/storage-v1.js';
import * as s from '../../../../api/schemas/storage-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, dnsSubdomain, forbidden, immutable, isSet, required } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column } from '../../columns.js';

const oneSource = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

function validateVolumeAttachment(va: VolumeAttachment): Causes {
  const s: Partial<VolumeAttachmentSpec> = va.spec ?? {};
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

export const strategy = defineStrategy<Stored<VolumeAttachment>>({
  generation: false,
  // the status is the attacher's to write, through /status
  prepareForCreate(va) { va.status = { attached: false }; },
  validate: validateVolumeAttachment,
  validateUpdate: (va, old) => [...validateVolumeAttachment(va), ...immutable('spec', va.spec, old.spec)],
});

const columns: TableColumn<VolumeAttachment>[] = [
  column('Attacher', 'string', o => o.spec?.attacher ?? '', 'Attacher indicates the name of the volume driver that MUST handle this request.'),
  column('PV', 'string', o => o.spec?.source?.persistentVolumeName ?? '', 'Name of the persistent volume to attach.'),
  column('Node', 'string', o => o.spec?.nodeName ?? '', 'The node that the volume should be attached to.'),
  column('Attached', 'boolean', o => o.status?.attached ?? false, 'Whether the volume is attached.'),
  age,
];

export const definition = define<VolumeAttachment>({
  group: 'storage', domainGroup: true, resource: 'volumeattachments', kind: 'VolumeAttachment', namespaced: false,
  versions: only('v1', s.volumeAttachment), subresources: status, strategy, columns,
});
