// The admission plugins the server knows, in the order they run. The flags select a set; the order lives here.
import type { Naming } from '../api/naming.js';
import type { AdmissionPluginSpec } from './types.js';
import alwaysAdmit from './plugins/always-admit.js';
import namespaceAutoProvision from './plugins/namespace-auto-provision.js';
import namespaceLifecycle from './plugins/namespace-lifecycle.js';
import namespaceExists from './plugins/namespace-exists.js';
import securityContextDeny from './plugins/security-context-deny.js';
import limitPodHardAntiAffinityTopology from './plugins/limit-pod-hard-anti-affinity-topology.js';
import limitRanger from './plugins/limit-ranger.js';
import serviceAccount from './plugins/service-account.js';
import nodeRestriction from './plugins/node-restriction.js';
import taintNodesByCondition from './plugins/taint-nodes-by-condition.js';
import alwaysPullImages from './plugins/always-pull-images.js';
import imagePolicyWebhook from './plugins/image-policy-webhook.js';
import podSecurity from './plugins/pod-security.js';
import podNodeSelector from './plugins/pod-node-selector.js';
import priority from './plugins/priority.js';
import defaultTolerationSeconds from './plugins/default-toleration-seconds.js';
import podTolerationRestriction from './plugins/pod-toleration-restriction.js';
import eventRateLimit from './plugins/event-rate-limit.js';
import extendedResourceToleration from './plugins/extended-resource-toleration.js';
import persistentVolumeLabel from './plugins/persistent-volume-label.js';
import defaultStorageClass from './plugins/default-storage-class.js';
import storageObjectInUseProtection from './plugins/storage-object-in-use-protection.js';
import ownerReferencesPermissionEnforcement from './plugins/owner-references-permission-enforcement.js';
import persistentVolumeClaimResize from './plugins/persistent-volume-claim-resize.js';
import runtimeClass from './plugins/runtime-class.js';
import certificateApproval from './plugins/certificate-approval.js';
import certificateSigning from './plugins/certificate-signing.js';
import certificateSubjectRestriction from './plugins/certificate-subject-restriction.js';
import defaultIngressClass from './plugins/default-ingress-class.js';
import denyServiceExternalIPs from './plugins/deny-service-external-ips.js';
import mutatingAdmissionWebhook from './plugins/mutating-admission-webhook.js';
import validatingAdmissionPolicy from './plugins/validating-admission-policy.js';
import validatingAdmissionWebhook from './plugins/validating-admission-webhook.js';
import resourceQuota from './plugins/resource-quota.js';
import alwaysDeny from './plugins/always-deny.js';

export const admissionPlugins: readonly AdmissionPluginSpec[] = [
  alwaysAdmit,
  namespaceAutoProvision,
  namespaceLifecycle,
  namespaceExists,
  securityContextDeny,
  limitPodHardAntiAffinityTopology,
  limitRanger,
  serviceAccount,
  nodeRestriction,
  taintNodesByCondition,
  alwaysPullImages,
  imagePolicyWebhook,
  podSecurity,
  podNodeSelector,
  priority,
  defaultTolerationSeconds,
  podTolerationRestriction,
  eventRateLimit,
  extendedResourceToleration,
  persistentVolumeLabel,
  defaultStorageClass,
  storageObjectInUseProtection,
  ownerReferencesPermissionEnforcement,
  persistentVolumeClaimResize,
  runtimeClass,
  certificateApproval,
  certificateSigning,
  certificateSubjectRestriction,
  defaultIngressClass,
  denyServiceExternalIPs,
  // the webhooks, policies, quota and deny come last, so they see what every other plugin did
  mutatingAdmissionWebhook,
  validatingAdmissionPolicy,
  validatingAdmissionWebhook,
  resourceQuota,
  alwaysDeny,
];

/** the enabled plugins: the defaults, plus those enabled, less those disabled; unknown names are refused */
export function selectPlugins(enable: string[], disable: string[]): AdmissionPluginSpec[] {
  const known = new Set(admissionPlugins.map(p => p.name));
  for (const n of [...enable, ...disable])
    if (!known.has(n)) throw new Error(`unknown admission plugin "${n}": known plugins are ${[...known].join(', ')}`);
  return admissionPlugins.filter(p => (p.defaultOn || enable.includes(p.name)) && !disable.includes(p.name));
}

/**
 * A webhook plugin turned off while its configuration kind is still served would store configurations that
 * nothing calls: the server refuses to start and says what to turn off as well.
 */
export function checkWebhookPlugins(enabled: readonly AdmissionPluginSpec[], names: Naming,
  served: (group: string, version: string, resource: string) => boolean): void {
  const group = names.group('admissionregistration');
  const pairs: Array<[string, string]> = [
    [mutatingAdmissionWebhook.name, 'mutatingwebhookconfigurations'], [validatingAdmissionWebhook.name, 'validatingwebhookconfigurations']];
  for (const [plugin, resource] of pairs) {
    if (enabled.some(p => p.name === plugin) || !served(group, 'v1', resource)) continue;
    throw new Error(`admission plugin ${plugin} is disabled but ${group}/v1 ${resource} are still served, so they would be stored and never called: `
      + `also add --runtime-config=${group}/v1/${resource}=false, or enable the plugin`);
  }
}

/**
 * AlwaysDeny refuses every write, those of the server's own clients too (admission applies to them, as in the
 * reference, whose kube-apiserver then fails its start-up hooks on a new store). The components the server runs as its
 * own clients could never take their leases or register, and start-up would wait on them for ever: refused at once.
 */
export function checkAlwaysDeny(enabled: readonly AdmissionPluginSpec[], ownClients: ReadonlyArray<{ what: string; flag: string }>): void {
  if (!enabled.includes(alwaysDeny) || !ownClients.length) return;
  throw new Error(`admission plugin AlwaysDeny refuses every write, including those of the ${ownClients.map(c => c.what).join(', ')} this server `
    + `runs as its own clients (their leases and registration), which could then never start: turn them off with `
    + `${ownClients.map(c => c.flag).join(' ')} and run them apart, as the reference's kube-apiserver runs alone`);
}
