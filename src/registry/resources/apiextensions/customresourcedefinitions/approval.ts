// The API approval policy of the vendor's own groups, as the reference keeps it: a CRD whose group is the vendor's
// (the API domain, the label domain and their subdomains) must say in an annotation where its
// API was approved (a URL) or that it is not (a reason starting with "unapproved"). A CRD without a valid one is
// refused, unless an update leaves the annotation's state as it was; the KubernetesAPIApprovalPolicyConformant
// condition reports the state.
import { isApiDomain, naming } from '../../../../api/naming.js';
import type { StatusCause } from '../../../../api/meta.js';
import type { CustomResourceDefinitionCondition } from '../../../../api/types/apiextensions-v1.js';
import { shown } from '../../../../schema/validate.js';

export type ApprovalState = 'Approved' | 'Bypassed' | 'Missing' | 'Invalid';

interface Policy { annotation: string; domains: string[] }

const proposal = 'see https://github.com/kubernetes/enhancements/pull/1111';

/** the policy of the API domain whose apiextensions group is given (`apiextensions.<domain>`) */
export function approvalPolicy(apiextensionsGroup: string): Policy | undefined {
  const domain = apiextensionsGroup.replace(/^apiextensions\./, '');
  if (!isApiDomain(domain)) return undefined;
  const n = naming(domain);
  return { annotation: `api-approved.${n.labelDomain}`, domains: [...new Set([n.domain, n.labelDomain])] };
}

export const isProtectedGroup = (policy: Policy, group: string) => policy.domains.some(d => group === d || group.endsWith(`.${d}`));

const isUrl = (s: string) => {
  try {
    const u = new URL(s);
    return !!u.protocol && !!u.host;
  } catch { return false; }
};

/** the annotation's state and the reference's words for it */
export function approvalState(policy: Policy, annotations: Record<string, string> | undefined): { state: ApprovalState; reason: string } {
  const value = annotations?.[policy.annotation] ?? '';
  if (!value) return { state: 'Missing', reason: `protected groups must have approval annotation "${policy.annotation}", ${proposal}` };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  if (isUrl(value)) return { state: 'Approved', reason: `approved in ${value}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${policy.annotation}" with either a URL or a reason starting with "unapproved", ${proposal}`,
  };
}

interface Approvable { metadata?: { annotations?: Record<string, string> }; spec?: { group?: unknown } }

/** the problems of a create (no old) or an update: only a change of state is judged, so other updates always pass */
export function approvalProblems(apiextensionsGroup: string, crd: Approvable, old?: Approvable): StatusCause[] {
  const policy = approvalPolicy(apiextensionsGroup);
  const group = crd.spec?.group;
  if (!policy || typeof group !== 'string' || !isProtectedGroup(policy, group)) return [];
  const { state, reason } = approvalState(policy, crd.metadata?.annotations);
  if (old && approvalState(policy, old.metadata?.annotations).state === state) return [];
  const field = `metadata.annotations[${policy.annotation}]`;
  if (state === 'Missing') return [{ reason: 'FieldValueRequired', field, message: `Required value: ${reason}` }];
  if (state === 'Invalid')
    return [{ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown(crd.metadata?.annotations?.[policy.annotation])}: ${reason}` }];
  return [];
}

type Condition = Omit<CustomResourceDefinitionCondition, 'lastTransitionTime'>;

const conditionReasons: Record<ApprovalState, string> = {
  Approved: 'ApprovedAnnotation', Bypassed: 'UnapprovedAnnotation', Missing: 'MissingAnnotation', Invalid: 'InvalidAnnotation',
};

/** the KubernetesAPIApprovalPolicyConformant condition of a CRD of a protected group; none for other groups */
export function approvalCondition(apiextensionsGroup: string, crd: Approvable): Condition | undefined {
  const policy = approvalPolicy(apiextensionsGroup);
  const group = crd.spec?.group;
  if (!policy || typeof group !== 'string' || !isProtectedGroup(policy, group)) return undefined;
  const { state, reason } = approvalState(policy, crd.metadata?.annotations);
  return {
    type: 'KubernetesAPIApprovalPolicyConformant', status: state === 'Approved' ? 'True' : 'False',
    reason: conditionReasons[state], message: reason,
  };
}
