// Strategies of the built-in resources, by "<group base>/<resource>" as the catalog names them.
import { defaultStrategy, defineStrategy, fieldAt, selectable, type Strategy } from '../strategy.js';
import { namespaces } from './namespaces.js';
import { pods } from './pods.js';
import { services } from '../resources/core/services/strategy.js';
import { cronJobs, daemonSets, deployments, jobs, podTemplates, replicaSets, replicationControllers, statefulSets } from './workloads.js';
import { configMaps, endpoints, persistentVolumeClaims, persistentVolumes, secrets, serviceAccounts } from './config.js';
import {
  clusterRoleBindings, clusterRoles, endpointSlices, horizontalPodAutoscalers, ingressClasses, ingresses, leases, networkPolicies,
  podDisruptionBudgets, priorityClasses, roleBindings, roles,
} from './others.js';
import { customResourceDefinitions } from '../crd/crd-strategy.js';
import { mutatingWebhookConfigurations, validatingWebhookConfigurations } from './webhook-configurations.js';
import { certificateSigningRequests } from './certificates.js';
import { csiDrivers, volumeAttachments } from './storage.js';
import { runtimeClasses } from './node.js';
import { eventsV1 } from './events.js';
import { apiServices } from './apiservices.js';

const strategies: Record<string, Strategy> = {
  '/namespaces': namespaces,
  '/pods': pods,
  '/services': services,
  '/configmaps': configMaps,
  '/secrets': secrets,
  '/serviceaccounts': serviceAccounts,
  '/endpoints': endpoints,
  '/persistentvolumeclaims': persistentVolumeClaims,
  '/persistentvolumes': persistentVolumes,
  '/replicationcontrollers': replicationControllers,
  '/podtemplates': podTemplates,
  'apps/deployments': deployments,
  'apps/replicasets': replicaSets,
  'apps/statefulsets': statefulSets,
  'apps/daemonsets': daemonSets,
  'batch/jobs': jobs,
  'batch/cronjobs': cronJobs,
  'autoscaling/horizontalpodautoscalers': horizontalPodAutoscalers,
  'policy/poddisruptionbudgets': podDisruptionBudgets,
  'networking/ingresses': ingresses,
  'networking/ingressclasses': ingressClasses,
  'networking/networkpolicies': networkPolicies,
  'discovery/endpointslices': endpointSlices,
  'scheduling/priorityclasses': priorityClasses,
  '/events': defineStrategy({
    generation: false, allowCreateOnUpdate: true, nameRule: 'path-segment',
    selectableFields: {
      ...selectable('involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
        'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'type'),
      source: fieldAt('source.component'),
    },
  }),
  '/nodes': defineStrategy({ generation: false, selectableFields: { 'spec.unschedulable': o => String(!!o.spec?.unschedulable) } }),
  'coordination/leases': leases,
  'rbac.authorization/roles': roles,
  'rbac.authorization/rolebindings': roleBindings,
  'rbac.authorization/clusterroles': clusterRoles,
  'rbac.authorization/clusterrolebindings': clusterRoleBindings,
  'apiextensions/customresourcedefinitions': customResourceDefinitions,
  'admissionregistration/mutatingwebhookconfigurations': mutatingWebhookConfigurations,
  'admissionregistration/validatingwebhookconfigurations': validatingWebhookConfigurations,
  'certificates/certificatesigningrequests': certificateSigningRequests,
  'storage/csidrivers': csiDrivers,
  'storage/volumeattachments': volumeAttachments,
  'node/runtimeclasses': runtimeClasses,
  'events/events': eventsV1,
  'apiregistration/apiservices': apiServices,
};

export function strategyFor(groupBase: string, resource: string): Strategy {
  return strategies[`${groupBase}/${resource}`] ?? defaultStrategy;
}
