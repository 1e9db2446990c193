// The admission plugins the server knows, in the order they run. The flags select a set; the order lives here.
import type { AdmissionPluginSpec } from './types.js';
import namespaceLifecycle from './plugins/namespace-lifecycle.js';
import alwaysAdmit from './plugins/always-admit.js';
import namespaceExists from './plugins/namespace-exists.js';
import securityContextDeny from './plugins/security-context-deny.js';
import limitPodHardAntiAffinityTopology from './plugins/limit-pod-hard-anti-affinity-topology.js';
import limitRanger from './plugins/limit-ranger.js';
import serviceAccount from './plugins/service-account.js';
import taintNodesByCondition from './plugins/taint-nodes-by-condition.js';
import alwaysPullImages from './plugins/always-pull-images.js';
import podSecurity from './plugins/pod-security.js';
import priority from './plugins/priority.js';
import defaultTolerationSeconds from './plugins/default-toleration-seconds.js';
import defaultStorageClass from './plugins/default-storage-class.js';
import storageObjectInUseProtection from './plugins/storage-object-in-use-protection.js';
import persistentVolumeClaimResize from './plugins/persistent-volume-claim-resize.js';
import runtimeClass from './plugins/runtime-class.js';
import certificateApproval from './plugins/certificate-approval.js';
import certificateSigning from './plugins/certificate-signing.js';
import certificateSubjectRestriction from './plugins/certificate-subject-restriction.js';
import defaultIngressClass from './plugins/default-ingress-class.js';
import denyServiceExternalIPs from './plugins/deny-service-external-ips.js';
import resourceQuota from './plugins/resource-quota.js';
import alwaysDeny from './plugins/always-deny.js';
import mutatingAdmissionWebhook from './plugins/mutating-admission-webhook.js';
import validatingAdmissionWebhook from './plugins/validating-admission-webhook.js';

export const admissionPlugins: readonly AdmissionPluginSpec[] = [
  alwaysAdmit,
  namespaceLifecycle,
  namespaceExists,
  securityContextDeny,
  limitPodHardAntiAffinityTopology,
  limitRanger,
  serviceAccount,
  taintNodesByCondition,
  alwaysPullImages,
  podSecurity,
  priority,
  defaultTolerationSeconds,
  defaultStorageClass,
  storageObjectInUseProtection,
  persistentVolumeClaimResize,
  runtimeClass,
  certificateApproval,
  certificateSigning,
  certificateSubjectRestriction,
  defaultIngressClass,
  denyServiceExternalIPs,
  mutatingAdmissionWebhook,
  // (ValidatingAdmissionPolicy runs here)
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
