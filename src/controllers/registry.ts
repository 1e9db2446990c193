// Every controller the controller manager can run, by the reference's names.
import type { Controller } from './context.js';
import { namespaceController } from './namespace.js';
import { nodeLifecycleController } from './node-lifecycle.js';
import { pvProtectionController } from './pv-protection.js';
import { pvcProtectionController } from './pvc-protection.js';
import { persistentVolumeBinderController } from './persistentvolume-binder.js';
import { persistentVolumeExpanderController } from './persistentvolume-expander.js';
import { ephemeralVolumeController } from './ephemeral-volume.js';
import { serviceAccountController } from './serviceaccount.js';
import { replicaSetController } from './replicaset.js';
import { replicationControllerController } from './replication-controller.js';
import { deploymentController } from './deployment.js';
import { garbageCollector } from './garbage-collector.js';
import { jobController } from './job.js';
import { statefulSetController } from './statefulset.js';
import { daemonSetController } from './daemonset.js';
import { disruptionController } from './disruption.js';
import { cronJobController } from './cronjob.js';
import { ttlAfterFinishedController } from './ttl-after-finished.js';
import { endpointsController } from './endpoints.js';
import { endpointSliceController } from './endpointslice.js';
import { endpointSliceMirroringController } from './endpointslice-mirroring.js';
import { rootCaPublisher } from './root-ca-publisher.js';
import { podGcController } from './podgc.js';
import { csrApprovingController } from './csr-approving.js';
import { csrSigningController } from './csr-signing.js';
import { csrCleanerController } from './csr-cleaner.js';
import { tokenCleanerController } from './tokencleaner.js';
import { bootstrapSignerController } from './bootstrapsigner.js';
import { resourceQuotaController } from './resourcequota.js';
import { serviceAccountTokenController } from './serviceaccount-token.js';
import { horizontalPodAutoscalerController } from './horizontal-pod-autoscaler.js';
import { nodeIpamController } from './nodeipam.js';

export const controllers: readonly Controller[] = [
  deploymentController, replicaSetController, replicationControllerController, garbageCollector,
  statefulSetController, daemonSetController, disruptionController, jobController, cronJobController, ttlAfterFinishedController,
  namespaceController, serviceAccountController, nodeLifecycleController, persistentVolumeBinderController, persistentVolumeExpanderController, ephemeralVolumeController, pvcProtectionController, pvProtectionController,
  endpointsController, endpointSliceController, endpointSliceMirroringController, rootCaPublisher, podGcController,
  csrApprovingController, csrSigningController, csrCleanerController, tokenCleanerController, bootstrapSignerController,
  resourceQuotaController, serviceAccountTokenController, horizontalPodAutoscalerController, nodeIpamController,
];
