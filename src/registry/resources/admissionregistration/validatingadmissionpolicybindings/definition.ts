// admissionregistration/v1alpha1 validating admission policy bindings: alpha, as their policies.
import type { ValidatingAdmissionPolicyBinding } from '../../../../api/types/admissionregistration-v1alpha1.js';
import * as s from '../../../../api/schemas/admissionregistration.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';
import { strategy } from './strategy.js';

export const definition = define<ValidatingAdmissionPolicyBinding>({
  group: 'admissionregistration', domainGroup: true, categories: ['api-extensions'],
  resource: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', namespaced: false,
  versions: only('v1alpha1', s.validatingAdmissionPolicyBinding), strategy,
  columns: [
    column('PolicyName', 'string', o => o.spec?.policyName ?? '', 'PolicyName indicates the policy definition which the policy binding binded to'),
    column('ParamRef', 'string', o => {
      const p = o.spec?.paramRef;
      return p ? (p.namespace ? `${p.namespace}/${p.name}` : `*/${p.name}`) : '<unset>';
    }, 'ParamRef indicates the param resource which sets the configration param'),
    age,
  ],
});
