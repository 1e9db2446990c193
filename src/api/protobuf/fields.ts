// Protobuf field numbers of the built-in objects, from the reference's generated.proto files, keyed
// by definition name. Each field reads `<number> <shape>`, the field keyed by its JSON name:
//   string | bool | int32 | int64 | double | bytes       scalars
//   Time | MicroTime | Quantity | IntOrString | RawExtension | FieldsV1 | ExtraValue   special types
//   JSON (any JSON value, as raw = 1) | JSONSchemaPropsOrArray | JSONSchemaPropsOrBool |
//   JSONSchemaPropsOrStringArray   (unions whose JSON form is the member that is set)
//   core.Container, meta.ObjectMeta, ...                  a message (the prefixes are expanded below)
//   []X  repeated X;  map[X]  a map from string to X;  inline X  an embedded struct whose fields the
//   JSON form lifts into the parent
// A leading `*` marks a field whose zero value the reference's JSON keeps (a Go pointer, or a field
// without omitempty); unmarked scalars equal to zero are left out, as the reference's JSON does. A starred
// Time is a struct the reference always writes: null in JSON while unset, an empty message on the wire.
// Message numbers never change between releases; the table follows 1.27 (with the fields 1.27 adds).

export const definitionPrefixes: Record<string, string> = {
  meta: 'io.k8s.apimachinery.pkg.apis.meta.v1.',
  metaBeta: 'io.k8s.apimachinery.pkg.apis.meta.v1beta1.',
  core: 'io.k8s.api.core.v1.',
  apps: 'io.k8s.api.apps.v1.',
  batch: 'io.k8s.api.batch.v1.',
  rbac: 'io.k8s.api.rbac.v1.',
  net: 'io.k8s.api.networking.v1.',
  policy: 'io.k8s.api.policy.v1.',
  sched: 'io.k8s.api.scheduling.v1.',
  authz: 'io.k8s.api.authorization.v1.',
  authn: 'io.k8s.api.authentication.v1.',
  authnBeta: 'io.k8s.api.authentication.v1beta1.',
  authnAlpha: 'io.k8s.api.authentication.v1alpha1.',
  certs: 'io.k8s.api.certificates.v1.',
  hpa1: 'io.k8s.api.autoscaling.v1.',
  hpa: 'io.k8s.api.autoscaling.v2.',
  disc: 'io.k8s.api.discovery.v1.',
  coord: 'io.k8s.api.coordination.v1.',
  storage: 'io.k8s.api.storage.v1.',
  events: 'io.k8s.api.events.v1.',
  node: 'io.k8s.api.node.v1.',
  admission: 'io.k8s.api.admissionregistration.v1.',
  fc3: 'io.k8s.api.flowcontrol.v1beta3.',
  fc2: 'io.k8s.api.flowcontrol.v1beta2.',
  apiext: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.',
  apireg: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.',
};

type Fields = Record<string, string>;

const objectMetaFields: Fields = { metadata: '1 meta.ObjectMeta' };

const containerFields: Fields = {
  name: '1 *string', image: '2 string', command: '3 []string', args: '4 []string', workingDir: '5 string',
  ports: '6 []core.ContainerPort', envFrom: '19 []core.EnvFromSource', env: '7 []core.EnvVar',
  resources: '8 core.ResourceRequirements', resizePolicy: '23 []core.ContainerResizePolicy',
  volumeMounts: '9 []core.VolumeMount', volumeDevices: '21 []core.VolumeDevice',
  livenessProbe: '10 core.Probe', readinessProbe: '11 core.Probe', startupProbe: '22 core.Probe',
  lifecycle: '12 core.Lifecycle', terminationMessagePath: '13 string', terminationMessagePolicy: '20 string',
  imagePullPolicy: '14 string', securityContext: '15 core.SecurityContext',
  stdin: '16 bool', stdinOnce: '17 bool', tty: '18 bool',
};

const keySelector: Fields = { localObjectReference: '1 inline core.LocalObjectReference', key: '2 *string', optional: '3 *bool' };
const envSource: Fields = { localObjectReference: '1 inline core.LocalObjectReference', optional: '2 *bool' };
const projection: Fields = { localObjectReference: '1 inline core.LocalObjectReference', items: '2 []core.KeyToPath', optional: '4 *bool' };
const handler: Fields = { exec: '1 core.ExecAction', httpGet: '2 core.HTTPGetAction', tcpSocket: '3 core.TCPSocketAction' };
const affinityTerms = (term: string): Fields => ({
  requiredDuringSchedulingIgnoredDuringExecution: '1 []core.PodAffinityTerm',
  preferredDuringSchedulingIgnoredDuringExecution: `2 []${term}`,
});
const roleBinding: Fields = { ...objectMetaFields, subjects: '2 []rbac.Subject', roleRef: '3 rbac.RoleRef' };
const selfSubjectReview = (status: string): Fields => ({ ...objectMetaFields, status: `2 ${status}` });
const extraUser: Fields = { username: '1 string', uid: '2 string', groups: '3 []string', extra: '4 map[ExtraValue]' };
const webhook = (numbers: { objectSelector: number; matchConditions: number }): Fields => ({
  name: '1 *string', clientConfig: '2 admission.WebhookClientConfig', rules: '3 []admission.RuleWithOperations',
  failurePolicy: '4 *string', matchPolicy: '9 *string', namespaceSelector: '5 meta.LabelSelector',
  objectSelector: `${numbers.objectSelector} meta.LabelSelector`, sideEffects: '6 *string', timeoutSeconds: '7 *int32',
  admissionReviewVersions: '8 []string', matchConditions: `${numbers.matchConditions} []admission.MatchCondition`,
});
/** flowcontrol v1beta3 and v1beta2 differ only in the name of the limited level's shares (field 1) */
const flowcontrol = (v: 'fc3' | 'fc2', shares: string): Record<string, Fields> => {
  // unlike most conditions, both keep type and status out of the JSON when empty
  const conditionFields: Fields = { type: '1 string', status: '2 string', lastTransitionTime: '3 Time', reason: '4 string', message: '5 string' };
  return {
    [`${v}.FlowSchema`]: { ...objectMetaFields, spec: `2 ${v}.FlowSchemaSpec`, status: `3 ${v}.FlowSchemaStatus` },
    [`${v}.FlowSchemaSpec`]: {
      priorityLevelConfiguration: `1 ${v}.PriorityLevelConfigurationReference`, matchingPrecedence: '2 int32',
      distinguisherMethod: `3 ${v}.FlowDistinguisherMethod`, rules: `4 []${v}.PolicyRulesWithSubjects`,
    },
    [`${v}.PriorityLevelConfigurationReference`]: { name: '1 *string' },
    [`${v}.FlowDistinguisherMethod`]: { type: '1 *string' },
    [`${v}.PolicyRulesWithSubjects`]: {
      subjects: `1 []${v}.Subject`, resourceRules: `2 []${v}.ResourcePolicyRule`, nonResourceRules: `3 []${v}.NonResourcePolicyRule`,
    },
    [`${v}.Subject`]: { kind: '1 *string', user: `2 ${v}.UserSubject`, group: `3 ${v}.GroupSubject`, serviceAccount: `4 ${v}.ServiceAccountSubject` },
    [`${v}.UserSubject`]: { name: '1 *string' },
    [`${v}.GroupSubject`]: { name: '1 *string' },
    [`${v}.ServiceAccountSubject`]: { namespace: '1 *string', name: '2 *string' },
    [`${v}.ResourcePolicyRule`]: {
      verbs: '1 []string', apiGroups: '2 []string', resources: '3 []string', clusterScope: '4 bool', namespaces: '5 []string',
    },
    [`${v}.NonResourcePolicyRule`]: { verbs: '1 []string', nonResourceURLs: '6 []string' },
    [`${v}.FlowSchemaStatus`]: { conditions: `1 []${v}.FlowSchemaCondition` },
    [`${v}.FlowSchemaCondition`]: conditionFields,
    [`${v}.PriorityLevelConfiguration`]: {
      ...objectMetaFields, spec: `2 ${v}.PriorityLevelConfigurationSpec`, status: `3 ${v}.PriorityLevelConfigurationStatus`,
    },
    // exempt = 3 comes with 1.28
    [`${v}.PriorityLevelConfigurationSpec`]: { type: '1 *string', limited: `2 ${v}.LimitedPriorityLevelConfiguration` },
    [`${v}.LimitedPriorityLevelConfiguration`]: {
      [shares]: '1 *int32', limitResponse: `2 ${v}.LimitResponse`, lendablePercent: '3 *int32', borrowingLimitPercent: '4 *int32',
    },
    [`${v}.LimitResponse`]: { type: '1 *string', queuing: `2 ${v}.QueuingConfiguration` },
    [`${v}.QueuingConfiguration`]: { queues: '1 *int32', handSize: '2 *int32', queueLengthLimit: '3 *int32' },
    [`${v}.PriorityLevelConfigurationStatus`]: { conditions: `1 []${v}.PriorityLevelConfigurationCondition` },
    [`${v}.PriorityLevelConfigurationCondition`]: conditionFields,
  };
};
const condition = (numbers: {
  lastProbeTime?: number; lastHeartbeatTime?: number; lastUpdateTime?: number; lastTransitionTime: number; reason: number; message: number;
}): Fields => ({
  type: '1 *string', status: '2 *string',
  ...(numbers.lastProbeTime ? { lastProbeTime: `${numbers.lastProbeTime} Time` } : {}),
  ...(numbers.lastHeartbeatTime ? { lastHeartbeatTime: `${numbers.lastHeartbeatTime} Time` } : {}),
  ...(numbers.lastUpdateTime ? { lastUpdateTime: `${numbers.lastUpdateTime} Time` } : {}),
  lastTransitionTime: `${numbers.lastTransitionTime} Time`, reason: `${numbers.reason} string`, message: `${numbers.message} string`,
});

/** messages by short definition name (prefix.Kind) */
const messages: Record<string, Fields> = {
  // ── apimachinery meta/v1 ──────────────────────────────────────────────────────────────────────
  'meta.ObjectMeta': {
    name: '1 string', generateName: '2 string', namespace: '3 string', selfLink: '4 string', uid: '5 string',
    resourceVersion: '6 string', generation: '7 int64', creationTimestamp: '8 *Time', deletionTimestamp: '9 Time',
    deletionGracePeriodSeconds: '10 *int64', labels: '11 map[string]', annotations: '12 map[string]',
    ownerReferences: '13 []meta.OwnerReference', finalizers: '14 []string', managedFields: '17 []meta.ManagedFieldsEntry',
  },
  'meta.ListMeta': { selfLink: '1 string', resourceVersion: '2 string', continue: '3 string', remainingItemCount: '4 *int64' },
  'meta.OwnerReference': {
    apiVersion: '5 *string', kind: '1 *string', name: '3 *string', uid: '4 *string', controller: '6 *bool', blockOwnerDeletion: '7 *bool',
  },
  'meta.ManagedFieldsEntry': {
    manager: '1 string', operation: '2 string', apiVersion: '3 string', time: '4 Time', fieldsType: '6 string',
    fieldsV1: '7 FieldsV1', subresource: '8 string',
  },
  'meta.LabelSelector': { matchLabels: '1 map[string]', matchExpressions: '2 []meta.LabelSelectorRequirement' },
  'meta.LabelSelectorRequirement': { key: '1 *string', operator: '2 *string', values: '3 []string' },
  'meta.Condition': {
    type: '1 *string', status: '2 *string', observedGeneration: '3 int64', lastTransitionTime: '4 Time', reason: '5 *string', message: '6 *string',
  },
  'meta.Status': {
    metadata: '1 meta.ListMeta', status: '2 string', message: '3 string', reason: '4 string', details: '5 meta.StatusDetails', code: '6 int32',
  },
  'meta.StatusDetails': {
    name: '1 string', group: '2 string', kind: '3 string', uid: '6 string', causes: '4 []meta.StatusCause', retryAfterSeconds: '5 int32',
  },
  'meta.StatusCause': { reason: '1 string', message: '2 string', field: '3 string' },
  'meta.DeleteOptions': {
    gracePeriodSeconds: '1 *int64', preconditions: '2 meta.Preconditions', orphanDependents: '3 *bool',
    propagationPolicy: '4 *string', dryRun: '5 []string',
  },
  'meta.Preconditions': { uid: '1 *string', resourceVersion: '2 *string' },
  // discovery documents (/api, /apis, a group, a group version); an APIResource's verbs (a Verbs message, repeated
  // string items = 1) have the wire shape of an ExtraValue
  'meta.APIVersions': { versions: '1 []string', serverAddressByClientCIDRs: '2 []meta.ServerAddressByClientCIDR' },
  'meta.ServerAddressByClientCIDR': { clientCIDR: '1 string', serverAddress: '2 string' },
  'meta.APIGroupList': { groups: '1 []meta.APIGroup' },
  'meta.APIGroup': {
    name: '1 string', versions: '2 []meta.GroupVersionForDiscovery', preferredVersion: '3 meta.GroupVersionForDiscovery',
    serverAddressByClientCIDRs: '4 []meta.ServerAddressByClientCIDR',
  },
  'meta.GroupVersionForDiscovery': { groupVersion: '1 string', version: '2 string' },
  'meta.APIResourceList': { groupVersion: '1 string', resources: '2 []meta.APIResource' },
  'meta.APIResource': {
    name: '1 string', singularName: '6 string', namespaced: '2 bool', group: '8 string', version: '9 string', kind: '3 string',
    verbs: '4 ExtraValue', shortNames: '5 []string', categories: '7 []string', storageVersionHash: '10 string',
  },
  // what metadata clients ask for (as=PartialObjectMetadata[List]); v1beta1's list numbers its two fields the other way
  'meta.PartialObjectMetadata': objectMetaFields,
  'meta.PartialObjectMetadataList': { metadata: '1 meta.ListMeta', items: '2 []meta.PartialObjectMetadata' },
  'metaBeta.PartialObjectMetadataList': { metadata: '2 meta.ListMeta', items: '1 []meta.PartialObjectMetadata' },

  // ── core/v1 ──────────────────────────────────────────────────────────────────────────────────
  'core.ConfigMap': { ...objectMetaFields, immutable: '4 *bool', data: '2 map[string]', binaryData: '3 map[bytes]' },
  'core.Secret': { ...objectMetaFields, immutable: '5 *bool', data: '2 map[bytes]', stringData: '4 map[string]', type: '3 string' },
  'core.Namespace': { ...objectMetaFields, spec: '2 core.NamespaceSpec', status: '3 core.NamespaceStatus' },
  'core.NamespaceSpec': { finalizers: '1 []string' },
  'core.NamespaceStatus': { phase: '1 string', conditions: '2 []core.NamespaceCondition' },
  'core.NamespaceCondition': condition({ lastTransitionTime: 4, reason: 5, message: 6 }),
  'core.ServiceAccount': {
    ...objectMetaFields, secrets: '2 []core.ObjectReference', imagePullSecrets: '3 []core.LocalObjectReference',
    automountServiceAccountToken: '4 *bool',
  },
  'core.ObjectReference': {
    kind: '1 string', namespace: '2 string', name: '3 string', uid: '4 string', apiVersion: '5 string',
    resourceVersion: '6 string', fieldPath: '7 string',
  },
  'core.LocalObjectReference': { name: '1 string' },
  'core.TypedLocalObjectReference': { apiGroup: '1 *string', kind: '2 *string', name: '3 *string' },
  'core.TypedObjectReference': { apiGroup: '1 *string', kind: '2 *string', name: '3 *string', namespace: '4 *string' },
  'core.Event': {
    ...objectMetaFields, involvedObject: '2 core.ObjectReference', reason: '3 string', message: '4 string',
    source: '5 core.EventSource', firstTimestamp: '6 *Time', lastTimestamp: '7 *Time', count: '8 int32', type: '9 string',
    eventTime: '10 *MicroTime', series: '11 core.EventSeries', action: '12 string', related: '13 core.ObjectReference',
    reportingComponent: '14 *string', reportingInstance: '15 *string',
  },
  'core.EventSource': { component: '1 string', host: '2 string' },
  'core.EventSeries': { count: '1 int32', lastObservedTime: '2 MicroTime' },

  'core.Pod': { ...objectMetaFields, spec: '2 core.PodSpec', status: '3 core.PodStatus' },
  'core.PodTemplateSpec': { ...objectMetaFields, spec: '2 core.PodSpec' },
  'core.PodSpec': {
    volumes: '1 []core.Volume', initContainers: '20 []core.Container', containers: '2 []core.Container',
    ephemeralContainers: '34 []core.EphemeralContainer', restartPolicy: '3 string', terminationGracePeriodSeconds: '4 *int64',
    activeDeadlineSeconds: '5 *int64', dnsPolicy: '6 string', nodeSelector: '7 map[string]', serviceAccountName: '8 string',
    serviceAccount: '9 string', automountServiceAccountToken: '21 *bool', nodeName: '10 string', hostNetwork: '11 bool',
    hostPID: '12 bool', hostIPC: '13 bool', shareProcessNamespace: '27 *bool', securityContext: '14 core.PodSecurityContext',
    imagePullSecrets: '15 []core.LocalObjectReference', hostname: '16 string', subdomain: '17 string', affinity: '18 core.Affinity',
    schedulerName: '19 string', tolerations: '22 []core.Toleration', hostAliases: '23 []core.HostAlias',
    priorityClassName: '24 string', priority: '25 *int32', dnsConfig: '26 core.PodDNSConfig',
    readinessGates: '28 []core.PodReadinessGate', runtimeClassName: '29 *string', enableServiceLinks: '30 *bool',
    preemptionPolicy: '31 *string', overhead: '32 map[Quantity]', topologySpreadConstraints: '33 []core.TopologySpreadConstraint',
    setHostnameAsFQDN: '35 *bool', os: '36 core.PodOS', hostUsers: '37 *bool', schedulingGates: '38 []core.PodSchedulingGate',
    resourceClaims: '39 []core.PodResourceClaim',
  },
  'core.Container': containerFields,
  'core.EphemeralContainer': { ephemeralContainerCommon: '1 inline core.EphemeralContainerCommon', targetContainerName: '2 string' },
  'core.EphemeralContainerCommon': containerFields,
  'core.ContainerResizePolicy': { resourceName: '1 *string', restartPolicy: '2 *string' },
  'core.ContainerPort': { name: '1 string', hostPort: '2 int32', containerPort: '3 *int32', protocol: '4 string', hostIP: '5 string' },
  'core.EnvFromSource': { prefix: '1 string', configMapRef: '2 core.ConfigMapEnvSource', secretRef: '3 core.SecretEnvSource' },
  'core.ConfigMapEnvSource': envSource,
  'core.SecretEnvSource': envSource,
  'core.EnvVar': { name: '1 *string', value: '2 string', valueFrom: '3 core.EnvVarSource' },
  'core.EnvVarSource': {
    fieldRef: '1 core.ObjectFieldSelector', resourceFieldRef: '2 core.ResourceFieldSelector',
    configMapKeyRef: '3 core.ConfigMapKeySelector', secretKeyRef: '4 core.SecretKeySelector',
  },
  'core.ObjectFieldSelector': { apiVersion: '1 string', fieldPath: '2 *string' },
  'core.ResourceFieldSelector': { containerName: '1 string', resource: '2 *string', divisor: '3 Quantity' },
  'core.ConfigMapKeySelector': keySelector,
  'core.SecretKeySelector': keySelector,
  'core.ResourceRequirements': { limits: '1 map[Quantity]', requests: '2 map[Quantity]', claims: '3 []core.ResourceClaim' },
  'core.ResourceClaim': { name: '1 *string' },
  'core.VolumeMount': {
    name: '1 *string', readOnly: '2 bool', mountPath: '3 *string', subPath: '4 string', mountPropagation: '5 *string', subPathExpr: '6 string',
  },
  'core.VolumeDevice': { name: '1 *string', devicePath: '2 *string' },
  'core.Probe': {
    handler: '1 inline core.ProbeHandler', initialDelaySeconds: '2 int32', timeoutSeconds: '3 int32', periodSeconds: '4 int32',
    successThreshold: '5 int32', failureThreshold: '6 int32', terminationGracePeriodSeconds: '7 *int64',
  },
  'core.ProbeHandler': { ...handler, grpc: '4 core.GRPCAction' },
  'core.LifecycleHandler': handler,
  'core.Lifecycle': { postStart: '1 core.LifecycleHandler', preStop: '2 core.LifecycleHandler' },
  'core.ExecAction': { command: '1 []string' },
  'core.HTTPGetAction': { path: '1 string', port: '2 IntOrString', host: '3 string', scheme: '4 string', httpHeaders: '5 []core.HTTPHeader' },
  'core.HTTPHeader': { name: '1 *string', value: '2 *string' },
  'core.TCPSocketAction': { port: '1 IntOrString', host: '2 string' },
  'core.GRPCAction': { port: '1 *int32', service: '2 *string' },
  'core.SecurityContext': {
    capabilities: '1 core.Capabilities', privileged: '2 *bool', seLinuxOptions: '3 core.SELinuxOptions',
    windowsOptions: '10 core.WindowsSecurityContextOptions', runAsUser: '4 *int64', runAsGroup: '8 *int64', runAsNonRoot: '5 *bool',
    readOnlyRootFilesystem: '6 *bool', allowPrivilegeEscalation: '7 *bool', procMount: '9 *string', seccompProfile: '11 core.SeccompProfile',
  },
  'core.Capabilities': { add: '1 []string', drop: '2 []string' },
  'core.SELinuxOptions': { user: '1 string', role: '2 string', type: '3 string', level: '4 string' },
  'core.WindowsSecurityContextOptions': {
    gmsaCredentialSpecName: '1 *string', gmsaCredentialSpec: '2 *string', runAsUserName: '3 *string', hostProcess: '4 *bool',
  },
  'core.SeccompProfile': { type: '1 *string', localhostProfile: '2 *string' },
  'core.PodSecurityContext': {
    seLinuxOptions: '1 core.SELinuxOptions', windowsOptions: '8 core.WindowsSecurityContextOptions', runAsUser: '2 *int64',
    runAsGroup: '6 *int64', runAsNonRoot: '3 *bool', supplementalGroups: '4 []int64', fsGroup: '5 *int64', sysctls: '7 []core.Sysctl',
    fsGroupChangePolicy: '9 *string', seccompProfile: '10 core.SeccompProfile',
  },
  'core.Sysctl': { name: '1 *string', value: '2 *string' },
  'core.Affinity': { nodeAffinity: '1 core.NodeAffinity', podAffinity: '2 core.PodAffinity', podAntiAffinity: '3 core.PodAntiAffinity' },
  'core.NodeAffinity': {
    requiredDuringSchedulingIgnoredDuringExecution: '1 core.NodeSelector',
    preferredDuringSchedulingIgnoredDuringExecution: '2 []core.PreferredSchedulingTerm',
  },
  'core.NodeSelector': { nodeSelectorTerms: '1 []core.NodeSelectorTerm' },
  'core.NodeSelectorTerm': { matchExpressions: '1 []core.NodeSelectorRequirement', matchFields: '2 []core.NodeSelectorRequirement' },
  'core.NodeSelectorRequirement': { key: '1 *string', operator: '2 *string', values: '3 []string' },
  'core.PreferredSchedulingTerm': { weight: '1 *int32', preference: '2 core.NodeSelectorTerm' },
  'core.PodAffinity': affinityTerms('core.WeightedPodAffinityTerm'),
  'core.PodAntiAffinity': affinityTerms('core.WeightedPodAffinityTerm'),
  'core.PodAffinityTerm': {
    labelSelector: '1 meta.LabelSelector', namespaces: '2 []string', topologyKey: '3 *string', namespaceSelector: '4 meta.LabelSelector',
  },
  'core.WeightedPodAffinityTerm': { weight: '1 *int32', podAffinityTerm: '2 core.PodAffinityTerm' },
  'core.Toleration': { key: '1 string', operator: '2 string', value: '3 string', effect: '4 string', tolerationSeconds: '5 *int64' },
  'core.HostAlias': { ip: '1 string', hostnames: '2 []string' },
  'core.PodDNSConfig': { nameservers: '1 []string', searches: '2 []string', options: '3 []core.PodDNSConfigOption' },
  'core.PodDNSConfigOption': { name: '1 string', value: '2 *string' },
  'core.PodReadinessGate': { conditionType: '1 *string' },
  'core.TopologySpreadConstraint': {
    maxSkew: '1 *int32', topologyKey: '2 *string', whenUnsatisfiable: '3 *string', labelSelector: '4 meta.LabelSelector',
    minDomains: '5 *int32', nodeAffinityPolicy: '6 *string', nodeTaintsPolicy: '7 *string', matchLabelKeys: '8 []string',
  },
  'core.PodOS': { name: '1 *string' },
  'core.PodSchedulingGate': { name: '1 *string' },
  'core.PodResourceClaim': { name: '1 *string', source: '2 core.ClaimSource' },
  'core.ClaimSource': { resourceClaimName: '1 *string', resourceClaimTemplateName: '2 *string' },

  'core.Volume': { name: '1 *string', volumeSource: '2 inline core.VolumeSource' },
  'core.VolumeSource': {
    hostPath: '1 core.HostPathVolumeSource', emptyDir: '2 core.EmptyDirVolumeSource',
    gcePersistentDisk: '3 core.GCEPersistentDiskVolumeSource', awsElasticBlockStore: '4 core.AWSElasticBlockStoreVolumeSource',
    gitRepo: '5 core.GitRepoVolumeSource', secret: '6 core.SecretVolumeSource', nfs: '7 core.NFSVolumeSource',
    iscsi: '8 core.ISCSIVolumeSource', glusterfs: '9 core.GlusterfsVolumeSource',
    persistentVolumeClaim: '10 core.PersistentVolumeClaimVolumeSource', rbd: '11 core.RBDVolumeSource',
    flexVolume: '12 core.FlexVolumeSource', cinder: '13 core.CinderVolumeSource', cephfs: '14 core.CephFSVolumeSource',
    flocker: '15 core.FlockerVolumeSource', downwardAPI: '16 core.DownwardAPIVolumeSource', fc: '17 core.FCVolumeSource',
    azureFile: '18 core.AzureFileVolumeSource', configMap: '19 core.ConfigMapVolumeSource',
    vsphereVolume: '20 core.VsphereVirtualDiskVolumeSource', quobyte: '21 core.QuobyteVolumeSource',
    azureDisk: '22 core.AzureDiskVolumeSource', photonPersistentDisk: '23 core.PhotonPersistentDiskVolumeSource',
    projected: '26 core.ProjectedVolumeSource', portworxVolume: '24 core.PortworxVolumeSource',
    scaleIO: '25 core.ScaleIOVolumeSource', storageos: '27 core.StorageOSVolumeSource', csi: '28 core.CSIVolumeSource',
    ephemeral: '29 core.EphemeralVolumeSource',
  },
  'core.HostPathVolumeSource': { path: '1 *string', type: '2 *string' },
  'core.EmptyDirVolumeSource': { medium: '1 string', sizeLimit: '2 Quantity' },
  'core.GCEPersistentDiskVolumeSource': { pdName: '1 *string', fsType: '2 string', partition: '3 int32', readOnly: '4 bool' },
  'core.AWSElasticBlockStoreVolumeSource': { volumeID: '1 *string', fsType: '2 string', partition: '3 int32', readOnly: '4 bool' },
  'core.GitRepoVolumeSource': { repository: '1 *string', revision: '2 string', directory: '3 string' },
  'core.SecretVolumeSource': { secretName: '1 string', items: '2 []core.KeyToPath', defaultMode: '3 *int32', optional: '4 *bool' },
  'core.KeyToPath': { key: '1 *string', path: '2 *string', mode: '3 *int32' },
  'core.NFSVolumeSource': { server: '1 *string', path: '2 *string', readOnly: '3 bool' },
  'core.ISCSIVolumeSource': {
    targetPortal: '1 *string', iqn: '2 *string', lun: '3 *int32', iscsiInterface: '4 string', fsType: '5 string', readOnly: '6 bool',
    portals: '7 []string', chapAuthDiscovery: '8 bool', chapAuthSession: '11 bool', secretRef: '10 core.LocalObjectReference',
    initiatorName: '12 *string',
  },
  'core.GlusterfsVolumeSource': { endpoints: '1 *string', path: '2 *string', readOnly: '3 bool' },
  'core.PersistentVolumeClaimVolumeSource': { claimName: '1 *string', readOnly: '2 bool' },
  'core.RBDVolumeSource': {
    monitors: '1 []string', image: '2 *string', fsType: '3 string', pool: '4 string', user: '5 string', keyring: '6 string',
    secretRef: '7 core.LocalObjectReference', readOnly: '8 bool',
  },
  'core.FlexVolumeSource': {
    driver: '1 *string', fsType: '2 string', secretRef: '3 core.LocalObjectReference', readOnly: '4 bool', options: '5 map[string]',
  },
  'core.CinderVolumeSource': { volumeID: '1 *string', fsType: '2 string', readOnly: '3 bool', secretRef: '4 core.LocalObjectReference' },
  'core.CephFSVolumeSource': {
    monitors: '1 []string', path: '2 string', user: '3 string', secretFile: '4 string', secretRef: '5 core.LocalObjectReference', readOnly: '6 bool',
  },
  'core.FlockerVolumeSource': { datasetName: '1 string', datasetUUID: '2 string' },
  'core.DownwardAPIVolumeSource': { items: '1 []core.DownwardAPIVolumeFile', defaultMode: '2 *int32' },
  'core.DownwardAPIVolumeFile': {
    path: '1 *string', fieldRef: '2 core.ObjectFieldSelector', resourceFieldRef: '3 core.ResourceFieldSelector', mode: '4 *int32',
  },
  'core.FCVolumeSource': { targetWWNs: '1 []string', lun: '2 *int32', fsType: '3 string', readOnly: '4 bool', wwids: '5 []string' },
  'core.AzureFileVolumeSource': { secretName: '1 *string', shareName: '2 *string', readOnly: '3 bool' },
  'core.ConfigMapVolumeSource': {
    localObjectReference: '1 inline core.LocalObjectReference', items: '2 []core.KeyToPath', defaultMode: '3 *int32', optional: '4 *bool',
  },
  'core.VsphereVirtualDiskVolumeSource': { volumePath: '1 *string', fsType: '2 string', storagePolicyName: '3 string', storagePolicyID: '4 string' },
  'core.QuobyteVolumeSource': {
    registry: '1 *string', volume: '2 *string', readOnly: '3 bool', user: '4 string', group: '5 string', tenant: '6 string',
  },
  'core.AzureDiskVolumeSource': {
    diskName: '1 *string', diskURI: '2 *string', cachingMode: '3 *string', fsType: '4 *string', readOnly: '5 *bool', kind: '6 *string',
  },
  'core.PhotonPersistentDiskVolumeSource': { pdID: '1 *string', fsType: '2 string' },
  'core.ProjectedVolumeSource': { sources: '1 []core.VolumeProjection', defaultMode: '2 *int32' },
  'core.VolumeProjection': {
    secret: '1 core.SecretProjection', downwardAPI: '2 core.DownwardAPIProjection', configMap: '3 core.ConfigMapProjection',
    serviceAccountToken: '4 core.ServiceAccountTokenProjection',
  },
  'core.SecretProjection': projection,
  'core.ConfigMapProjection': projection,
  'core.DownwardAPIProjection': { items: '1 []core.DownwardAPIVolumeFile' },
  'core.ServiceAccountTokenProjection': { audience: '1 string', expirationSeconds: '2 *int64', path: '3 *string' },
  'core.PortworxVolumeSource': { volumeID: '1 *string', fsType: '2 string', readOnly: '3 bool' },
  'core.ScaleIOVolumeSource': {
    gateway: '1 *string', system: '2 *string', secretRef: '3 core.LocalObjectReference', sslEnabled: '4 bool',
    protectionDomain: '5 string', storagePool: '6 string', storageMode: '7 string', volumeName: '8 string', fsType: '9 string', readOnly: '10 bool',
  },
  'core.StorageOSVolumeSource': {
    volumeName: '1 string', volumeNamespace: '2 string', fsType: '3 string', readOnly: '4 bool', secretRef: '5 core.LocalObjectReference',
  },
  'core.CSIVolumeSource': {
    driver: '1 *string', readOnly: '2 *bool', fsType: '3 *string', volumeAttributes: '4 map[string]',
    nodePublishSecretRef: '5 core.LocalObjectReference',
  },
  'core.EphemeralVolumeSource': { volumeClaimTemplate: '1 core.PersistentVolumeClaimTemplate' },
  'core.PersistentVolumeClaimTemplate': { ...objectMetaFields, spec: '2 core.PersistentVolumeClaimSpec' },
  'core.PersistentVolumeClaimSpec': {
    accessModes: '1 []string', selector: '4 meta.LabelSelector', resources: '2 core.ResourceRequirements', volumeName: '3 string',
    storageClassName: '5 *string', volumeMode: '6 *string', dataSource: '7 core.TypedLocalObjectReference',
    dataSourceRef: '8 core.TypedObjectReference',
  },

  'core.PodStatus': {
    phase: '1 string', conditions: '2 []core.PodCondition', message: '3 string', reason: '4 string', nominatedNodeName: '11 string',
    hostIP: '5 string', podIP: '6 string', podIPs: '12 []core.PodIP', startTime: '7 Time',
    initContainerStatuses: '10 []core.ContainerStatus', containerStatuses: '8 []core.ContainerStatus', qosClass: '9 string',
    ephemeralContainerStatuses: '13 []core.ContainerStatus', resize: '14 string',
  },
  // the kubelet's conditions carry both times, null while unset
  'core.PodCondition': { ...condition({ lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 }), lastProbeTime: '3 *Time', lastTransitionTime: '4 *Time' },
  'core.PodIP': { ip: '1 string' },
  'core.ContainerStatus': {
    name: '1 *string', state: '2 core.ContainerState', lastState: '3 core.ContainerState', ready: '4 *bool', restartCount: '5 *int32',
    image: '6 *string', imageID: '7 *string', containerID: '8 string', started: '9 *bool', allocatedResources: '10 map[Quantity]',
    resources: '11 core.ResourceRequirements',
  },
  'core.ContainerState': {
    waiting: '1 core.ContainerStateWaiting', running: '2 core.ContainerStateRunning', terminated: '3 core.ContainerStateTerminated',
  },
  'core.ContainerStateWaiting': { reason: '1 string', message: '2 string' },
  'core.ContainerStateRunning': { startedAt: '1 Time' },
  'core.ContainerStateTerminated': {
    exitCode: '1 *int32', signal: '2 int32', reason: '3 string', message: '4 string', startedAt: '5 Time', finishedAt: '6 Time',
    containerID: '7 string',
  },

  'core.Service': { ...objectMetaFields, spec: '2 core.ServiceSpec', status: '3 core.ServiceStatus' },
  'core.ServiceSpec': {
    ports: '1 []core.ServicePort', selector: '2 map[string]', clusterIP: '3 string', clusterIPs: '18 []string', type: '4 string',
    externalIPs: '5 []string', sessionAffinity: '7 string', loadBalancerIP: '8 string', loadBalancerSourceRanges: '9 []string',
    externalName: '10 string', externalTrafficPolicy: '11 string', healthCheckNodePort: '12 int32', publishNotReadyAddresses: '13 bool',
    sessionAffinityConfig: '14 core.SessionAffinityConfig', ipFamilies: '19 []string', ipFamilyPolicy: '17 *string',
    allocateLoadBalancerNodePorts: '20 *bool', loadBalancerClass: '21 *string', internalTrafficPolicy: '22 *string',
  },
  'core.ServicePort': {
    name: '1 string', protocol: '2 string', appProtocol: '6 *string', port: '3 *int32', targetPort: '4 IntOrString', nodePort: '5 int32',
  },
  'core.SessionAffinityConfig': { clientIP: '1 core.ClientIPConfig' },
  'core.ClientIPConfig': { timeoutSeconds: '1 *int32' },
  'core.ServiceStatus': { loadBalancer: '1 core.LoadBalancerStatus', conditions: '2 []meta.Condition' },
  'core.LoadBalancerStatus': { ingress: '1 []core.LoadBalancerIngress' },
  'core.LoadBalancerIngress': { ip: '1 string', hostname: '2 string', ports: '4 []core.PortStatus' },
  'core.PortStatus': { port: '1 *int32', protocol: '2 *string', error: '3 *string' },

  'core.ResourceQuota': { ...objectMetaFields, spec: '2 core.ResourceQuotaSpec', status: '3 core.ResourceQuotaStatus' },
  'core.ResourceQuotaSpec': { hard: '1 map[Quantity]', scopes: '2 []string', scopeSelector: '3 core.ScopeSelector' },
  'core.ScopeSelector': { matchExpressions: '1 []core.ScopedResourceSelectorRequirement' },
  'core.ScopedResourceSelectorRequirement': { scopeName: '1 *string', operator: '2 *string', values: '3 []string' },
  'core.ResourceQuotaStatus': { hard: '1 map[Quantity]', used: '2 map[Quantity]' },

  // ── apps/v1 ──────────────────────────────────────────────────────────────────────────────────
  'apps.Deployment': { ...objectMetaFields, spec: '2 apps.DeploymentSpec', status: '3 apps.DeploymentStatus' },
  'apps.DeploymentSpec': {
    replicas: '1 *int32', selector: '2 meta.LabelSelector', template: '3 core.PodTemplateSpec', strategy: '4 apps.DeploymentStrategy',
    minReadySeconds: '5 int32', revisionHistoryLimit: '6 *int32', paused: '7 bool', progressDeadlineSeconds: '9 *int32',
  },
  'apps.DeploymentStrategy': { type: '1 string', rollingUpdate: '2 apps.RollingUpdateDeployment' },
  'apps.RollingUpdateDeployment': { maxUnavailable: '1 IntOrString', maxSurge: '2 IntOrString' },
  'apps.DeploymentStatus': {
    observedGeneration: '1 int64', replicas: '2 int32', updatedReplicas: '3 int32', readyReplicas: '7 int32',
    availableReplicas: '4 int32', unavailableReplicas: '5 int32', conditions: '6 []apps.DeploymentCondition', collisionCount: '8 *int32',
  },
  'apps.DeploymentCondition': condition({ lastUpdateTime: 6, lastTransitionTime: 7, reason: 4, message: 5 }),

  // ── batch/v1 ─────────────────────────────────────────────────────────────────────────────────
  'batch.Job': { ...objectMetaFields, spec: '2 batch.JobSpec', status: '3 batch.JobStatus' },
  'batch.JobSpec': {
    parallelism: '1 *int32', completions: '2 *int32', activeDeadlineSeconds: '3 *int64', podFailurePolicy: '11 batch.PodFailurePolicy',
    backoffLimit: '7 *int32', selector: '4 meta.LabelSelector', manualSelector: '5 *bool', template: '6 core.PodTemplateSpec',
    ttlSecondsAfterFinished: '8 *int32', completionMode: '9 *string', suspend: '10 *bool',
  },
  'batch.PodFailurePolicy': { rules: '1 []batch.PodFailurePolicyRule' },
  'batch.PodFailurePolicyRule': {
    action: '1 *string', onExitCodes: '2 batch.PodFailurePolicyOnExitCodesRequirement',
    onPodConditions: '3 []batch.PodFailurePolicyOnPodConditionsPattern',
  },
  'batch.PodFailurePolicyOnExitCodesRequirement': { containerName: '1 *string', operator: '2 *string', values: '3 []int32' },
  'batch.PodFailurePolicyOnPodConditionsPattern': { type: '1 *string', status: '2 *string' },
  'batch.JobStatus': {
    conditions: '1 []batch.JobCondition', startTime: '2 Time', completionTime: '3 Time', active: '4 int32', succeeded: '5 int32',
    failed: '6 int32', completedIndexes: '7 string', uncountedTerminatedPods: '8 batch.UncountedTerminatedPods', ready: '9 *int32',
  },
  'batch.JobCondition': condition({ lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 }),
  'batch.UncountedTerminatedPods': { succeeded: '1 []string', failed: '2 []string' },
  'batch.CronJob': { ...objectMetaFields, spec: '2 batch.CronJobSpec', status: '3 batch.CronJobStatus' },
  'batch.CronJobSpec': {
    schedule: '1 *string', timeZone: '8 *string', startingDeadlineSeconds: '2 *int64', concurrencyPolicy: '3 string',
    suspend: '4 *bool', jobTemplate: '5 batch.JobTemplateSpec', successfulJobsHistoryLimit: '6 *int32', failedJobsHistoryLimit: '7 *int32',
  },
  'batch.JobTemplateSpec': { ...objectMetaFields, spec: '2 batch.JobSpec' },
  'batch.CronJobStatus': { active: '1 []core.ObjectReference', lastScheduleTime: '4 Time', lastSuccessfulTime: '5 Time' },

  // ── rbac.authorization/v1 ────────────────────────────────────────────────────────────────────
  'rbac.Role': { ...objectMetaFields, rules: '2 []rbac.PolicyRule' },
  'rbac.ClusterRole': { ...objectMetaFields, rules: '2 []rbac.PolicyRule', aggregationRule: '3 rbac.AggregationRule' },
  'rbac.AggregationRule': { clusterRoleSelectors: '1 []meta.LabelSelector' },
  'rbac.PolicyRule': {
    verbs: '1 []string', apiGroups: '2 []string', resources: '3 []string', resourceNames: '4 []string', nonResourceURLs: '5 []string',
  },
  'rbac.RoleBinding': roleBinding,
  'rbac.ClusterRoleBinding': roleBinding,
  'rbac.RoleRef': { apiGroup: '1 *string', kind: '2 *string', name: '3 *string' },
  'rbac.Subject': { kind: '1 *string', apiGroup: '2 string', name: '3 *string', namespace: '4 string' },

  // ── scheduling, policy, networking ───────────────────────────────────────────────────────────
  'sched.PriorityClass': {
    ...objectMetaFields, value: '2 *int32', globalDefault: '3 bool', description: '4 string', preemptionPolicy: '5 *string',
  },
  'policy.PodDisruptionBudget': {
    ...objectMetaFields, spec: '2 policy.PodDisruptionBudgetSpec', status: '3 policy.PodDisruptionBudgetStatus',
  },
  'policy.PodDisruptionBudgetSpec': {
    minAvailable: '1 IntOrString', selector: '2 meta.LabelSelector', maxUnavailable: '3 IntOrString', unhealthyPodEvictionPolicy: '4 *string',
  },
  'policy.PodDisruptionBudgetStatus': {
    observedGeneration: '1 int64', disruptedPods: '2 map[Time]', disruptionsAllowed: '3 *int32', currentHealthy: '4 *int32',
    desiredHealthy: '5 *int32', expectedPods: '6 *int32', conditions: '7 []meta.Condition',
  },
  'policy.Eviction': { ...objectMetaFields, deleteOptions: '2 meta.DeleteOptions' },
  'net.Ingress': { ...objectMetaFields, spec: '2 net.IngressSpec', status: '3 net.IngressStatus' },
  'net.IngressSpec': {
    ingressClassName: '4 *string', defaultBackend: '1 net.IngressBackend', tls: '2 []net.IngressTLS', rules: '3 []net.IngressRule',
  },
  'net.IngressBackend': { service: '4 net.IngressServiceBackend', resource: '3 core.TypedLocalObjectReference' },
  'net.IngressServiceBackend': { name: '1 *string', port: '2 net.ServiceBackendPort' },
  'net.ServiceBackendPort': { name: '1 string', number: '2 int32' },
  'net.IngressTLS': { hosts: '1 []string', secretName: '2 string' },
  'net.IngressRule': { host: '1 string', ingressRuleValue: '2 inline net.IngressRuleValue' },
  'net.IngressRuleValue': { http: '1 net.HTTPIngressRuleValue' },
  'net.HTTPIngressRuleValue': { paths: '1 []net.HTTPIngressPath' },
  'net.HTTPIngressPath': { path: '1 string', pathType: '3 *string', backend: '2 net.IngressBackend' },
  'net.IngressStatus': { loadBalancer: '1 net.IngressLoadBalancerStatus' },
  'net.IngressLoadBalancerStatus': { ingress: '1 []net.IngressLoadBalancerIngress' },
  'net.IngressLoadBalancerIngress': { ip: '1 string', hostname: '2 string', ports: '4 []net.IngressPortStatus' },
  'net.IngressPortStatus': { port: '1 *int32', protocol: '2 *string', error: '3 *string' },

  // ── core/v1: the remaining stored kinds ──────────────────────────────────────────────────────
  'core.Endpoints': { ...objectMetaFields, subsets: '2 []core.EndpointSubset' },
  'core.EndpointSubset': { addresses: '1 []core.EndpointAddress', notReadyAddresses: '2 []core.EndpointAddress', ports: '3 []core.EndpointPort' },
  'core.EndpointAddress': { ip: '1 *string', hostname: '3 string', nodeName: '4 *string', targetRef: '2 core.ObjectReference' },
  'core.EndpointPort': { name: '1 string', port: '2 *int32', protocol: '3 string', appProtocol: '4 *string' },
  'core.LimitRange': { ...objectMetaFields, spec: '2 core.LimitRangeSpec' },
  'core.LimitRangeSpec': { limits: '1 []core.LimitRangeItem' },
  'core.LimitRangeItem': {
    type: '1 *string', max: '2 map[Quantity]', min: '3 map[Quantity]', default: '4 map[Quantity]', defaultRequest: '5 map[Quantity]',
    maxLimitRequestRatio: '6 map[Quantity]',
  },
  'core.PodTemplate': { ...objectMetaFields, template: '2 core.PodTemplateSpec' },
  'core.ReplicationController': { ...objectMetaFields, spec: '2 core.ReplicationControllerSpec', status: '3 core.ReplicationControllerStatus' },
  'core.ReplicationControllerSpec': { replicas: '1 *int32', minReadySeconds: '4 int32', selector: '2 map[string]', template: '3 core.PodTemplateSpec' },
  'core.ReplicationControllerStatus': {
    replicas: '1 *int32', fullyLabeledReplicas: '2 int32', readyReplicas: '4 int32', availableReplicas: '5 int32',
    observedGeneration: '3 int64', conditions: '6 []core.ReplicationControllerCondition',
  },
  'core.ReplicationControllerCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),
  'core.PersistentVolumeClaim': { ...objectMetaFields, spec: '2 core.PersistentVolumeClaimSpec', status: '3 core.PersistentVolumeClaimStatus' },
  'core.PersistentVolumeClaimStatus': {
    phase: '1 string', accessModes: '2 []string', capacity: '3 map[Quantity]', conditions: '4 []core.PersistentVolumeClaimCondition',
    allocatedResources: '5 map[Quantity]', resizeStatus: '6 *string',
  },
  'core.PersistentVolumeClaimCondition': condition({ lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 }),
  'core.PersistentVolume': { ...objectMetaFields, spec: '2 core.PersistentVolumeSpec', status: '3 core.PersistentVolumeStatus' },
  'core.PersistentVolumeSpec': {
    capacity: '1 map[Quantity]', persistentVolumeSource: '2 inline core.PersistentVolumeSource', accessModes: '3 []string',
    claimRef: '4 core.ObjectReference', persistentVolumeReclaimPolicy: '5 string', storageClassName: '6 string',
    mountOptions: '7 []string', volumeMode: '8 *string', nodeAffinity: '9 core.VolumeNodeAffinity',
  },
  'core.PersistentVolumeSource': {
    gcePersistentDisk: '1 core.GCEPersistentDiskVolumeSource', awsElasticBlockStore: '2 core.AWSElasticBlockStoreVolumeSource',
    hostPath: '3 core.HostPathVolumeSource', glusterfs: '4 core.GlusterfsPersistentVolumeSource', nfs: '5 core.NFSVolumeSource',
    rbd: '6 core.RBDPersistentVolumeSource', iscsi: '7 core.ISCSIPersistentVolumeSource', cinder: '8 core.CinderPersistentVolumeSource',
    cephfs: '9 core.CephFSPersistentVolumeSource', fc: '10 core.FCVolumeSource', flocker: '11 core.FlockerVolumeSource',
    flexVolume: '12 core.FlexPersistentVolumeSource', azureFile: '13 core.AzureFilePersistentVolumeSource',
    vsphereVolume: '14 core.VsphereVirtualDiskVolumeSource', quobyte: '15 core.QuobyteVolumeSource',
    azureDisk: '16 core.AzureDiskVolumeSource', photonPersistentDisk: '17 core.PhotonPersistentDiskVolumeSource',
    portworxVolume: '18 core.PortworxVolumeSource', scaleIO: '19 core.ScaleIOPersistentVolumeSource', local: '20 core.LocalVolumeSource',
    storageos: '21 core.StorageOSPersistentVolumeSource', csi: '22 core.CSIPersistentVolumeSource',
  },
  // the persistent-volume variants of the pod volume sources: their secret references carry a namespace
  'core.GlusterfsPersistentVolumeSource': { endpoints: '1 *string', path: '2 *string', readOnly: '3 bool', endpointsNamespace: '4 *string' },
  'core.RBDPersistentVolumeSource': {
    monitors: '1 []string', image: '2 *string', fsType: '3 string', pool: '4 string', user: '5 string', keyring: '6 string',
    secretRef: '7 core.SecretReference', readOnly: '8 bool',
  },
  'core.ISCSIPersistentVolumeSource': {
    targetPortal: '1 *string', iqn: '2 *string', lun: '3 *int32', iscsiInterface: '4 string', fsType: '5 string', readOnly: '6 bool',
    portals: '7 []string', chapAuthDiscovery: '8 bool', chapAuthSession: '11 bool', secretRef: '10 core.SecretReference',
    initiatorName: '12 *string',
  },
  'core.CinderPersistentVolumeSource': { volumeID: '1 *string', fsType: '2 string', readOnly: '3 bool', secretRef: '4 core.SecretReference' },
  'core.CephFSPersistentVolumeSource': {
    monitors: '1 []string', path: '2 string', user: '3 string', secretFile: '4 string', secretRef: '5 core.SecretReference', readOnly: '6 bool',
  },
  'core.FlexPersistentVolumeSource': {
    driver: '1 *string', fsType: '2 string', secretRef: '3 core.SecretReference', readOnly: '4 bool', options: '5 map[string]',
  },
  'core.AzureFilePersistentVolumeSource': { secretName: '1 *string', shareName: '2 *string', readOnly: '3 bool', secretNamespace: '4 *string' },
  'core.ScaleIOPersistentVolumeSource': {
    gateway: '1 *string', system: '2 *string', secretRef: '3 core.SecretReference', sslEnabled: '4 bool',
    protectionDomain: '5 string', storagePool: '6 string', storageMode: '7 string', volumeName: '8 string', fsType: '9 string', readOnly: '10 bool',
  },
  'core.StorageOSPersistentVolumeSource': {
    volumeName: '1 string', volumeNamespace: '2 string', fsType: '3 string', readOnly: '4 bool', secretRef: '5 core.ObjectReference',
  },
  'core.LocalVolumeSource': { path: '1 *string', fsType: '2 *string' },
  'core.CSIPersistentVolumeSource': {
    driver: '1 *string', volumeHandle: '2 *string', readOnly: '3 bool', fsType: '4 string', volumeAttributes: '5 map[string]',
    controllerPublishSecretRef: '6 core.SecretReference', nodeStageSecretRef: '7 core.SecretReference',
    nodePublishSecretRef: '8 core.SecretReference', controllerExpandSecretRef: '9 core.SecretReference',
    nodeExpandSecretRef: '10 core.SecretReference',
  },
  'core.SecretReference': { name: '1 string', namespace: '2 string' },
  'core.VolumeNodeAffinity': { required: '1 core.NodeSelector' },
  'core.PersistentVolumeStatus': { phase: '1 string', message: '2 string', reason: '3 string' },
  'core.Node': { ...objectMetaFields, spec: '2 core.NodeSpec', status: '3 core.NodeStatus' },
  'core.NodeSpec': {
    podCIDR: '1 string', podCIDRs: '7 []string', providerID: '3 string', unschedulable: '4 bool', taints: '5 []core.Taint',
    configSource: '6 core.NodeConfigSource', externalID: '2 string',
  },
  'core.Taint': { key: '1 *string', value: '2 string', effect: '3 *string', timeAdded: '4 Time' },
  'core.NodeConfigSource': { configMap: '2 core.ConfigMapNodeConfigSource' },
  'core.ConfigMapNodeConfigSource': {
    namespace: '1 *string', name: '2 *string', uid: '3 string', resourceVersion: '4 string', kubeletConfigKey: '5 *string',
  },
  'core.NodeStatus': {
    capacity: '1 map[Quantity]', allocatable: '2 map[Quantity]', phase: '3 string', conditions: '4 []core.NodeCondition',
    addresses: '5 []core.NodeAddress', daemonEndpoints: '6 core.NodeDaemonEndpoints', nodeInfo: '7 core.NodeSystemInfo',
    images: '8 []core.ContainerImage', volumesInUse: '9 []string', volumesAttached: '10 []core.AttachedVolume',
    config: '11 core.NodeConfigStatus',
  },
  'core.NodeCondition': condition({ lastHeartbeatTime: 3, lastTransitionTime: 4, reason: 5, message: 6 }),
  'core.NodeAddress': { type: '1 *string', address: '2 *string' },
  'core.NodeDaemonEndpoints': { kubeletEndpoint: '1 core.DaemonEndpoint' },
  'core.DaemonEndpoint': { Port: '1 *int32' },
  'core.NodeSystemInfo': {
    machineID: '1 *string', systemUUID: '2 *string', bootID: '3 *string', kernelVersion: '4 *string', osImage: '5 *string',
    containerRuntimeVersion: '6 *string', kubeletVersion: '7 *string', kubeProxyVersion: '8 *string',
    operatingSystem: '9 *string', architecture: '10 *string',
  },
  'core.ContainerImage': { names: '1 []string', sizeBytes: '2 int64' },
  'core.AttachedVolume': { name: '1 *string', devicePath: '2 *string' },
  'core.NodeConfigStatus': {
    assigned: '1 core.NodeConfigSource', active: '2 core.NodeConfigSource', lastKnownGood: '3 core.NodeConfigSource', error: '4 string',
  },
  'core.TopologySelectorTerm': { matchLabelExpressions: '1 []core.TopologySelectorLabelRequirement' },
  'core.TopologySelectorLabelRequirement': { key: '1 *string', values: '2 []string' },

  // ── apps/v1: the remaining kinds ─────────────────────────────────────────────────────────────
  'apps.ReplicaSet': { ...objectMetaFields, spec: '2 apps.ReplicaSetSpec', status: '3 apps.ReplicaSetStatus' },
  'apps.ReplicaSetSpec': { replicas: '1 *int32', minReadySeconds: '4 int32', selector: '2 meta.LabelSelector', template: '3 core.PodTemplateSpec' },
  'apps.ReplicaSetStatus': {
    replicas: '1 *int32', fullyLabeledReplicas: '2 int32', readyReplicas: '4 int32', availableReplicas: '5 int32',
    observedGeneration: '3 int64', conditions: '6 []apps.ReplicaSetCondition',
  },
  'apps.ReplicaSetCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),
  'apps.StatefulSet': { ...objectMetaFields, spec: '2 apps.StatefulSetSpec', status: '3 apps.StatefulSetStatus' },
  'apps.StatefulSetSpec': {
    replicas: '1 *int32', selector: '2 meta.LabelSelector', template: '3 core.PodTemplateSpec',
    volumeClaimTemplates: '4 []core.PersistentVolumeClaim', serviceName: '5 *string', podManagementPolicy: '6 string',
    updateStrategy: '7 apps.StatefulSetUpdateStrategy', revisionHistoryLimit: '8 *int32', minReadySeconds: '9 int32',
    persistentVolumeClaimRetentionPolicy: '10 apps.StatefulSetPersistentVolumeClaimRetentionPolicy', ordinals: '11 apps.StatefulSetOrdinals',
  },
  'apps.StatefulSetUpdateStrategy': { type: '1 string', rollingUpdate: '2 apps.RollingUpdateStatefulSetStrategy' },
  'apps.RollingUpdateStatefulSetStrategy': { partition: '1 *int32', maxUnavailable: '2 IntOrString' },
  'apps.StatefulSetPersistentVolumeClaimRetentionPolicy': { whenDeleted: '1 string', whenScaled: '2 string' },
  'apps.StatefulSetOrdinals': { start: '1 int32' },
  'apps.StatefulSetStatus': {
    observedGeneration: '1 int64', replicas: '2 *int32', readyReplicas: '3 int32', currentReplicas: '4 int32', updatedReplicas: '5 int32',
    currentRevision: '6 string', updateRevision: '7 string', collisionCount: '9 *int32', conditions: '10 []apps.StatefulSetCondition',
    availableReplicas: '11 *int32',
  },
  'apps.StatefulSetCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),
  'apps.DaemonSet': { ...objectMetaFields, spec: '2 apps.DaemonSetSpec', status: '3 apps.DaemonSetStatus' },
  'apps.DaemonSetSpec': {
    selector: '1 meta.LabelSelector', template: '2 core.PodTemplateSpec', updateStrategy: '3 apps.DaemonSetUpdateStrategy',
    minReadySeconds: '4 int32', revisionHistoryLimit: '6 *int32',
  },
  'apps.DaemonSetUpdateStrategy': { type: '1 string', rollingUpdate: '2 apps.RollingUpdateDaemonSet' },
  'apps.RollingUpdateDaemonSet': { maxUnavailable: '1 IntOrString', maxSurge: '2 IntOrString' },
  'apps.DaemonSetStatus': {
    currentNumberScheduled: '1 *int32', numberMisscheduled: '2 *int32', desiredNumberScheduled: '3 *int32', numberReady: '4 *int32',
    observedGeneration: '5 int64', updatedNumberScheduled: '6 int32', numberAvailable: '7 int32', numberUnavailable: '8 int32',
    collisionCount: '9 *int32', conditions: '10 []apps.DaemonSetCondition',
  },
  'apps.DaemonSetCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),
  'apps.ControllerRevision': { ...objectMetaFields, data: '2 RawExtension', revision: '3 *int64' },

  // ── autoscaling v1 and v2 ────────────────────────────────────────────────────────────────────
  // the scale subresource's kind (autoscaling/v1 for every resource with a scale subresource)
  'hpa1.Scale': { ...objectMetaFields, spec: '2 hpa1.ScaleSpec', status: '3 hpa1.ScaleStatus' },
  'hpa1.ScaleSpec': { replicas: '1 int32' },
  'hpa1.ScaleStatus': { replicas: '1 *int32', selector: '2 string' },
  'hpa1.HorizontalPodAutoscaler': {
    ...objectMetaFields, spec: '2 hpa1.HorizontalPodAutoscalerSpec', status: '3 hpa1.HorizontalPodAutoscalerStatus',
  },
  'hpa1.HorizontalPodAutoscalerSpec': {
    scaleTargetRef: '1 hpa1.CrossVersionObjectReference', minReplicas: '2 *int32', maxReplicas: '3 *int32',
    targetCPUUtilizationPercentage: '4 *int32',
  },
  'hpa1.CrossVersionObjectReference': { kind: '1 *string', name: '2 *string', apiVersion: '3 string' },
  'hpa1.HorizontalPodAutoscalerStatus': {
    observedGeneration: '1 *int64', lastScaleTime: '2 Time', currentReplicas: '3 *int32', desiredReplicas: '4 *int32',
    currentCPUUtilizationPercentage: '5 *int32',
  },
  'hpa.HorizontalPodAutoscaler': {
    ...objectMetaFields, spec: '2 hpa.HorizontalPodAutoscalerSpec', status: '3 hpa.HorizontalPodAutoscalerStatus',
  },
  'hpa.HorizontalPodAutoscalerSpec': {
    scaleTargetRef: '1 hpa.CrossVersionObjectReference', minReplicas: '2 *int32', maxReplicas: '3 *int32', metrics: '4 []hpa.MetricSpec',
    behavior: '5 hpa.HorizontalPodAutoscalerBehavior',
  },
  'hpa.CrossVersionObjectReference': { kind: '1 *string', name: '2 *string', apiVersion: '3 string' },
  'hpa.MetricSpec': {
    type: '1 *string', object: '2 hpa.ObjectMetricSource', pods: '3 hpa.PodsMetricSource', resource: '4 hpa.ResourceMetricSource',
    containerResource: '7 hpa.ContainerResourceMetricSource', external: '5 hpa.ExternalMetricSource',
  },
  'hpa.ObjectMetricSource': { describedObject: '1 hpa.CrossVersionObjectReference', target: '2 hpa.MetricTarget', metric: '3 hpa.MetricIdentifier' },
  'hpa.PodsMetricSource': { metric: '1 hpa.MetricIdentifier', target: '2 hpa.MetricTarget' },
  'hpa.ResourceMetricSource': { name: '1 *string', target: '2 hpa.MetricTarget' },
  'hpa.ContainerResourceMetricSource': { name: '1 *string', target: '2 hpa.MetricTarget', container: '3 *string' },
  'hpa.ExternalMetricSource': { metric: '1 hpa.MetricIdentifier', target: '2 hpa.MetricTarget' },
  'hpa.MetricIdentifier': { name: '1 *string', selector: '2 meta.LabelSelector' },
  'hpa.MetricTarget': { type: '1 *string', value: '2 Quantity', averageValue: '3 Quantity', averageUtilization: '4 *int32' },
  'hpa.HorizontalPodAutoscalerBehavior': { scaleUp: '1 hpa.HPAScalingRules', scaleDown: '2 hpa.HPAScalingRules' },
  'hpa.HPAScalingRules': { stabilizationWindowSeconds: '3 *int32', selectPolicy: '1 *string', policies: '2 []hpa.HPAScalingPolicy' },
  'hpa.HPAScalingPolicy': { type: '1 *string', value: '2 *int32', periodSeconds: '3 *int32' },
  'hpa.HorizontalPodAutoscalerStatus': {
    observedGeneration: '1 *int64', lastScaleTime: '2 Time', currentReplicas: '3 int32', desiredReplicas: '4 *int32',
    currentMetrics: '5 []hpa.MetricStatus', conditions: '6 []hpa.HorizontalPodAutoscalerCondition',
  },
  'hpa.HorizontalPodAutoscalerCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),
  'hpa.MetricStatus': {
    type: '1 *string', object: '2 hpa.ObjectMetricStatus', pods: '3 hpa.PodsMetricStatus', resource: '4 hpa.ResourceMetricStatus',
    containerResource: '7 hpa.ContainerResourceMetricStatus', external: '5 hpa.ExternalMetricStatus',
  },
  'hpa.ObjectMetricStatus': { metric: '1 hpa.MetricIdentifier', current: '2 hpa.MetricValueStatus', describedObject: '3 hpa.CrossVersionObjectReference' },
  'hpa.PodsMetricStatus': { metric: '1 hpa.MetricIdentifier', current: '2 hpa.MetricValueStatus' },
  'hpa.ResourceMetricStatus': { name: '1 *string', current: '2 hpa.MetricValueStatus' },
  'hpa.ContainerResourceMetricStatus': { name: '1 *string', current: '2 hpa.MetricValueStatus', container: '3 *string' },
  'hpa.ExternalMetricStatus': { metric: '1 hpa.MetricIdentifier', current: '2 hpa.MetricValueStatus' },
  'hpa.MetricValueStatus': { value: '1 Quantity', averageValue: '2 Quantity', averageUtilization: '3 *int32' },

  // ── networking, discovery, coordination, storage ─────────────────────────────────────────────
  'net.NetworkPolicy': { ...objectMetaFields, spec: '2 net.NetworkPolicySpec', status: '3 net.NetworkPolicyStatus' },
  'net.NetworkPolicyStatus': { conditions: '1 []meta.Condition' },
  'net.NetworkPolicySpec': {
    podSelector: '1 meta.LabelSelector', ingress: '2 []net.NetworkPolicyIngressRule', egress: '3 []net.NetworkPolicyEgressRule',
    policyTypes: '4 []string',
  },
  'net.NetworkPolicyIngressRule': { ports: '1 []net.NetworkPolicyPort', from: '2 []net.NetworkPolicyPeer' },
  'net.NetworkPolicyEgressRule': { ports: '1 []net.NetworkPolicyPort', to: '2 []net.NetworkPolicyPeer' },
  'net.NetworkPolicyPort': { protocol: '1 *string', port: '2 IntOrString', endPort: '3 *int32' },
  'net.NetworkPolicyPeer': { podSelector: '1 meta.LabelSelector', namespaceSelector: '2 meta.LabelSelector', ipBlock: '3 net.IPBlock' },
  'net.IPBlock': { cidr: '1 *string', except: '2 []string' },
  'net.IngressClass': { ...objectMetaFields, spec: '2 net.IngressClassSpec' },
  'net.IngressClassSpec': { controller: '1 string', parameters: '2 net.IngressClassParametersReference' },
  'net.IngressClassParametersReference': { apiGroup: '1 *string', kind: '2 *string', name: '3 *string', scope: '4 *string', namespace: '5 *string' },
  'disc.EndpointSlice': { ...objectMetaFields, addressType: '4 *string', endpoints: '2 []disc.Endpoint', ports: '3 []disc.EndpointPort' },
  'disc.Endpoint': {
    addresses: '1 []string', conditions: '2 disc.EndpointConditions', hostname: '3 *string', targetRef: '4 core.ObjectReference',
    deprecatedTopology: '5 map[string]', nodeName: '6 *string', zone: '7 *string', hints: '8 disc.EndpointHints',
  },
  'disc.EndpointConditions': { ready: '1 *bool', serving: '2 *bool', terminating: '3 *bool' },
  'disc.EndpointHints': { forZones: '1 []disc.ForZone' },
  'disc.ForZone': { name: '1 *string' },
  'disc.EndpointPort': { name: '1 *string', protocol: '2 *string', port: '3 *int32', appProtocol: '4 *string' },
  'coord.Lease': { ...objectMetaFields, spec: '2 coord.LeaseSpec' },
  'coord.LeaseSpec': {
    holderIdentity: '1 *string', leaseDurationSeconds: '2 *int32', acquireTime: '3 MicroTime', renewTime: '4 MicroTime',
    leaseTransitions: '5 *int32',
  },
  'storage.StorageClass': {
    ...objectMetaFields, provisioner: '2 *string', parameters: '3 map[string]', reclaimPolicy: '4 *string', mountOptions: '5 []string',
    allowVolumeExpansion: '6 *bool', volumeBindingMode: '7 *string', allowedTopologies: '8 []core.TopologySelectorTerm',
  },

  // ── authorization, authentication, certificates ──────────────────────────────────────────────
  'authz.SelfSubjectAccessReview': {
    ...objectMetaFields, spec: '2 authz.SelfSubjectAccessReviewSpec', status: '3 authz.SubjectAccessReviewStatus',
  },
  'authz.SelfSubjectAccessReviewSpec': { resourceAttributes: '1 authz.ResourceAttributes', nonResourceAttributes: '2 authz.NonResourceAttributes' },
  'authz.SubjectAccessReview': { ...objectMetaFields, spec: '2 authz.SubjectAccessReviewSpec', status: '3 authz.SubjectAccessReviewStatus' },
  'authz.LocalSubjectAccessReview': { ...objectMetaFields, spec: '2 authz.SubjectAccessReviewSpec', status: '3 authz.SubjectAccessReviewStatus' },
  'authz.SubjectAccessReviewSpec': {
    resourceAttributes: '1 authz.ResourceAttributes', nonResourceAttributes: '2 authz.NonResourceAttributes', user: '3 string',
    groups: '4 []string', extra: '5 map[ExtraValue]', uid: '6 string',
  },
  'authz.ResourceAttributes': {
    namespace: '1 string', verb: '2 string', group: '3 string', version: '4 string', resource: '5 string', subresource: '6 string', name: '7 string',
  },
  'authz.NonResourceAttributes': { path: '1 string', verb: '2 string' },
  'authz.SubjectAccessReviewStatus': { allowed: '1 *bool', denied: '4 bool', reason: '2 string', evaluationError: '3 string' },
  'authz.SelfSubjectRulesReview': { ...objectMetaFields, spec: '2 authz.SelfSubjectRulesReviewSpec', status: '3 authz.SubjectRulesReviewStatus' },
  'authz.SelfSubjectRulesReviewSpec': { namespace: '1 string' },
  'authz.SubjectRulesReviewStatus': {
    resourceRules: '1 []authz.ResourceRule', nonResourceRules: '2 []authz.NonResourceRule', incomplete: '3 *bool', evaluationError: '4 string',
  },
  'authz.ResourceRule': { verbs: '1 []string', apiGroups: '2 []string', resources: '3 []string', resourceNames: '4 []string' },
  'authz.NonResourceRule': { verbs: '1 []string', nonResourceURLs: '2 []string' },
  'authn.TokenRequest': { ...objectMetaFields, spec: '2 authn.TokenRequestSpec', status: '3 authn.TokenRequestStatus' },
  'authn.TokenRequestSpec': { audiences: '1 []string', expirationSeconds: '4 *int64', boundObjectRef: '3 authn.BoundObjectReference' },
  'authn.BoundObjectReference': { kind: '1 string', apiVersion: '2 string', name: '3 string', uid: '4 string' },
  'authn.TokenRequestStatus': { token: '1 *string', expirationTimestamp: '2 Time' },
  'authn.TokenReview': { ...objectMetaFields, spec: '2 authn.TokenReviewSpec', status: '3 authn.TokenReviewStatus' },
  'authn.TokenReviewSpec': { token: '1 string', audiences: '2 []string' },
  'authn.TokenReviewStatus': { authenticated: '1 bool', user: '2 authn.UserInfo', audiences: '4 []string', error: '3 string' },
  'authn.UserInfo': extraUser,
  'authn.SelfSubjectReview': selfSubjectReview('authn.SelfSubjectReviewStatus'),
  'authn.SelfSubjectReviewStatus': { userInfo: '1 authn.UserInfo' },
  'authnBeta.SelfSubjectReview': selfSubjectReview('authnBeta.SelfSubjectReviewStatus'),
  'authnBeta.SelfSubjectReviewStatus': { userInfo: '1 authn.UserInfo' },
  'authnAlpha.SelfSubjectReview': selfSubjectReview('authnAlpha.SelfSubjectReviewStatus'),
  'authnAlpha.SelfSubjectReviewStatus': { userInfo: '1 authn.UserInfo' },
  'certs.CertificateSigningRequest': {
    ...objectMetaFields, spec: '2 certs.CertificateSigningRequestSpec', status: '3 certs.CertificateSigningRequestStatus',
  },
  'certs.CertificateSigningRequestSpec': {
    request: '1 *bytes', signerName: '7 *string', expirationSeconds: '8 *int32', usages: '5 []string', username: '2 string',
    uid: '3 string', groups: '4 []string', extra: '6 map[ExtraValue]',
  },
  'certs.CertificateSigningRequestStatus': { conditions: '1 []certs.CertificateSigningRequestCondition', certificate: '2 bytes' },
  'certs.CertificateSigningRequestCondition': {
    type: '1 *string', status: '6 *string', reason: '2 string', message: '3 string', lastUpdateTime: '4 Time', lastTransitionTime: '5 Time',
  },

  // ── core leftovers, events, node, storage (CSI) ──────────────────────────────────────────────
  'core.Binding': { ...objectMetaFields, target: '2 core.ObjectReference' },
  'core.ComponentStatus': { ...objectMetaFields, conditions: '2 []core.ComponentCondition' },
  'core.ComponentCondition': { type: '1 *string', status: '2 *string', message: '3 string', error: '4 string' },
  'events.Event': {
    ...objectMetaFields, eventTime: '2 *MicroTime', series: '3 events.EventSeries', reportingController: '4 string',
    reportingInstance: '5 string', action: '6 string', reason: '7 string', regarding: '8 core.ObjectReference',
    related: '9 core.ObjectReference', note: '10 string', type: '11 string', deprecatedSource: '12 core.EventSource',
    deprecatedFirstTimestamp: '13 *Time', deprecatedLastTimestamp: '14 *Time', deprecatedCount: '15 int32',
  },
  'events.EventSeries': { count: '1 *int32', lastObservedTime: '2 MicroTime' },
  'node.RuntimeClass': { ...objectMetaFields, handler: '2 *string', overhead: '3 node.Overhead', scheduling: '4 node.Scheduling' },
  'node.Overhead': { podFixed: '1 map[Quantity]' },
  'node.Scheduling': { nodeSelector: '1 map[string]', tolerations: '2 []core.Toleration' },
  'storage.CSIDriver': { ...objectMetaFields, spec: '2 storage.CSIDriverSpec' },
  // nodeAllocatableUpdatePeriodSeconds = 9 and later come after 1.27
  'storage.CSIDriverSpec': {
    attachRequired: '1 *bool', podInfoOnMount: '2 *bool', volumeLifecycleModes: '3 []string', storageCapacity: '4 *bool',
    fsGroupPolicy: '5 *string', tokenRequests: '6 []storage.TokenRequest', requiresRepublish: '7 *bool', seLinuxMount: '8 *bool',
  },
  'storage.TokenRequest': { audience: '1 *string', expirationSeconds: '2 *int64' },
  // status = 3 comes after 1.27
  'storage.CSINode': { ...objectMetaFields, spec: '2 storage.CSINodeSpec' },
  'storage.CSINodeSpec': { drivers: '1 []storage.CSINodeDriver' },
  'storage.CSINodeDriver': { name: '1 *string', nodeID: '2 *string', topologyKeys: '3 []string', allocatable: '4 storage.VolumeNodeResources' },
  'storage.VolumeNodeResources': { count: '1 *int32' },
  'storage.CSIStorageCapacity': {
    ...objectMetaFields, nodeTopology: '2 meta.LabelSelector', storageClassName: '3 *string', capacity: '4 Quantity',
    maximumVolumeSize: '5 Quantity',
  },
  'storage.VolumeAttachment': { ...objectMetaFields, spec: '2 storage.VolumeAttachmentSpec', status: '3 storage.VolumeAttachmentStatus' },
  'storage.VolumeAttachmentSpec': { attacher: '1 *string', source: '2 storage.VolumeAttachmentSource', nodeName: '3 *string' },
  'storage.VolumeAttachmentSource': { persistentVolumeName: '1 *string', inlineVolumeSpec: '2 core.PersistentVolumeSpec' },
  'storage.VolumeAttachmentStatus': {
    attached: '1 *bool', attachmentMetadata: '2 map[string]', attachError: '3 storage.VolumeError', detachError: '4 storage.VolumeError',
  },
  // errorCode = 3 comes after 1.27
  'storage.VolumeError': { time: '1 Time', message: '2 string' },

  // ── admissionregistration/v1 ─────────────────────────────────────────────────────────────────
  'admission.MutatingWebhookConfiguration': { ...objectMetaFields, webhooks: '2 []admission.MutatingWebhook' },
  'admission.MutatingWebhook': { ...webhook({ objectSelector: 11, matchConditions: 12 }), reinvocationPolicy: '10 *string' },
  'admission.ValidatingWebhookConfiguration': { ...objectMetaFields, webhooks: '2 []admission.ValidatingWebhook' },
  'admission.ValidatingWebhook': webhook({ objectSelector: 10, matchConditions: 11 }),
  'admission.WebhookClientConfig': { url: '3 *string', service: '1 admission.ServiceReference', caBundle: '2 bytes' },
  'admission.ServiceReference': { namespace: '1 *string', name: '2 *string', path: '3 *string', port: '4 *int32' },
  'admission.RuleWithOperations': { operations: '1 []string', rule: '2 inline admission.Rule' },
  'admission.Rule': { apiGroups: '1 []string', apiVersions: '2 []string', resources: '3 []string', scope: '4 *string' },
  'admission.MatchCondition': { name: '1 *string', expression: '2 *string' },

  // ── flowcontrol.apiserver v1beta3, v1beta2 ───────────────────────────────────────────────────
  ...flowcontrol('fc3', 'nominalConcurrencyShares'),
  ...flowcontrol('fc2', 'assuredConcurrencyShares'),

  // ── apiregistration/v1 ───────────────────────────────────────────────────────────────────────
  'apireg.APIService': { ...objectMetaFields, spec: '2 apireg.APIServiceSpec', status: '3 apireg.APIServiceStatus' },
  'apireg.APIServiceSpec': {
    service: '1 apireg.ServiceReference', group: '2 string', version: '3 string', insecureSkipTLSVerify: '4 bool', caBundle: '5 bytes',
    groupPriorityMinimum: '7 *int32', versionPriority: '8 *int32',
  },
  'apireg.ServiceReference': { namespace: '1 string', name: '2 string', port: '3 *int32' },
  'apireg.APIServiceStatus': { conditions: '1 []apireg.APIServiceCondition' },
  'apireg.APIServiceCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),

  // ── apiextensions/v1 ─────────────────────────────────────────────────────────────────────────
  'apiext.CustomResourceDefinition': {
    ...objectMetaFields, spec: '2 apiext.CustomResourceDefinitionSpec', status: '3 apiext.CustomResourceDefinitionStatus',
  },
  'apiext.CustomResourceDefinitionSpec': {
    group: '1 *string', names: '3 apiext.CustomResourceDefinitionNames', scope: '4 *string',
    versions: '7 []apiext.CustomResourceDefinitionVersion', conversion: '9 apiext.CustomResourceConversion', preserveUnknownFields: '10 bool',
  },
  'apiext.CustomResourceDefinitionNames': {
    plural: '1 *string', singular: '2 string', shortNames: '3 []string', kind: '4 *string', listKind: '5 string', categories: '6 []string',
  },
  // selectableFields = 9 comes after 1.27
  'apiext.CustomResourceDefinitionVersion': {
    name: '1 *string', served: '2 *bool', storage: '3 *bool', deprecated: '7 bool', deprecationWarning: '8 *string',
    schema: '4 apiext.CustomResourceValidation', subresources: '5 apiext.CustomResourceSubresources',
    additionalPrinterColumns: '6 []apiext.CustomResourceColumnDefinition',
  },
  'apiext.CustomResourceValidation': { openAPIV3Schema: '1 apiext.JSONSchemaProps' },
  'apiext.CustomResourceSubresources': { status: '1 apiext.CustomResourceSubresourceStatus', scale: '2 apiext.CustomResourceSubresourceScale' },
  'apiext.CustomResourceSubresourceStatus': {},
  'apiext.CustomResourceSubresourceScale': { specReplicasPath: '1 *string', statusReplicasPath: '2 *string', labelSelectorPath: '3 *string' },
  'apiext.CustomResourceColumnDefinition': {
    name: '1 *string', type: '2 *string', format: '3 string', description: '4 string', priority: '5 int32', jsonPath: '6 *string',
  },
  'apiext.CustomResourceConversion': { strategy: '1 *string', webhook: '2 apiext.WebhookConversion' },
  'apiext.WebhookConversion': { clientConfig: '2 apiext.WebhookClientConfig', conversionReviewVersions: '3 []string' },
  'apiext.WebhookClientConfig': { url: '3 *string', service: '1 apiext.ServiceReference', caBundle: '2 bytes' },
  'apiext.ServiceReference': { namespace: '1 *string', name: '2 *string', path: '3 *string', port: '4 *int32' },
  'apiext.CustomResourceDefinitionStatus': {
    conditions: '1 []apiext.CustomResourceDefinitionCondition', acceptedNames: '2 apiext.CustomResourceDefinitionNames',
    storedVersions: '3 []string',
  },
  'apiext.CustomResourceDefinitionCondition': condition({ lastTransitionTime: 3, reason: 4, message: 5 }),
  'apiext.JSONSchemaProps': {
    id: '1 string', $schema: '2 string', $ref: '3 *string', description: '4 string', type: '5 string', format: '6 string',
    title: '7 string', default: '8 JSON', maximum: '9 *double', exclusiveMaximum: '10 bool', minimum: '11 *double',
    exclusiveMinimum: '12 bool', maxLength: '13 *int64', minLength: '14 *int64', pattern: '15 string', maxItems: '16 *int64',
    minItems: '17 *int64', uniqueItems: '18 bool', multipleOf: '19 *double', enum: '20 []JSON', maxProperties: '21 *int64',
    minProperties: '22 *int64', required: '23 []string', items: '24 JSONSchemaPropsOrArray', allOf: '25 []apiext.JSONSchemaProps',
    oneOf: '26 []apiext.JSONSchemaProps', anyOf: '27 []apiext.JSONSchemaProps', not: '28 apiext.JSONSchemaProps',
    properties: '29 map[apiext.JSONSchemaProps]', additionalProperties: '30 JSONSchemaPropsOrBool',
    patternProperties: '31 map[apiext.JSONSchemaProps]', dependencies: '32 map[JSONSchemaPropsOrStringArray]',
    additionalItems: '33 JSONSchemaPropsOrBool', definitions: '34 map[apiext.JSONSchemaProps]',
    externalDocs: '35 apiext.ExternalDocumentation', example: '36 JSON', nullable: '37 bool',
    'x-kubernetes-preserve-unknown-fields': '38 *bool', 'x-kubernetes-embedded-resource': '39 bool',
    'x-kubernetes-int-or-string': '40 bool', 'x-kubernetes-list-map-keys': '41 []string', 'x-kubernetes-list-type': '42 *string',
    'x-kubernetes-map-type': '43 *string', 'x-kubernetes-validations': '44 []apiext.ValidationRule',
  },
  'apiext.ExternalDocumentation': { description: '1 string', url: '2 string' },
  // reason = 4 and fieldPath = 5 come with 1.28
  'apiext.ValidationRule': { rule: '1 *string', message: '2 string', messageExpression: '3 string' },
};

/**
 * Top-level kinds by `<group base>/<version>/<Kind>` (the core group is `v1/<Kind>`). The group base is
 * the group without the vendor domain; `vendorGroups` lists the bases that carry the domain suffix.
 */
const kinds: Record<string, string> = {
  'v1/ConfigMap': 'core.ConfigMap', 'v1/Secret': 'core.Secret', 'v1/Namespace': 'core.Namespace',
  'v1/ServiceAccount': 'core.ServiceAccount', 'v1/Pod': 'core.Pod', 'v1/Service': 'core.Service',
  'v1/ResourceQuota': 'core.ResourceQuota', 'v1/Event': 'core.Event',
  'v1/Endpoints': 'core.Endpoints', 'v1/LimitRange': 'core.LimitRange', 'v1/PodTemplate': 'core.PodTemplate',
  'v1/ReplicationController': 'core.ReplicationController', 'v1/PersistentVolumeClaim': 'core.PersistentVolumeClaim',
  'v1/PersistentVolume': 'core.PersistentVolume', 'v1/Node': 'core.Node',
  'apps/v1/ReplicaSet': 'apps.ReplicaSet', 'apps/v1/StatefulSet': 'apps.StatefulSet', 'apps/v1/DaemonSet': 'apps.DaemonSet',
  'apps/v1/ControllerRevision': 'apps.ControllerRevision',
  'autoscaling/v1/HorizontalPodAutoscaler': 'hpa1.HorizontalPodAutoscaler', 'autoscaling/v2/HorizontalPodAutoscaler': 'hpa.HorizontalPodAutoscaler',
  'autoscaling/v1/Scale': 'hpa1.Scale',
  'networking/v1/NetworkPolicy': 'net.NetworkPolicy', 'networking/v1/IngressClass': 'net.IngressClass',
  'discovery/v1/EndpointSlice': 'disc.EndpointSlice', 'coordination/v1/Lease': 'coord.Lease', 'storage/v1/StorageClass': 'storage.StorageClass',
  'meta/v1/PartialObjectMetadata': 'meta.PartialObjectMetadata', 'meta/v1beta1/PartialObjectMetadata': 'meta.PartialObjectMetadata',
  'meta/v1/PartialObjectMetadataList': 'meta.PartialObjectMetadataList', 'meta/v1beta1/PartialObjectMetadataList': 'metaBeta.PartialObjectMetadataList',
  'v1/APIVersions': 'meta.APIVersions', 'v1/APIGroupList': 'meta.APIGroupList', 'v1/APIGroup': 'meta.APIGroup',
  'v1/APIResourceList': 'meta.APIResourceList',
  'v1/Status': 'meta.Status', 'v1/DeleteOptions': 'meta.DeleteOptions', 'meta/v1/DeleteOptions': 'meta.DeleteOptions',
  'apps/v1/Deployment': 'apps.Deployment',
  'batch/v1/Job': 'batch.Job', 'batch/v1/CronJob': 'batch.CronJob',
  'rbac.authorization/v1/Role': 'rbac.Role', 'rbac.authorization/v1/ClusterRole': 'rbac.ClusterRole',
  'rbac.authorization/v1/RoleBinding': 'rbac.RoleBinding', 'rbac.authorization/v1/ClusterRoleBinding': 'rbac.ClusterRoleBinding',
  'scheduling/v1/PriorityClass': 'sched.PriorityClass',
  'policy/v1/PodDisruptionBudget': 'policy.PodDisruptionBudget', 'policy/v1/Eviction': 'policy.Eviction',
  // the eviction subresource takes v1beta1's Eviction too (the same message)
  'policy/v1beta1/Eviction': 'policy.Eviction',
  'networking/v1/Ingress': 'net.Ingress',
  'authorization/v1/SelfSubjectAccessReview': 'authz.SelfSubjectAccessReview',
  'authorization/v1/SelfSubjectRulesReview': 'authz.SelfSubjectRulesReview',
  'authorization/v1/SubjectAccessReview': 'authz.SubjectAccessReview',
  'authorization/v1/LocalSubjectAccessReview': 'authz.LocalSubjectAccessReview',
  'authentication/v1/TokenRequest': 'authn.TokenRequest', 'authentication/v1/TokenReview': 'authn.TokenReview',
  'authentication/v1/SelfSubjectReview': 'authn.SelfSubjectReview',
  'authentication/v1beta1/SelfSubjectReview': 'authnBeta.SelfSubjectReview',
  'authentication/v1alpha1/SelfSubjectReview': 'authnAlpha.SelfSubjectReview',
  'certificates/v1/CertificateSigningRequest': 'certs.CertificateSigningRequest',
  'v1/Binding': 'core.Binding', 'v1/ComponentStatus': 'core.ComponentStatus', 'events/v1/Event': 'events.Event',
  'node/v1/RuntimeClass': 'node.RuntimeClass',
  'storage/v1/CSIDriver': 'storage.CSIDriver', 'storage/v1/CSINode': 'storage.CSINode',
  'storage/v1/CSIStorageCapacity': 'storage.CSIStorageCapacity', 'storage/v1/VolumeAttachment': 'storage.VolumeAttachment',
  'admissionregistration/v1/MutatingWebhookConfiguration': 'admission.MutatingWebhookConfiguration',
  'admissionregistration/v1/ValidatingWebhookConfiguration': 'admission.ValidatingWebhookConfiguration',
  'flowcontrol.apiserver/v1beta3/FlowSchema': 'fc3.FlowSchema',
  'flowcontrol.apiserver/v1beta3/PriorityLevelConfiguration': 'fc3.PriorityLevelConfiguration',
  'flowcontrol.apiserver/v1beta2/FlowSchema': 'fc2.FlowSchema',
  'flowcontrol.apiserver/v1beta2/PriorityLevelConfiguration': 'fc2.PriorityLevelConfiguration',
  'apiregistration/v1/APIService': 'apireg.APIService',
  'apiextensions/v1/CustomResourceDefinition': 'apiext.CustomResourceDefinition',
};

/** kinds that are never stored, so have no list form */
const unlisted = new Set([
  'Status', 'DeleteOptions', 'Scale', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList', 'PartialObjectMetadata', 'PartialObjectMetadataList', 'Eviction', 'Binding', 'TokenRequest', 'TokenReview', 'SelfSubjectReview', 'SubjectAccessReview',
  'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview',
]);

// every stored kind has its `<Kind>List`: ListMeta metadata = 1, items = 2
for (const [key, short] of Object.entries(kinds)) {
  if (unlisted.has(key.slice(key.lastIndexOf('/') + 1))) continue;
  kinds[`${key}List`] = `${short}List`;
  messages[`${short}List`] ??= { metadata: '1 meta.ListMeta', items: `2 []${short}` };
}

/** group bases that the vendor domain is appended to (`rbac.authorization` → `rbac.authorization.<domain>`) */
export const vendorGroups: ReadonlySet<string> = new Set([
  'meta', 'rbac.authorization', 'scheduling', 'networking', 'authorization', 'authentication', 'certificates',
  'discovery', 'coordination', 'storage', 'events', 'node', 'admissionregistration', 'flowcontrol.apiserver',
  'apiregistration', 'apiextensions',
]);

// ── the parsed form ──────────────────────────────────────────────────────────────────────────────

export type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'double' | 'bytes';
export type Special = 'Time' | 'MicroTime' | 'Quantity' | 'IntOrString' | 'RawExtension' | 'FieldsV1' | 'ExtraValue'
  | 'JSON' | 'JSONSchemaPropsOrArray' | 'JSONSchemaPropsOrBool' | 'JSONSchemaPropsOrStringArray';
/** the type of one value: a scalar, a special type, or a message by definition name */
export type ValueType = { scalar: Scalar } | { special: Special } | { message: string };

export interface FieldDef {
  number: number;
  json: string;
  value: ValueType;
  repeated: boolean;
  /** a map from string keys to `value` */
  map: boolean;
  /** an embedded struct: its fields appear in the parent's JSON */
  inline: boolean;
  /** the reference's JSON keeps this field when it holds the zero value */
  keepZero: boolean;
}

export interface MessageDef {
  name: string;
  /** in the reference's JSON order */
  fields: FieldDef[];
  /** by field number, the order the reference writes them */
  wireOrder: FieldDef[];
  byNumber: Map<number, FieldDef>;
}

const scalars = new Set<string>(['string', 'bool', 'int32', 'int64', 'double', 'bytes']);
const specials = new Set<string>([
  'Time', 'MicroTime', 'Quantity', 'IntOrString', 'RawExtension', 'FieldsV1', 'ExtraValue',
  'JSON', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray',
]);

function definitionName(short: string): string {
  const dot = short.indexOf('.');
  const prefix = definitionPrefixes[short.slice(0, dot)];
  if (dot < 0 || !prefix) throw new Error(`protobuf field table: unknown definition ${short}`);
  return prefix + short.slice(dot + 1);
}

function valueType(s: string): ValueType {
  if (scalars.has(s)) return { scalar: s as Scalar };
  if (specials.has(s)) return { special: s as Special };
  return { message: definitionName(s) };
}

function parseField(json: string, spec: string): FieldDef {
  const m = /^(\d+) (\*)?(inline |\[\]|map\[)?([\w.]+)\]?$/.exec(spec);
  if (!m) throw new Error(`protobuf field table: cannot read "${spec}" for ${json}`);
  const [, number, star, kind, type] = m;
  return {
    number: Number(number), json, value: valueType(type), repeated: kind === '[]', map: kind === 'map[',
    inline: kind === 'inline ', keepZero: star === '*',
  };
}

/** every message definition, by full definition name (io.k8s.api.core.v1.ConfigMap, ...) */
export const protobufMessages: ReadonlyMap<string, MessageDef> = new Map(Object.entries(messages).map(([short, fields]) => {
  const name = definitionName(short);
  const defs = Object.entries(fields).map(([json, spec]) => parseField(json, spec));
  const wireOrder = [...defs].sort((a, b) => a.number - b.number);
  return [name, { name, fields: defs, wireOrder, byNumber: new Map(defs.map((f) => [f.number, f])) }];
}));

/** the message the JSONSchemaPropsOr* unions hold */
export const jsonSchemaPropsDefinition = definitionName('apiext.JSONSchemaProps');

/** top-level kinds: `<group base>/<version>/<Kind>` → full definition name */
export const protobufKindDefinitions: ReadonlyMap<string, string> = new Map(
  Object.entries(kinds).map(([key, short]) => [key, definitionName(short)]),
);
