// admissionregistration/v1alpha1 validating admission policies: alpha, served only when --runtime-config enables them.
import type { ValidatingAdmissionPolicy } from '../../../../api/types/admissionregistration-v1alpha1.js';
import * as s from '../../../../api/schemas/admissionregistration.js';
import { define, only, status } from '../../define.js';
import { age, column } from '../../columns.js';
import { strategy } from './strategy.js';

export const definition = define<ValidatingAdmissionPolicy>({
  group: 'admissionregistration', domainGroup: true, categories: ['api-extensions'],
  resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false,
  versions: only('v1alpha1', s.validatingAdmissionPolicy), subresources: status, strategy,
  columns: [
    column('Validations', 'integer', o => (o.spec?.validations ?? []).length, 'Validations indicates the number of validation rules defined in this configuration'),
    column('ParamKind', 'string', o => {
      const p = o.spec?.paramKind;
      return p ? `${p.apiVersion}/${p.kind}` : '<unset>';
    }, 'ParamKind specifies the kind of resources used to parameterize this policy'),
    age,
  ],
});
