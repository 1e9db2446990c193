// The built-in resources of the API server, one folder each (resources/<group>/<resource>/), in the reference's
// discovery order: the legacy core group first, then the groups in their priority order.
import type { ResourceDefinition } from '../types.js';
import { definition as bindings } from './core/bindings/definition.js';
import { definition as componentstatuses } from './core/componentstatuses/definition.js';
import { definition as configmaps } from './core/configmaps/definition.js';
import { definition as endpoints } from './core/endpoints/definition.js';
import { definition as events } from './core/events/definition.js';
import { definition as limitranges } from './core/limitranges/definition.js';
import { definition as namespaces } from './core/namespaces/definition.js';
import { definition as nodes } from './core/nodes/definition.js';
import { definition as persistentvolumeclaims } from './core/persistentvolumeclaims/definition.js';
import { definition as persistentvolumes } from './core/persistentvolumes/definition.js';
import { definition as pods } from './core/pods/definition.js';
import { definition as podtemplates } from './core/podtemplates/definition.js';
import { definition as replicationcontrollers } from './core/replicationcontrollers/definition.js';
import { definition as resourcequotas } from './core/resourcequotas/definition.js';
import { definition as secrets } from './core/secrets/definition.js';
import { definition as serviceaccounts } from './core/serviceaccounts/definition.js';
import { definition as services } from './core/services/definition.js';
import { definition as apiservices } from './apiregistration/apiservices/definition.js';
import { definition as controllerrevisions } from './apps/controllerrevisions/definition.js';
import { definition as daemonsets } from './apps/daemonsets/definition.js';
import { definition as deployments } from './apps/deployments/definition.js';
import { definition as replicasets } from './apps/replicasets/definition.js';
import { definition as statefulsets } from './apps/statefulsets/definition.js';
import { definition as eventsV1 } from './events/events/definition.js';
import { definition as selfsubjectreviews } from './authentication/selfsubjectreviews/definition.js';
import { definition as tokenreviews } from './authentication/tokenreviews/definition.js';
import { definition as localsubjectaccessreviews } from './authorization/localsubjectaccessreviews/definition.js';
import { definition as selfsubjectaccessreviews } from './authorization/selfsubjectaccessreviews/definition.js';
import { definition as selfsubjectrulesreviews } from './authorization/selfsubjectrulesreviews/definition.js';
import { definition as subjectaccessreviews } from './authorization/subjectaccessreviews/definition.js';
import { definition as horizontalpodautoscalers } from './autoscaling/horizontalpodautoscalers/definition.js';
import { definition as cronjobs } from './batch/cronjobs/definition.js';
import { definition as jobs } from './batch/jobs/definition.js';
import { definition as certificatesigningrequests } from './certificates/certificatesigningrequests/definition.js';
import { definition as ingressclasses } from './networking/ingressclasses/definition.js';
import { definition as ingresses } from './networking/ingresses/definition.js';
import { definition as networkpolicies } from './networking/networkpolicies/definition.js';
import { definition as poddisruptionbudgets } from './policy/poddisruptionbudgets/definition.js';
import { definition as clusterrolebindings } from './rbac/clusterrolebindings/definition.js';
import { definition as clusterroles } from './rbac/clusterroles/definition.js';
import { definition as rolebindings } from './rbac/rolebindings/definition.js';
import { definition as roles } from './rbac/roles/definition.js';
import { definition as csidrivers } from './storage/csidrivers/definition.js';
import { definition as csinodes } from './storage/csinodes/definition.js';
import { definition as csistoragecapacities } from './storage/csistoragecapacities/definition.js';
import { definition as storageclasses } from './storage/storageclasses/definition.js';
import { definition as volumeattachments } from './storage/volumeattachments/definition.js';
import { definition as mutatingwebhookconfigurations } from './admissionregistration/mutatingwebhookconfigurations/definition.js';
import { definition as validatingwebhookconfigurations } from './admissionregistration/validatingwebhookconfigurations/definition.js';
import { definition as validatingadmissionpolicies } from './admissionregistration/validatingadmissionpolicies/definition.js';
import { definition as validatingadmissionpolicybindings } from './admissionregistration/validatingadmissionpolicybindings/definition.js';
import { definition as customresourcedefinitions } from './apiextensions/customresourcedefinitions/definition.js';
import { definition as priorityclasses } from './scheduling/priorityclasses/definition.js';
import { definition as leases } from './coordination/leases/definition.js';
import { definition as runtimeclasses } from './node/runtimeclasses/definition.js';
import { definition as endpointslices } from './discovery/endpointslices/definition.js';
import { definition as flowschemas } from './flowcontrol/flowschemas/definition.js';
import { definition as prioritylevelconfigurations } from './flowcontrol/prioritylevelconfigurations/definition.js';

export const builtinResources: ResourceDefinition[] = [
  /* core */ bindings, componentstatuses, configmaps, endpoints, events, limitranges, namespaces, nodes,
  persistentvolumeclaims, persistentvolumes, pods, podtemplates, replicationcontrollers, resourcequotas, secrets,
  serviceaccounts, services,
  /* apiregistration */ apiservices,
  /* apps */ controllerrevisions, daemonsets, deployments, replicasets, statefulsets,
  /* events */ eventsV1,
  /* authentication */ selfsubjectreviews, tokenreviews,
  /* authorization */ localsubjectaccessreviews, selfsubjectaccessreviews, selfsubjectrulesreviews,
  subjectaccessreviews,
  /* autoscaling */ horizontalpodautoscalers,
  /* batch */ cronjobs, jobs,
  /* certificates */ certificatesigningrequests,
  /* networking */ ingressclasses, ingresses, networkpolicies,
  /* policy */ poddisruptionbudgets,
  /* rbac */ clusterrolebindings, clusterroles, rolebindings, roles,
  /* storage */ csidrivers, csinodes, csistoragecapacities, storageclasses, volumeattachments,
  /* admissionregistration */ mutatingwebhookconfigurations, validatingwebhookconfigurations,
  validatingadmissionpolicies, validatingadmissionpolicybindings,
  /* apiextensions */ customresourcedefinitions,
  /* scheduling */ priorityclasses,
  /* coordination */ leases,
  /* node */ runtimeclasses,
  /* discovery */ endpointslices,
  /* flowcontrol */ flowschemas, prioritylevelconfigurations,
];
