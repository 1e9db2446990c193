// The built-in resources of the API server, in the reference's discovery order of groups
// (the legacy core group first, then the groups in their priority order).
import type { ResourceDefinition } from '../types.js';
import { coreResources } from './core.js';
import { apiregistrationResources } from './apiregistration.js';
import { appsResources } from './apps.js';
import { eventsResources } from './events.js';
import { authenticationResources } from './authentication.js';
import { authorizationResources } from './authorization.js';
import { autoscalingResources } from './autoscaling.js';
import { batchResources } from './batch.js';
import { certificatesResources } from './certificates.js';
import { networkingResources } from './networking.js';
import { policyResources } from './policy.js';
import { rbacResources } from './rbac.js';
import { storageResources } from './storage.js';
import { admissionregistrationResources } from './admissionregistration.js';
import { apiextensionsResources } from './apiextensions.js';
import { schedulingResources } from './scheduling.js';
import { coordinationResources } from './coordination.js';
import { nodeResources } from './node.js';
import { discoveryResources } from './discovery.js';
import { flowcontrolResources } from './flowcontrol.js';

export const builtinResources: ResourceDefinition[] = [
  ...coreResources,
  ...apiregistrationResources,
  ...appsResources,
  ...eventsResources,
  ...authenticationResources,
  ...authorizationResources,
  ...autoscalingResources,
  ...batchResources,
  ...certificatesResources,
  ...networkingResources,
  ...policyResources,
  ...rbacResources,
  ...storageResources,
  ...admissionregistrationResources,
  ...apiextensionsResources,
  ...schedulingResources,
  ...coordinationResources,
  ...nodeResources,
  ...discoveryResources,
  ...flowcontrolResources,
];
