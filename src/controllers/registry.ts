// Every controller the controller manager can run, by the reference's names.
import type { Controller } from './manager.js';
import { namespaceController } from './namespace.js';
import { nodeLifecycleController } from './node-lifecycle.js';
import { pvProtectionController } from './pv-protection.js';
import { pvcProtectionController } from './pvc-protection.js';
import { serviceAccountController } from './serviceaccount.js';

export const controllers: readonly Controller[] = [
  namespaceController, serviceAccountController, nodeLifecycleController, pvcProtectionController, pvProtectionController,
];
