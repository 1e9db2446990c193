// The node agent's feature gates with the stages and defaults of the reference release 1.27
// (spec §4.9). AllAlpha and AllBeta are the parser's pseudo-gates.

import type { FeatureSpec, FeatureTable } from '../config/feature-gates.js';

const table = (spec: FeatureSpec, names: string) => Object.fromEntries(names.trim().split(/\s+/).map((n) => [n, spec]));

export const agentFeatureGates: FeatureTable = Object.freeze({
  ...table({ stage: 'BETA', default: true }, `
    APIListChunking APIPriorityAndFairness APIResponseCompression APISelfSubjectReview APIServerIdentity APIServerTracing
    AggregatedDiscoveryEndpoint AnyVolumeDataSource AppArmor CPUManagerPolicyBetaOptions CPUManagerPolicyOptions
    CSINodeExpandSecret ComponentSLIs CustomResourceValidationExpressions ElasticIndexedJob ExpandedDNSConfig
    GracefulNodeShutdown GracefulNodeShutdownBasedOnPodPriority HPAContainerMetrics IPTablesOwnershipCleanup
    JobPodFailurePolicy JobReadyPods KMSv2 KubeletPodResources KubeletPodResourcesGetAllocatable KubeletTracing
    LegacyServiceAccountTokenTracking LogarithmicScaleDown LoggingBetaOptions MatchLabelKeysInPodTopologySpread
    MemoryManager MinDomainsInPodTopologySpread MinimizeIPTablesRestore NewVolumeManagerReconstruction
    NodeInclusionPolicyInPodTopologySpread NodeOutOfServiceVolumeDetach OpenAPIEnums PDBUnhealthyPodEvictionPolicy
    PodDeletionCost PodDisruptionConditions PodSchedulingReadiness ProbeTerminationGracePeriod ProxyTerminatingEndpoints
    ReadWriteOncePod RemainingItemCount RetroactiveDefaultStorageClass RotateKubeletServerCertificate
    SELinuxMountReadWriteOncePod SizeMemoryBackedVolumes StableLoadBalancerNodeSet StatefulSetAutoDeletePVC
    StatefulSetStartOrdinal StorageVersionHash TopologyAwareHints WinOverlay`),
  ...table({ stage: 'BETA', default: false }, `
    CSIMigrationPortworx EventedPLEG ExperimentalHostUserNamespaceDefaulting TopologyManagerPolicyBetaOptions`),
  ...table({ stage: 'ALPHA', default: true }, `WindowsHostNetwork`),
  ...table({ stage: 'ALPHA', default: false }, `
    AdmissionWebhookMatchConditions CPUManagerPolicyAlphaOptions CSIMigrationRBD CSIVolumeHealth
    CloudControllerManagerWebhook CloudDualStackNodeIPs ClusterTrustBundle ContainerCheckpoint ContextualLogging
    CrossNamespaceVolumeDataSource CustomCPUCFSQuotaPeriod DisableCloudProviders DisableKubeletCloudCredentialProviders
    DynamicResourceAllocation HPAScaleToZero HonorPVReclaimPolicy InPlacePodVerticalScaling InTreePluginAWSUnregister
    InTreePluginAzureDiskUnregister InTreePluginAzureFileUnregister InTreePluginGCEUnregister
    InTreePluginOpenStackUnregister InTreePluginPortworxUnregister InTreePluginRBDUnregister
    InTreePluginvSphereUnregister KubeletInUserNamespace KubeletPodResourcesDynamicResources KubeletPodResourcesGet
    LocalStorageCapacityIsolationFSQuotaMonitoring LoggingAlphaOptions MaxUnavailableStatefulSet MemoryQoS
    MultiCIDRRangeAllocator MultiCIDRServiceAllocator NetworkPolicyStatus NodeLogQuery NodeSwap
    PodAndContainerStatsFromCRI PodHasNetworkCondition ProcMountType QOSReserved RecoverVolumeExpansionFailure
    SecurityContextDeny ServiceNodePortStaticSubrange StorageVersionAPI TopologyManagerPolicyAlphaOptions
    TopologyManagerPolicyOptions UserNamespacesStatelessPodsSupport ValidatingAdmissionPolicy VolumeCapacityPriority
    WatchList WinDSR`),
});
