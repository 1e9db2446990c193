// storage/v1: storage classes, CSI drivers and nodes, volume attachments and storage capacity.
import { kind, type DescriptionTable } from './common.js';

export default {
  StorageClass: kind('A StorageClass describes a kind of storage: the provisioner that creates volumes of it and their settings. Claims ask for a class by name; the annotation storageclass.{labels}/is-default-class marks the default.', {
    provisioner: 'The name of the provisioner that creates volumes of this class. Cannot change.',
    parameters: 'Settings passed to the provisioner; what they mean depends on it. At most 512 entries, 256 KiB together. Cannot change.',
    reclaimPolicy: 'The reclaim policy of volumes this class provisions: "Delete" (the default) or "Retain". Cannot change.',
    mountOptions: 'Mount options of volumes this class provisions, passed unchecked; a wrong option makes mounting fail.',
    allowVolumeExpansion: 'Whether claims of this class may be resized.',
    volumeBindingMode: 'When claims are bound and provisioned: "Immediate" (the default) or "WaitForFirstConsumer", once a pod using the claim is scheduled.',
    allowedTopologies: 'Where volumes may be provisioned; anywhere when empty. Only for provisioners that support it.',
  }),
  CSIDriver: kind('A CSIDriver tells the cluster how to treat the volumes of one CSI driver installed on its nodes; its name is the driver\'s name.', {
    spec: 'How the driver\'s volumes are handled.',
  }),
  CSIDriverSpec: {
    '': 'How the volumes of a CSI driver are handled.',
    attachRequired: 'Whether volumes must be attached to a node (ControllerPublishVolume) before they are mounted. Defaults to true. Cannot change.',
    podInfoOnMount: 'Whether the pod\'s name, namespace, uid and service account are passed to the driver when a volume is mounted. Defaults to false.',
    volumeLifecycleModes: 'The kinds of volume the driver supports: "Persistent" (the default) and "Ephemeral" (inline in pods).',
    storageCapacity: 'Whether the scheduler considers the storage capacity the driver publishes as CSIStorageCapacity objects. Defaults to false.',
    fsGroupPolicy: 'Whether the node agent changes volume ownership to the pod\'s fsGroup: "ReadWriteOnceWithFSType" (the default), "File" (always) or "None" (never).',
    tokenRequests: 'Service account tokens of the pod passed to the driver when a volume is mounted, one per audience.',
    requiresRepublish: 'Whether the driver\'s NodePublishVolume is called again periodically, to refresh mounted content such as tokens. Defaults to false.',
    seLinuxMount: 'Whether the driver supports mounting with an SELinux context option, which spares relabelling every file. Defaults to false.',
  },
  TokenRequest: {
    '': 'A service account token passed to a CSI driver.',
    audience: 'The audience of the token; "" is the API server\'s own.',
    expirationSeconds: 'How long the token is valid; as for service account token volumes when unset.',
  },
  CSINode: kind('A CSINode lists the CSI drivers installed on a node; its name is the node\'s name.', {
    spec: 'The drivers.',
  }),
  CSINodeSpec: { '': 'The CSI drivers of a node.', drivers: 'The drivers installed on the node.' },
  CSINodeDriver: {
    '': 'A CSI driver installed on a node.',
    name: 'The name of the driver.',
    nodeID: 'The node\'s identifier as the driver knows it.',
    topologyKeys: 'The node label keys the driver uses for topology, such as a zone label.',
    allocatable: 'How many volumes of the driver the node can have.',
  },
  VolumeNodeResources: { '': 'Limits of a CSI driver on a node.', count: 'The most volumes of the driver the node can use; unlimited when unset.' },
  CSIStorageCapacity: kind('A CSIStorageCapacity reports how much storage of a class is available in a part of the cluster, so the scheduler can place pods where their volumes fit.', {
    nodeTopology: 'The nodes that can reach this storage; none when unset. Cannot change.',
    storageClassName: 'The StorageClass the capacity is for. Cannot change.',
    capacity: 'How much storage is available for new volumes; unknown when unset.',
    maximumVolumeSize: 'The largest volume that could be created; the same as capacity when unset.',
  }),
  VolumeAttachment: kind('A VolumeAttachment asks that a volume be attached to, or detached from, a node; the CSI attacher acts on it.', {
    spec: 'The volume and node.',
    status: 'The state of the attachment.',
  }),
  VolumeAttachmentSpec: {
    '': 'What a VolumeAttachment attaches where.',
    attacher: 'The name of the driver that handles the volume.',
    source: 'The volume.',
    nodeName: 'The node to attach to.',
  },
  VolumeAttachmentSource: {
    '': 'The volume of a VolumeAttachment: exactly one of the fields.',
    persistentVolumeName: 'A persistent volume, by name.',
    inlineVolumeSpec: 'The spec of an inline volume of a pod, translated to CSI for migration.',
  },
  VolumeAttachmentStatus: {
    '': 'The state of a VolumeAttachment.',
    attached: 'Whether the volume is attached.',
    attachmentMetadata: 'What the driver returned when attaching, passed on to later steps.',
    attachError: 'The last error while attaching, if any.',
    detachError: 'The last error while detaching, if any.',
  },
  VolumeError: { '': 'An error of an attach or detach.', time: 'When the error happened.', message: 'What went wrong; it may be logged.' },
} satisfies DescriptionTable;
