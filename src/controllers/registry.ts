// Every controller the controller manager can run, by the reference's names.
import type { Controller } from './context.js';
import { namespaceController } from './namespace.js';
import { nodeLifecycleController } from './node-lifecycle.js';
import { pvProtectionController } from './pv-protection.js';
import { pvcProtectionController } from './pvc-protection.js';
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

export const controllers: readonly Controller[] = [
  deploymentController, replicaSetController, replicationControllerController, garbageCollector,
  statefulSetController, daemonSetController, disruptionController, jobController, cronJobController, ttlAfterFinishedController,
  namespaceController, serviceAccountController, nodeLifecycleController, pvcProtectionController, pvProtectionController,
];
