// core/v1 persistent volumes.
import type { PersistentVolume, PersistentVolumeClaim } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { define, only, status } from '../../define.js';
import { age, column, wide } from '../../columns.js';
import { strategy } from './strategy.js';

/** the abbreviations, in the order the reference prints them whatever the order of the list */
const accessModeNames: Array<[string, string]> = [
  ['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP'],
];
/** access modes as the reference abbreviates them (volumes and claims) */
export const accessModes = (modes: string[] | undefined) =>
  accessModeNames.filter(([mode]) => (modes ?? []).includes(mode)).map(([, short]) => short).join(',');

/** the class of a volume or claim: the beta annotation (`volume.beta.<domain>/storage-class`) wins over the field */
export function storageClassOf(o: PersistentVolume | PersistentVolumeClaim): string {
  const annotations = o.metadata?.annotations ?? {};
  const beta = Object.keys(annotations).find(k => /^volume\.beta\.[^/]+\/storage-class$/.test(k));
  return beta !== undefined ? annotations[beta] : o.spec?.storageClassName ?? '';
}

/** what volumes and claims print alike: their phase (Terminating once deleted), and their volume mode */
export const phaseColumn = (of: string) => column<PersistentVolume | PersistentVolumeClaim>('Status', 'string',
  o => (o.metadata?.deletionTimestamp ? 'Terminating' : o.status?.phase ?? ''), `The phase of the ${of}.`);
export const volumeModeColumn = wide<PersistentVolume | PersistentVolumeClaim>('VolumeMode', 'string', o => o.spec?.volumeMode ?? 'Filesystem', 'The volume mode.');

const columns: TableColumn<PersistentVolume>[] = [
  column('Capacity', 'string', o => String(o.spec?.capacity?.storage ?? ''), 'Capacity of the volume.'),
  column('Access Modes', 'string', o => accessModes(o.spec?.accessModes), 'Access modes of the volume.'),
  column('Reclaim Policy', 'string', o => o.spec?.persistentVolumeReclaimPolicy ?? '', 'What happens to the volume when released from its claim.'),
  phaseColumn('volume'),
  column('Claim', 'string', o => (o.spec?.claimRef ? `${o.spec.claimRef.namespace}/${o.spec.claimRef.name}` : ''), 'The claim bound to the volume.'),
  column('StorageClass', 'string', storageClassOf, 'Storage class of the volume.'),
  column('Reason', 'string', o => o.status?.reason ?? '', 'Reason the volume is in its phase.'),
  age,
  volumeModeColumn,
];

export const definition = define<PersistentVolume>({
  group: '', resource: 'persistentvolumes', kind: 'PersistentVolume', shortNames: ['pv'], namespaced: false,
  versions: only('v1', s.persistentVolume), subresources: status, strategy, columns,
});
