// admissionregistration: webhook configurations (v1) and, when enabled, the alpha CEL policies (v1alpha1).
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/admissionregistration.js';
import { define, only, status } from './define.js';
import * as c from './columns.js';

const group = { group: 'admissionregistration', domainGroup: true, categories: ['api-extensions'] };

export const admissionregistrationResources: ResourceDefinition[] = [
  define({
    ...group, resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false,
    versions: only('v1', s.mutatingWebhookConfiguration), columns: c.webhookConfigurationColumns,
  }),
  define({
    ...group, resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false,
    versions: only('v1', s.validatingWebhookConfiguration), columns: c.webhookConfigurationColumns,
  }),
  // alpha: the name says so, and the server serves alpha versions only when --runtime-config enables them
  define({
    ...group, resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false,
    versions: only('v1alpha1', s.validatingAdmissionPolicy), subresources: status,
    columns: [
      c.column('Validations', 'integer', o => (o.spec?.validations ?? []).length, 'Validations indicates the number of validation rules defined in this configuration'),
      c.column('ParamKind', 'string', o => {
        const p = o.spec?.paramKind;
        return p ? `${p.apiVersion}/${p.kind}` : '<unset>';
      }, 'ParamKind specifies the kind of resources used to parameterize this policy'),
      c.age,
    ],
  }),
  define({
    ...group, resource: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', namespaced: false,
    versions: only('v1alpha1', s.validatingAdmissionPolicyBinding),
    columns: [
      c.column('PolicyName', 'string', o => o.spec?.policyName ?? '', 'PolicyName indicates the policy definition which the policy binding binded to'),
      c.column('ParamRef', 'string', o => {
        const p = o.spec?.paramRef;
        return p ? (p.namespace ? `${p.namespace}/${p.name}` : `*/${p.name}`) : '<unset>';
      }, 'ParamRef indicates the param resource which sets the configration param'),
      c.age,
    ],
  }),
];
