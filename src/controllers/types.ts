// The objects the controllers read and write, from the generated types of src/api/types, as the server
// returns them (metadata always set, spec defaulted), and typed references to their collections.

import type { ObjectMeta, OwnerReference, LabelSelector, LabelSelectorRequirement, IntOrString } from '../api/types/meta-v1.js';
import type * as core from '../api/types/core-v1.js';
import type * as apps from '../api/types/apps-v1.js';
import type * as batch from '../api/types/batch-v1.js';
import type * as policy from '../api/types/policy-v1.js';
import type * as discovery from '../api/types/discovery-v1.js';
import type * as certificates from '../api/types/certificates-v1.js';
import type * as coordination from '../api/types/coordination-v1.js';
import type * as autoscaling from '../api/types/autoscaling-v2.js';
import type * as storage from '../api/types/storage-v1.js';
import type { Naming } from '../api/naming.js';
import { resourceRef, type ResourceRef } from '../client/rest-client.js';

export type { ObjectMeta, OwnerReference, LabelSelector, LabelSelectorRequirement, IntOrString };

/** an object as the server returns it: with metadata */
export interface Obj { apiVersion?: string; kind?: string; metadata: ObjectMeta }
/** a stored object: metadata always set and, where given, its spec (defaulted by the server) too */
type Served<T extends { metadata?: ObjectMeta }> = Omit<T, 'metadata'> & { metadata: ObjectMeta };
type WithSpec<T extends { metadata?: ObjectMeta; spec?: unknown }, S> = Omit<Served<T>, 'spec'> & { spec: S };

/** the condition shape shared by the kinds' status conditions */
export interface Condition {
  type: string; status: string; reason?: string; message?: string;
  lastTransitionTime?: string | null; lastUpdateTime?: string | null; lastProbeTime?: string | null;
}

export type Toleration = core.Toleration;
export type Taint = core.Taint;
export type Container = core.Container;
export type Volume = core.Volume;
export type PodSpec = core.PodSpec;
export type ContainerStatus = core.ContainerStatus;
export type PodStatus = core.PodStatus;
export type PodTemplateSpec = core.PodTemplateSpec & { spec: core.PodSpec };
export type Pod = WithSpec<core.Pod, core.PodSpec>;
export type Node = Served<core.Node>;
export type Namespace = Served<core.Namespace>;
export type ServiceAccount = Served<core.ServiceAccount>;
export type PersistentVolumeClaim = Served<core.PersistentVolumeClaim>;
/** a claim template of a StatefulSet: named, with a spec */
export type ClaimTemplate = WithSpec<core.PersistentVolumeClaim, core.PersistentVolumeClaimSpec>;
export type PersistentVolume = Served<core.PersistentVolume>;
export type StorageClass = Served<storage.StorageClass>;
export type Service = Served<core.Service>;
export type ServicePort = core.ServicePort;
export type Endpoints = Served<core.Endpoints>;
export type EndpointSubset = core.EndpointSubset;
export type EndpointAddress = core.EndpointAddress;
export type EndpointSlice = Served<discovery.EndpointSlice>;
export type SliceEndpoint = discovery.Endpoint;
export type SlicePort = discovery.EndpointPort;
export type ConfigMap = Served<core.ConfigMap>;
export type Secret = Served<core.Secret>;
export type ResourceQuota = Served<core.ResourceQuota>;
export type NodeLease = Served<coordination.Lease>;
export type CertificateSigningRequest = WithSpec<certificates.CertificateSigningRequest, certificates.CertificateSigningRequestSpec>;
export type ReplicationController = WithSpec<core.ReplicationController, Omit<core.ReplicationControllerSpec, 'template'> & { template?: PodTemplateSpec }>;

export type ReplicaSetStatus = apps.ReplicaSetStatus;
export type ReplicaSet = WithSpec<apps.ReplicaSet, apps.ReplicaSetSpec & { template: PodTemplateSpec }>;
export type Deployment = WithSpec<apps.Deployment, apps.DeploymentSpec & { template: PodTemplateSpec }>;
export type DeploymentStatus = apps.DeploymentStatus;
export type StatefulSet = WithSpec<apps.StatefulSet, Omit<apps.StatefulSetSpec, 'volumeClaimTemplates'> & { template: PodTemplateSpec; volumeClaimTemplates?: ClaimTemplate[] }>;
export type StatefulSetStatus = apps.StatefulSetStatus;
export type DaemonSet = WithSpec<apps.DaemonSet, apps.DaemonSetSpec & { template: PodTemplateSpec }>;
export type DaemonSetStatus = apps.DaemonSetStatus;
export type ControllerRevision = Served<apps.ControllerRevision>;

export type PodFailurePolicyRule = batch.PodFailurePolicyRule;
export type JobSpec = batch.JobSpec & { template: PodTemplateSpec };
export type JobStatus = batch.JobStatus;
export type Job = WithSpec<batch.Job, JobSpec>;
export type CronJobStatus = batch.CronJobStatus;
export type CronJob = WithSpec<batch.CronJob, batch.CronJobSpec & { jobTemplate: { metadata?: ObjectMeta; spec: JobSpec } }>;

export type PodDisruptionBudget = Served<policy.PodDisruptionBudget>;
export type HorizontalPodAutoscaler = WithSpec<autoscaling.HorizontalPodAutoscaler, autoscaling.HorizontalPodAutoscalerSpec>;

/** Typed references to the collections the controllers use; the groups named by the API domain come from `names`. */
export function refs(names: Naming) {
  return {
    pods: resourceRef<Pod>('', 'v1', 'pods', 'Pod'),
    nodes: resourceRef<Node>('', 'v1', 'nodes', 'Node', false),
    namespaces: resourceRef<Namespace>('', 'v1', 'namespaces', 'Namespace', false),
    serviceAccounts: resourceRef<ServiceAccount>('', 'v1', 'serviceaccounts', 'ServiceAccount'),
    persistentVolumeClaims: resourceRef<PersistentVolumeClaim>('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
    persistentVolumes: resourceRef<PersistentVolume>('', 'v1', 'persistentvolumes', 'PersistentVolume', false),
    storageClasses: resourceRef<StorageClass>(names.group('storage'), 'v1', 'storageclasses', 'StorageClass', false),
    replicationControllers: resourceRef<ReplicationController>('', 'v1', 'replicationcontrollers', 'ReplicationController'),
    deployments: resourceRef<Deployment>('apps', 'v1', 'deployments', 'Deployment'),
    replicaSets: resourceRef<ReplicaSet>('apps', 'v1', 'replicasets', 'ReplicaSet'),
    statefulSets: resourceRef<StatefulSet>('apps', 'v1', 'statefulsets', 'StatefulSet'),
    daemonSets: resourceRef<DaemonSet>('apps', 'v1', 'daemonsets', 'DaemonSet'),
    controllerRevisions: resourceRef<ControllerRevision>('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
    jobs: resourceRef<Job>('batch', 'v1', 'jobs', 'Job'),
    cronJobs: resourceRef<CronJob>('batch', 'v1', 'cronjobs', 'CronJob'),
    podDisruptionBudgets: resourceRef<PodDisruptionBudget>('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
    services: resourceRef<Service>('', 'v1', 'services', 'Service'),
    endpoints: resourceRef<Endpoints>('', 'v1', 'endpoints', 'Endpoints'),
    endpointSlices: resourceRef<EndpointSlice>(names.group('discovery'), 'v1', 'endpointslices', 'EndpointSlice'),
    configMaps: resourceRef<ConfigMap>('', 'v1', 'configmaps', 'ConfigMap'),
    secrets: resourceRef<Secret>('', 'v1', 'secrets', 'Secret'),
    resourceQuotas: resourceRef<ResourceQuota>('', 'v1', 'resourcequotas', 'ResourceQuota'),
    nodeLeases: resourceRef<NodeLease>(names.group('coordination'), 'v1', 'leases', 'Lease'),
    certificateSigningRequests: resourceRef<CertificateSigningRequest>(names.group('certificates'), 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
    leases: resourceRef<import('../client/leader-election.js').Lease>(names.group('coordination'), 'v1', 'leases', 'Lease'),
  };
}
export type Refs = ReturnType<typeof refs>;

export type { ResourceRef };
