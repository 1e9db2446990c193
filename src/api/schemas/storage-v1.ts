// storage/v1 definitions.
import { apiRef, arr, atomicList, atomicObj, bool, int32, int64, mergeList, obj, oneOf, quantity, setList, str, stringMap, time } from './build.js';
import { kind, labelSelector } from './meta.js';
import { persistentVolume } from './core-v1.js';

const ref = (k: string) => apiRef('storage.v1', k);

export const storageClass = kind(ref('StorageClass'), {
  provisioner: str(),
  parameters: stringMap(),
  reclaimPolicy: oneOf('Delete', 'Recycle', 'Retain'),
  mountOptions: arr(str()),
  allowVolumeExpansion: bool(),
  volumeBindingMode: oneOf('Immediate', 'WaitForFirstConsumer'),
  allowedTopologies: atomicList(atomicObj(apiRef('core.v1', 'TopologySelectorTerm'), {
    matchLabelExpressions: arr(obj(apiRef('core.v1', 'TopologySelectorLabelRequirement'), {
      key: str(), values: arr(str()),
    }, { required: ['key', 'values'] })),
  })),
}, { required: ['provisioner'] });

export const csiDriver = kind(ref('CSIDriver'), {
  spec: obj(ref('CSIDriverSpec'), {
    attachRequired: bool(),
    podInfoOnMount: bool(),
    volumeLifecycleModes: setList(str()),
    storageCapacity: bool(),
    fsGroupPolicy: str(),
    tokenRequests: atomicList(obj(ref('TokenRequest'), { audience: str(), expirationSeconds: int64() }, { required: ['audience'] })),
    requiresRepublish: bool(),
    seLinuxMount: bool(),
  }),
}, { required: ['spec'] });

export const csiNode = kind(ref('CSINode'), {
  spec: obj(ref('CSINodeSpec'), {
    drivers: mergeList(obj(ref('CSINodeDriver'), {
      name: str(),
      nodeID: str(),
      topologyKeys: arr(str()),
      allocatable: obj(ref('VolumeNodeResources'), { count: int32() }),
    }, { required: ['name', 'nodeID'] }), 'name'),
  }, { required: ['drivers'] }),
}, { required: ['spec'] });

export const csiStorageCapacity = kind(ref('CSIStorageCapacity'), {
  nodeTopology: labelSelector,
  storageClassName: str(),
  capacity: quantity,
  maximumVolumeSize: quantity,
}, { required: ['storageClassName'] });

const volumeError = obj(ref('VolumeError'), { time, message: str() });
export const volumeAttachment = kind(ref('VolumeAttachment'), {
  spec: obj(ref('VolumeAttachmentSpec'), {
    attacher: str(),
    source: obj(ref('VolumeAttachmentSource'), {
      persistentVolumeName: str(),
      inlineVolumeSpec: persistentVolume.properties!.spec,
    }),
    nodeName: str(),
  }, { required: ['attacher', 'source', 'nodeName'] }),
  status: obj(ref('VolumeAttachmentStatus'), {
    attached: bool(),
    attachmentMetadata: stringMap(),
    attachError: volumeError,
    detachError: volumeError,
  }, { required: ['attached'] }),
}, { required: ['spec'] });
