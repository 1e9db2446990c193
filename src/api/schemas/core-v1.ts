// core/v1 definitions: field names, types, formats, enums, required fields and merge markers as
// the reference API declares them at 1.27.
import type { Schema } from '../schema.js';
import {
  apiRef, arr, atomicList, atomicObj, bool, bytes, int32, int64, intOrString, mapList, mapOf, mergeList, microTime,
  obj, oneOf, patch, quantity, resourceList, str, stringMap, time,
} from './build.js';
import { conditionList, kind, labelSelector, objectMeta } from './meta.js';

const ref = (k: string) => apiRef('core.v1', k);

// ── references and selectors ────────────────────────────────────────────────────────────────────
export const localObjectReference = atomicObj(ref('LocalObjectReference'), { name: str() });
export const secretReference = atomicObj(ref('SecretReference'), { name: str(), namespace: str() });
export const objectReference = atomicObj(ref('ObjectReference'), {
  kind: str(), namespace: str(), name: str(), uid: str(), apiVersion: str(), resourceVersion: str(), fieldPath: str(),
});
export const typedLocalObjectReference = atomicObj(ref('TypedLocalObjectReference'), {
  apiGroup: str(), kind: str(), name: str(),
}, { required: ['kind', 'name'] });
export const typedObjectReference = obj(ref('TypedObjectReference'), {
  apiGroup: str(), kind: str(), name: str(), namespace: str(),
}, { required: ['kind', 'name'] });
export const objectFieldSelector = atomicObj(ref('ObjectFieldSelector'), {
  apiVersion: str(), fieldPath: str(),
}, { required: ['fieldPath'] });
export const resourceFieldSelector = atomicObj(ref('ResourceFieldSelector'), {
  containerName: str(), resource: str(), divisor: quantity,
}, { required: ['resource'] });
const keySelector = (k: string) => atomicObj(ref(k), { key: str(), name: str(), optional: bool() }, { required: ['key'] });
export const configMapKeySelector = keySelector('ConfigMapKeySelector');
export const secretKeySelector = keySelector('SecretKeySelector');

// ── env ─────────────────────────────────────────────────────────────────────────────────────────
export const envVarSource = obj(ref('EnvVarSource'), {
  fieldRef: objectFieldSelector,
  resourceFieldRef: resourceFieldSelector,
  configMapKeyRef: configMapKeySelector,
  secretKeyRef: secretKeySelector,
});
export const envVar = obj(ref('EnvVar'), { name: str(), value: str(), valueFrom: envVarSource }, { required: ['name'] });
export const envFromSource = obj(ref('EnvFromSource'), {
  prefix: str(),
  configMapRef: obj(ref('ConfigMapEnvSource'), { name: str(), optional: bool() }),
  secretRef: obj(ref('SecretEnvSource'), { name: str(), optional: bool() }),
});

// ── probes and lifecycle ────────────────────────────────────────────────────────────────────────
export const execAction = obj(ref('ExecAction'), { command: arr(str()) });
export const httpHeader = obj(ref('HTTPHeader'), { name: str(), value: str() }, { required: ['name', 'value'] });
export const httpGetAction = obj(ref('HTTPGetAction'), {
  path: str(), port: intOrString, host: str(), scheme: oneOf('HTTP', 'HTTPS'), httpHeaders: arr(httpHeader),
}, { required: ['port'] });
export const tcpSocketAction = obj(ref('TCPSocketAction'), { port: intOrString, host: str() }, { required: ['port'] });
export const grpcAction = obj(ref('GRPCAction'), { port: int32(), service: str({ default: '' }) }, { required: ['port'] });
export const probe = obj(ref('Probe'), {
  exec: execAction,
  httpGet: httpGetAction,
  tcpSocket: tcpSocketAction,
  grpc: grpcAction,
  initialDelaySeconds: int32(),
  timeoutSeconds: int32(),
  periodSeconds: int32(),
  successThreshold: int32(),
  failureThreshold: int32(),
  terminationGracePeriodSeconds: int64(),
});
export const lifecycleHandler = obj(ref('LifecycleHandler'), { exec: execAction, httpGet: httpGetAction, tcpSocket: tcpSocketAction });
export const lifecycle = obj(ref('Lifecycle'), { postStart: lifecycleHandler, preStop: lifecycleHandler });

// ── security ────────────────────────────────────────────────────────────────────────────────────
export const seLinuxOptions = obj(ref('SELinuxOptions'), { user: str(), role: str(), type: str(), level: str() });
export const windowsSecurityContextOptions = obj(ref('WindowsSecurityContextOptions'), {
  gmsaCredentialSpecName: str(), gmsaCredentialSpec: str(), runAsUserName: str(), hostProcess: bool(),
});
export const seccompProfile = obj(ref('SeccompProfile'), {
  type: oneOf('Localhost', 'RuntimeDefault', 'Unconfined'), localhostProfile: str(),
}, { required: ['type'] });
export const capabilities = obj(ref('Capabilities'), { add: arr(str()), drop: arr(str()) });
export const securityContext = obj(ref('SecurityContext'), {
  capabilities,
  privileged: bool(),
  seLinuxOptions,
  windowsOptions: windowsSecurityContextOptions,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  readOnlyRootFilesystem: bool(),
  allowPrivilegeEscalation: bool(),
  procMount: str(),
  seccompProfile,
});
export const sysctl = obj(ref('Sysctl'), { name: str(), value: str() }, { required: ['name', 'value'] });
export const podSecurityContext = obj(ref('PodSecurityContext'), {
  seLinuxOptions,
  windowsOptions: windowsSecurityContextOptions,
  runAsUser: int64(),
  runAsGroup: int64(),
  runAsNonRoot: bool(),
  supplementalGroups: arr(int64()),
  fsGroup: int64(),
  sysctls: arr(sysctl),
  fsGroupChangePolicy: oneOf('Always', 'OnRootMismatch'),
  seccompProfile,
});

// ── resources ───────────────────────────────────────────────────────────────────────────────────
export const resourceClaim = obj(ref('ResourceClaim'), { name: str() }, { required: ['name'] });
export const resourceRequirements = obj(ref('ResourceRequirements'), {
  limits: resourceList,
  requests: resourceList,
  claims: mapList(resourceClaim, ['name']),
});
export const containerResizePolicy = obj(ref('ContainerResizePolicy'), {
  resourceName: str(), restartPolicy: str(),
}, { required: ['resourceName', 'restartPolicy'] });

// ── containers ──────────────────────────────────────────────────────────────────────────────────
export const containerPort = obj(ref('ContainerPort'), {
  name: str(),
  hostPort: int32(),
  containerPort: int32(),
  protocol: { ...oneOf('SCTP', 'TCP', 'UDP'), default: 'TCP' },
  hostIP: str(),
}, { required: ['containerPort'] });
export const volumeMount = obj(ref('VolumeMount'), {
  name: str(),
  readOnly: bool(),
  mountPath: str(),
  subPath: str(),
  mountPropagation: oneOf('Bidirectional', 'HostToContainer', 'None'),
  subPathExpr: str(),
}, { required: ['name', 'mountPath'] });
export const volumeDevice = obj(ref('VolumeDevice'), { name: str(), devicePath: str() }, { required: ['name', 'devicePath'] });

const containerFields = (): Record<string, Schema> => ({
  name: str(),
  image: str(),
  command: arr(str()),
  args: arr(str()),
  workingDir: str(),
  ports: mapList(containerPort, ['containerPort', 'protocol'], patch('containerPort')),
  envFrom: arr(envFromSource),
  env: mergeList(envVar, 'name'),
  resources: resourceRequirements,
  resizePolicy: atomicList(containerResizePolicy),
  volumeMounts: mergeList(volumeMount, 'mountPath'),
  volumeDevices: mergeList(volumeDevice, 'devicePath'),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle,
  terminationMessagePath: str(),
  terminationMessagePolicy: oneOf('FallbackToLogsOnError', 'File'),
  imagePullPolicy: oneOf('Always', 'IfNotPresent', 'Never'),
  securityContext,
  stdin: bool(),
  stdinOnce: bool(),
  tty: bool(),
});
export const container = obj(ref('Container'), containerFields(), { required: ['name'] });
export const ephemeralContainer = obj(ref('EphemeralContainer'), {
  ...containerFields(), targetContainerName: str(),
}, { required: ['name'] });

// ── volumes ─────────────────────────────────────────────────────────────────────────────────────
export const keyToPath = obj(ref('KeyToPath'), { key: str(), path: str(), mode: int32() }, { required: ['key', 'path'] });
export const downwardAPIVolumeFile = obj(ref('DownwardAPIVolumeFile'), {
  path: str(), fieldRef: objectFieldSelector, resourceFieldRef: resourceFieldSelector, mode: int32(),
}, { required: ['path'] });
const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

export const persistentVolumeClaimSpec = obj(ref('PersistentVolumeClaimSpec'), {
  accessModes: arr(str()),
  selector: labelSelector,
  resources: resourceRequirements,
  volumeName: str(),
  storageClassName: str(),
  volumeMode: oneOf('Block', 'Filesystem'),
  dataSource: typedLocalObjectReference,
  dataSourceRef: typedObjectReference,
});

// Volume sources shared by Pod volumes and PersistentVolumes
const src = {
  hostPath: obj(ref('HostPathVolumeSource'), { path: str(), type: oneOf(...hostPathTypes) }, { required: ['path'] }),
  gcePersistentDisk: obj(ref('GCEPersistentDiskVolumeSource'), {
    pdName: str(), fsType: str(), partition: int32(), readOnly: bool(),
  }, { required: ['pdName'] }),
  awsElasticBlockStore: obj(ref('AWSElasticBlockStoreVolumeSource'), {
    volumeID: str(), fsType: str(), partition: int32(), readOnly: bool(),
  }, { required: ['volumeID'] }),
  nfs: obj(ref('NFSVolumeSource'), { server: str(), path: str(), readOnly: bool() }, { required: ['server', 'path'] }),
  fc: obj(ref('FCVolumeSource'), {
    targetWWNs: arr(str()), lun: int32(), fsType: str(), readOnly: bool(), wwids: arr(str()),
  }),
  vsphereVolume: obj(ref('VsphereVirtualDiskVolumeSource'), {
    volumePath: str(), fsType: str(), storagePolicyName: str(), storagePolicyID: str(),
  }, { required: ['volumePath'] }),
  quobyte: obj(ref('QuobyteVolumeSource'), {
    registry: str(), volume: str(), readOnly: bool(), user: str(), group: str(), tenant: str(),
  }, { required: ['registry', 'volume'] }),
  azureDisk: obj(ref('AzureDiskVolumeSource'), {
    diskName: str(), diskURI: str(), cachingMode: oneOf('None', 'ReadOnly', 'ReadWrite'), fsType: str(), readOnly: bool(),
    kind: oneOf('Dedicated', 'Managed', 'Shared'),
  }, { required: ['diskName', 'diskURI'] }),
  photonPersistentDisk: obj(ref('PhotonPersistentDiskVolumeSource'), { pdID: str(), fsType: str() }, { required: ['pdID'] }),
  portworxVolume: obj(ref('PortworxVolumeSource'), { volumeID: str(), fsType: str(), readOnly: bool() }, { required: ['volumeID'] }),
  flocker: obj(ref('FlockerVolumeSource'), { datasetName: str(), datasetUUID: str() }),
};

export const volume = obj(ref('Volume'), {
  name: str(),
  ...src,
  emptyDir: obj(ref('EmptyDirVolumeSource'), { medium: str(), sizeLimit: quantity }),
  gitRepo: obj(ref('GitRepoVolumeSource'), { repository: str(), revision: str(), directory: str() }, { required: ['repository'] }),
  secret: obj(ref('SecretVolumeSource'), {
    secretName: str(), items: arr(keyToPath), defaultMode: int32(), optional: bool(),
  }),
  iscsi: obj(ref('ISCSIVolumeSource'), {
    targetPortal: str(), iqn: str(), lun: int32(), iscsiInterface: str(), fsType: str(), readOnly: bool(),
    portals: arr(str()), chapAuthDiscovery: bool(), chapAuthSession: bool(), secretRef: localObjectReference, initiatorName: str(),
  }, { required: ['targetPortal', 'iqn', 'lun'] }),
  glusterfs: obj(ref('GlusterfsVolumeSource'), { endpoints: str(), path: str(), readOnly: bool() }, { required: ['endpoints', 'path'] }),
  persistentVolumeClaim: obj(ref('PersistentVolumeClaimVolumeSource'), { claimName: str(), readOnly: bool() }, { required: ['claimName'] }),
  rbd: obj(ref('RBDVolumeSource'), {
    monitors: arr(str()), image: str(), fsType: str(), pool: str(), user: str(), keyring: str(),
    secretRef: localObjectReference, readOnly: bool(),
  }, { required: ['monitors', 'image'] }),
  flexVolume: obj(ref('FlexVolumeSource'), {
    driver: str(), fsType: str(), secretRef: localObjectReference, readOnly: bool(), options: stringMap(),
  }, { required: ['driver'] }),
  cinder: obj(ref('CinderVolumeSource'), {
    volumeID: str(), fsType: str(), readOnly: bool(), secretRef: localObjectReference,
  }, { required: ['volumeID'] }),
  cephfs: obj(ref('CephFSVolumeSource'), {
    monitors: arr(str()), path: str(), user: str(), secretFile: str(), secretRef: localObjectReference, readOnly: bool(),
  }, { required: ['monitors'] }),
  downwardAPI: obj(ref('DownwardAPIVolumeSource'), { items: arr(downwardAPIVolumeFile), defaultMode: int32() }),
  azureFile: obj(ref('AzureFileVolumeSource'), {
    secretName: str(), shareName: str(), readOnly: bool(),
  }, { required: ['secretName', 'shareName'] }),
  configMap: obj(ref('ConfigMapVolumeSource'), {
    name: str(), items: arr(keyToPath), defaultMode: int32(), optional: bool(),
  }),
  projected: obj(ref('ProjectedVolumeSource'), {
    sources: arr(obj(ref('VolumeProjection'), {
      secret: obj(ref('SecretProjection'), { name: str(), items: arr(keyToPath), optional: bool() }),
      downwardAPI: obj(ref('DownwardAPIProjection'), { items: arr(downwardAPIVolumeFile) }),
      configMap: obj(ref('ConfigMapProjection'), { name: str(), items: arr(keyToPath), optional: bool() }),
      serviceAccountToken: obj(ref('ServiceAccountTokenProjection'), {
        audience: str(), expirationSeconds: int64(), path: str(),
      }, { required: ['path'] }),
    })),
    defaultMode: int32(),
  }),
  scaleIO: obj(ref('ScaleIOVolumeSource'), {
    gateway: str(), system: str(), secretRef: localObjectReference, sslEnabled: bool(), protectionDomain: str(),
    storagePool: str(), storageMode: str(), volumeName: str(), fsType: str(), readOnly: bool(),
  }, { required: ['gateway', 'system', 'secretRef'] }),
  storageos: obj(ref('StorageOSVolumeSource'), {
    volumeName: str(), volumeNamespace: str(), fsType: str(), readOnly: bool(), secretRef: localObjectReference,
  }),
  csi: obj(ref('CSIVolumeSource'), {
    driver: str(), readOnly: bool(), fsType: str(), volumeAttributes: stringMap(), nodePublishSecretRef: localObjectReference,
  }, { required: ['driver'] }),
  ephemeral: obj(ref('EphemeralVolumeSource'), {
    volumeClaimTemplate: obj(ref('PersistentVolumeClaimTemplate'), {
      metadata: objectMeta, spec: persistentVolumeClaimSpec,
    }, { required: ['spec'] }),
  }),
}, { required: ['name'] });

// ── scheduling ──────────────────────────────────────────────────────────────────────────────────
export const nodeSelectorRequirement = obj(ref('NodeSelectorRequirement'), {
  key: str(), operator: oneOf('DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'), values: arr(str()),
}, { required: ['key', 'operator'] });
export const nodeSelectorTerm = atomicObj(ref('NodeSelectorTerm'), {
  matchExpressions: arr(nodeSelectorRequirement), matchFields: arr(nodeSelectorRequirement),
});
export const nodeSelector = atomicObj(ref('NodeSelector'), { nodeSelectorTerms: arr(nodeSelectorTerm) }, { required: ['nodeSelectorTerms'] });
export const podAffinityTerm = obj(ref('PodAffinityTerm'), {
  labelSelector, namespaces: arr(str()), topologyKey: str(), namespaceSelector: labelSelector,
}, { required: ['topologyKey'] });
const weightedPodAffinityTerm = obj(ref('WeightedPodAffinityTerm'), {
  weight: int32(), podAffinityTerm,
}, { required: ['weight', 'podAffinityTerm'] });
const podAffinityFields = {
  requiredDuringSchedulingIgnoredDuringExecution: arr(podAffinityTerm),
  preferredDuringSchedulingIgnoredDuringExecution: arr(weightedPodAffinityTerm),
};
export const affinity = obj(ref('Affinity'), {
  nodeAffinity: obj(ref('NodeAffinity'), {
    requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
    preferredDuringSchedulingIgnoredDuringExecution: arr(obj(ref('PreferredSchedulingTerm'), {
      weight: int32(), preference: nodeSelectorTerm,
    }, { required: ['weight', 'preference'] })),
  }),
  podAffinity: obj(ref('PodAffinity'), podAffinityFields),
  podAntiAffinity: obj(ref('PodAntiAffinity'), podAffinityFields),
});
const taintEffect = oneOf('NoExecute', 'NoSchedule', 'PreferNoSchedule');
export const toleration = obj(ref('Toleration'), {
  key: str(), operator: oneOf('Equal', 'Exists'), value: str(), effect: taintEffect, tolerationSeconds: int64(),
});
export const taint = obj(ref('Taint'), { key: str(), value: str(), effect: taintEffect, timeAdded: time }, { required: ['key', 'effect'] });
export const topologySpreadConstraint = obj(ref('TopologySpreadConstraint'), {
  maxSkew: int32(),
  topologyKey: str(),
  whenUnsatisfiable: oneOf('DoNotSchedule', 'ScheduleAnyway'),
  labelSelector,
  minDomains: int32(),
  nodeAffinityPolicy: oneOf('Honor', 'Ignore'),
  nodeTaintsPolicy: oneOf('Honor', 'Ignore'),
  matchLabelKeys: atomicList(str()),
}, { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] });

// ── pods ────────────────────────────────────────────────────────────────────────────────────────
export const podSpec = obj(ref('PodSpec'), {
  volumes: mergeList(volume, 'name', 'merge,retainKeys'),
  initContainers: mergeList(container, 'name'),
  containers: mergeList(container, 'name'),
  ephemeralContainers: mergeList(ephemeralContainer, 'name'),
  restartPolicy: oneOf('Always', 'Never', 'OnFailure'),
  terminationGracePeriodSeconds: int64(),
  activeDeadlineSeconds: int64(),
  dnsPolicy: oneOf('ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'),
  nodeSelector: stringMap({ 'x-kubernetes-map-type': 'atomic' }),
  serviceAccountName: str(),
  serviceAccount: str(),
  automountServiceAccountToken: bool(),
  nodeName: str(),
  hostNetwork: bool(),
  hostPID: bool(),
  hostIPC: bool(),
  shareProcessNamespace: bool(),
  securityContext: podSecurityContext,
  imagePullSecrets: mergeList(localObjectReference, 'name'),
  hostname: str(),
  subdomain: str(),
  affinity,
  schedulerName: str(),
  tolerations: arr(toleration),
  hostAliases: mergeList(obj(ref('HostAlias'), { ip: str(), hostnames: arr(str()) }), 'ip'),
  priorityClassName: str(),
  priority: int32(),
  dnsConfig: obj(ref('PodDNSConfig'), {
    nameservers: arr(str()),
    searches: arr(str()),
    options: arr(obj(ref('PodDNSConfigOption'), { name: str(), value: str() })),
  }),
  readinessGates: arr(obj(ref('PodReadinessGate'), { conditionType: str() }, { required: ['conditionType'] })),
  runtimeClassName: str(),
  enableServiceLinks: bool(),
  preemptionPolicy: oneOf('Never', 'PreemptLowerPriority'),
  overhead: resourceList,
  topologySpreadConstraints: mapList(topologySpreadConstraint, ['topologyKey', 'whenUnsatisfiable'], patch('topologyKey')),
  setHostnameAsFQDN: bool(),
  os: obj(ref('PodOS'), { name: str() }, { required: ['name'] }),
  hostUsers: bool(),
  schedulingGates: mapList(obj(ref('PodSchedulingGate'), { name: str() }, { required: ['name'] }), ['name'], patch('name')),
  resourceClaims: mapList(obj(ref('PodResourceClaim'), {
    name: str(),
    source: obj(ref('ClaimSource'), { resourceClaimName: str(), resourceClaimTemplateName: str() }),
  }, { required: ['name'] }), ['name'], patch('name', 'merge,retainKeys')),
}, { required: ['containers'] });

const containerState = obj(ref('ContainerState'), {
  waiting: obj(ref('ContainerStateWaiting'), { reason: str(), message: str() }),
  running: obj(ref('ContainerStateRunning'), { startedAt: time }),
  terminated: obj(ref('ContainerStateTerminated'), {
    exitCode: int32(), signal: int32(), reason: str(), message: str(), startedAt: time, finishedAt: time, containerID: str(),
  }, { required: ['exitCode'] }),
});
export const containerStatus = obj(ref('ContainerStatus'), {
  name: str(),
  state: containerState,
  lastState: containerState,
  ready: bool(),
  restartCount: int32(),
  image: str(),
  imageID: str(),
  containerID: str(),
  started: bool(),
  allocatedResources: resourceList,
  resources: resourceRequirements,
}, { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] });

export const podStatus = obj(ref('PodStatus'), {
  phase: oneOf('Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'),
  conditions: mergeList(obj(ref('PodCondition'), {
    type: str(), status: str(), lastProbeTime: time, lastTransitionTime: time, reason: str(), message: str(),
  }, { required: ['type', 'status'] }), 'type'),
  message: str(),
  reason: str(),
  nominatedNodeName: str(),
  hostIP: str(),
  podIP: str(),
  podIPs: mergeList(obj(ref('PodIP'), { ip: str() }), 'ip'),
  startTime: time,
  initContainerStatuses: arr(containerStatus),
  containerStatuses: arr(containerStatus),
  qosClass: oneOf('BestEffort', 'Burstable', 'Guaranteed'),
  ephemeralContainerStatuses: arr(containerStatus),
  resize: str(),
});

export const pod = kind(ref('Pod'), { spec: podSpec, status: podStatus });
export const podTemplateSpec = obj(ref('PodTemplateSpec'), { metadata: objectMeta, spec: podSpec });
export const podTemplate = kind(ref('PodTemplate'), { template: podTemplateSpec });

// ── services and endpoints ──────────────────────────────────────────────────────────────────────
const protocol = oneOf('SCTP', 'TCP', 'UDP');
export const servicePort = obj(ref('ServicePort'), {
  name: str(),
  protocol: { ...protocol, default: 'TCP' },
  appProtocol: str(),
  port: int32(),
  targetPort: intOrString,
  nodePort: int32(),
}, { required: ['port'] });
export const loadBalancerStatus = obj(ref('LoadBalancerStatus'), {
  ingress: arr(obj(ref('LoadBalancerIngress'), {
    ip: str(),
    hostname: str(),
    ports: atomicList(obj(ref('PortStatus'), { port: int32(), protocol, error: str() }, { required: ['port', 'protocol'] })),
  })),
});
export const service = kind(ref('Service'), {
  spec: obj(ref('ServiceSpec'), {
    ports: mapList(servicePort, ['port', 'protocol'], patch('port')),
    selector: stringMap({ 'x-kubernetes-map-type': 'atomic' }),
    clusterIP: str(),
    clusterIPs: atomicList(str()),
    type: oneOf('ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'),
    externalIPs: arr(str()),
    sessionAffinity: oneOf('ClientIP', 'None'),
    loadBalancerIP: str(),
    loadBalancerSourceRanges: arr(str()),
    externalName: str(),
    externalTrafficPolicy: oneOf('Cluster', 'Local'),
    healthCheckNodePort: int32(),
    publishNotReadyAddresses: bool(),
    sessionAffinityConfig: obj(ref('SessionAffinityConfig'), {
      clientIP: obj(ref('ClientIPConfig'), { timeoutSeconds: int32() }),
    }),
    ipFamilies: atomicList(oneOf('IPv4', 'IPv6')),
    ipFamilyPolicy: oneOf('PreferDualStack', 'RequireDualStack', 'SingleStack'),
    allocateLoadBalancerNodePorts: bool(),
    loadBalancerClass: str(),
    internalTrafficPolicy: oneOf('Cluster', 'Local'),
  }),
  status: obj(ref('ServiceStatus'), { loadBalancer: loadBalancerStatus, conditions: conditionList }),
});

const endpointAddress = atomicObj(ref('EndpointAddress'), {
  ip: str(), hostname: str(), nodeName: str(), targetRef: objectReference,
}, { required: ['ip'] });
export const endpoints = kind(ref('Endpoints'), {
  subsets: arr(obj(ref('EndpointSubset'), {
    addresses: arr(endpointAddress),
    notReadyAddresses: arr(endpointAddress),
    ports: arr(atomicObj(ref('EndpointPort'), {
      name: str(), port: int32(), protocol, appProtocol: str(),
    }, { required: ['port'] })),
  })),
});

// ── configuration ───────────────────────────────────────────────────────────────────────────────
export const configMap = kind(ref('ConfigMap'), { immutable: bool(), data: stringMap(), binaryData: mapOf(bytes()) });
export const secret = kind(ref('Secret'), {
  immutable: bool(), data: mapOf(bytes()), stringData: stringMap(), type: str(),
});
export const serviceAccount = kind(ref('ServiceAccount'), {
  secrets: mergeList(objectReference, 'name'),
  imagePullSecrets: arr(localObjectReference),
  automountServiceAccountToken: bool(),
});

// ── namespaces and nodes ────────────────────────────────────────────────────────────────────────
export const namespace = kind(ref('Namespace'), {
  spec: obj(ref('NamespaceSpec'), { finalizers: arr(str()) }),
  status: obj(ref('NamespaceStatus'), {
    phase: oneOf('Active', 'Terminating'),
    conditions: mergeList(obj(ref('NamespaceCondition'), {
      type: str(), status: str(), lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), 'type'),
  }),
});

const configMapNodeConfigSource = obj(ref('ConfigMapNodeConfigSource'), {
  namespace: str(), name: str(), uid: str(), resourceVersion: str(), kubeletConfigKey: str(),
}, { required: ['namespace', 'name', 'kubeletConfigKey'] });
const nodeConfigSource = obj(ref('NodeConfigSource'), { configMap: configMapNodeConfigSource });
export const node = kind(ref('Node'), {
  spec: obj(ref('NodeSpec'), {
    podCIDR: str(),
    podCIDRs: arr(str(), patch(undefined)),
    providerID: str(),
    unschedulable: bool(),
    taints: arr(taint),
    configSource: nodeConfigSource,
    externalID: str(),
  }),
  status: obj(ref('NodeStatus'), {
    capacity: resourceList,
    allocatable: resourceList,
    phase: oneOf('Pending', 'Running', 'Terminated'),
    conditions: mergeList(obj(ref('NodeCondition'), {
      type: str(), status: str(), lastHeartbeatTime: time, lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), 'type'),
    addresses: mergeList(obj(ref('NodeAddress'), { type: str(), address: str() }, { required: ['type', 'address'] }), 'type'),
    daemonEndpoints: obj(ref('NodeDaemonEndpoints'), {
      kubeletEndpoint: obj(ref('DaemonEndpoint'), { Port: int32() }, { required: ['Port'] }),
    }),
    nodeInfo: obj(ref('NodeSystemInfo'), {
      machineID: str(), systemUUID: str(), bootID: str(), kernelVersion: str(), osImage: str(),
      containerRuntimeVersion: str(), kubeletVersion: str(), kubeProxyVersion: str(), operatingSystem: str(), architecture: str(),
    }, {
      required: ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion',
        'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'],
    }),
    images: arr(obj(ref('ContainerImage'), { names: arr(str()), sizeBytes: int64() })),
    volumesInUse: arr(str()),
    volumesAttached: arr(obj(ref('AttachedVolume'), { name: str(), devicePath: str() }, { required: ['name', 'devicePath'] })),
    config: obj(ref('NodeConfigStatus'), {
      assigned: nodeConfigSource, active: nodeConfigSource, lastKnownGood: nodeConfigSource, error: str(),
    }),
  }),
});

// ── events ──────────────────────────────────────────────────────────────────────────────────────
export const eventSource = obj(ref('EventSource'), { component: str(), host: str() });
export const event = kind(ref('Event'), {
  involvedObject: objectReference,
  reason: str(),
  message: str(),
  source: eventSource,
  firstTimestamp: time,
  lastTimestamp: time,
  count: int32(),
  type: str(),
  eventTime: microTime,
  series: obj(ref('EventSeries'), { count: int32(), lastObservedTime: microTime }),
  action: str(),
  related: objectReference,
  reportingComponent: str(),
  reportingInstance: str(),
}, { required: ['metadata', 'involvedObject'] });

// ── policy objects ──────────────────────────────────────────────────────────────────────────────
export const limitRange = kind(ref('LimitRange'), {
  spec: obj(ref('LimitRangeSpec'), {
    limits: arr(obj(ref('LimitRangeItem'), {
      type: str(), max: resourceList, min: resourceList, default: resourceList, defaultRequest: resourceList,
      maxLimitRequestRatio: resourceList,
    }, { required: ['type'] })),
  }, { required: ['limits'] }),
});

const quotaScopes = ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating'];
export const resourceQuota = kind(ref('ResourceQuota'), {
  spec: obj(ref('ResourceQuotaSpec'), {
    hard: resourceList,
    scopes: arr(oneOf(...quotaScopes)),
    scopeSelector: atomicObj(ref('ScopeSelector'), {
      matchExpressions: arr(obj(ref('ScopedResourceSelectorRequirement'), {
        scopeName: oneOf(...quotaScopes), operator: oneOf('DoesNotExist', 'Exists', 'In', 'NotIn'), values: arr(str()),
      }, { required: ['scopeName', 'operator'] })),
    }),
  }),
  status: obj(ref('ResourceQuotaStatus'), { hard: resourceList, used: resourceList }),
});

// ── storage ─────────────────────────────────────────────────────────────────────────────────────
export const persistentVolumeClaim = kind(ref('PersistentVolumeClaim'), {
  spec: persistentVolumeClaimSpec,
  status: obj(ref('PersistentVolumeClaimStatus'), {
    phase: oneOf('Bound', 'Lost', 'Pending'),
    accessModes: arr(str()),
    capacity: resourceList,
    conditions: mergeList(obj(ref('PersistentVolumeClaimCondition'), {
      type: str(), status: str(), lastProbeTime: time, lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), 'type'),
    allocatedResources: resourceList,
    resizeStatus: str(),
  }),
});

export const persistentVolume = kind(ref('PersistentVolume'), {
  spec: obj(ref('PersistentVolumeSpec'), {
    capacity: resourceList,
    ...src,
    glusterfs: obj(ref('GlusterfsPersistentVolumeSource'), {
      endpoints: str(), path: str(), readOnly: bool(), endpointsNamespace: str(),
    }, { required: ['endpoints', 'path'] }),
    rbd: obj(ref('RBDPersistentVolumeSource'), {
      monitors: arr(str()), image: str(), fsType: str(), pool: str(), user: str(), keyring: str(),
      secretRef: secretReference, readOnly: bool(),
    }, { required: ['monitors', 'image'] }),
    iscsi: obj(ref('ISCSIPersistentVolumeSource'), {
      targetPortal: str(), iqn: str(), lun: int32(), iscsiInterface: str(), fsType: str(), readOnly: bool(),
      portals: arr(str()), chapAuthDiscovery: bool(), chapAuthSession: bool(), secretRef: secretReference, initiatorName: str(),
    }, { required: ['targetPortal', 'iqn', 'lun'] }),
    cinder: obj(ref('CinderPersistentVolumeSource'), {
      volumeID: str(), fsType: str(), readOnly: bool(), secretRef: secretReference,
    }, { required: ['volumeID'] }),
    cephfs: obj(ref('CephFSPersistentVolumeSource'), {
      monitors: arr(str()), path: str(), user: str(), secretFile: str(), secretRef: secretReference, readOnly: bool(),
    }, { required: ['monitors'] }),
    flexVolume: obj(ref('FlexPersistentVolumeSource'), {
      driver: str(), fsType: str(), secretRef: secretReference, readOnly: bool(), options: stringMap(),
    }, { required: ['driver'] }),
    azureFile: obj(ref('AzureFilePersistentVolumeSource'), {
      secretName: str(), shareName: str(), readOnly: bool(), secretNamespace: str(),
    }, { required: ['secretName', 'shareName'] }),
    scaleIO: obj(ref('ScaleIOPersistentVolumeSource'), {
      gateway: str(), system: str(), secretRef: secretReference, sslEnabled: bool(), protectionDomain: str(),
      storagePool: str(), storageMode: str(), volumeName: str(), fsType: str(), readOnly: bool(),
    }, { required: ['gateway', 'system', 'secretRef'] }),
    local: obj(ref('LocalVolumeSource'), { path: str(), fsType: str() }, { required: ['path'] }),
    storageos: obj(ref('StorageOSPersistentVolumeSource'), {
      volumeName: str(), volumeNamespace: str(), fsType: str(), readOnly: bool(), secretRef: objectReference,
    }),
    csi: obj(ref('CSIPersistentVolumeSource'), {
      driver: str(), volumeHandle: str(), readOnly: bool(), fsType: str(), volumeAttributes: stringMap(),
      controllerPublishSecretRef: secretReference, nodeStageSecretRef: secretReference,
      nodePublishSecretRef: secretReference, controllerExpandSecretRef: secretReference, nodeExpandSecretRef: secretReference,
    }, { required: ['driver', 'volumeHandle'] }),
    accessModes: arr(str()),
    claimRef: objectReference,
    persistentVolumeReclaimPolicy: oneOf('Delete', 'Recycle', 'Retain'),
    storageClassName: str(),
    mountOptions: arr(str()),
    volumeMode: oneOf('Block', 'Filesystem'),
    nodeAffinity: obj(ref('VolumeNodeAffinity'), { required: nodeSelector }),
  }),
  status: obj(ref('PersistentVolumeStatus'), {
    phase: oneOf('Available', 'Bound', 'Failed', 'Pending', 'Released'),
    message: str(),
    reason: str(),
  }),
});

// ── replication controllers and the rest ────────────────────────────────────────────────────────
export const replicationController = kind(ref('ReplicationController'), {
  spec: obj(ref('ReplicationControllerSpec'), {
    replicas: int32(),
    minReadySeconds: int32(),
    selector: stringMap({ 'x-kubernetes-map-type': 'atomic' }),
    template: podTemplateSpec,
  }),
  status: obj(ref('ReplicationControllerStatus'), {
    replicas: int32(),
    fullyLabeledReplicas: int32(),
    readyReplicas: int32(),
    availableReplicas: int32(),
    observedGeneration: int64(),
    conditions: mergeList(obj(ref('ReplicationControllerCondition'), {
      type: str(), status: str(), lastTransitionTime: time, reason: str(), message: str(),
    }, { required: ['type', 'status'] }), 'type'),
  }, { required: ['replicas'] }),
});

export const componentStatus = kind(ref('ComponentStatus'), {
  conditions: mergeList(obj(ref('ComponentCondition'), {
    type: str(), status: str(), message: str(), error: str(),
  }, { required: ['type', 'status'] }), 'type'),
});

export const binding = kind(ref('Binding'), { target: objectReference }, { required: ['target'] });

// Kinds served at subresources
export const tokenRequest = kind(apiRef('authentication.v1', 'TokenRequest'), {
  spec: obj(apiRef('authentication.v1', 'TokenRequestSpec'), {
    audiences: arr(str()),
    expirationSeconds: int64(),
    boundObjectRef: obj(apiRef('authentication.v1', 'BoundObjectReference'), {
      kind: str(), apiVersion: str(), name: str(), uid: str(),
    }),
  }, { required: ['audiences'] }),
  status: obj(apiRef('authentication.v1', 'TokenRequestStatus'), {
    token: str(), expirationTimestamp: time,
  }, { required: ['token', 'expirationTimestamp'] }),
}, { required: ['spec'] });
