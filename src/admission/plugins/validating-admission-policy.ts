// ValidatingAdmissionPolicy (alpha, gate ValidatingAdmissionPolicy): the CEL validations of the
// ValidatingAdmissionPolicies and their bindings (admissionregistration.<domain>/v1alpha1), in the validating phase.
import { definePlugin } from '../types.js';
import { validatePolicies } from '../policy/validate.js';

export default definePlugin({
  name: 'ValidatingAdmissionPolicy',
  defaultOn: true,
  create: ({ listers, names, webhooks, authorizer, catalog, featureGates }) => {
    const deps = webhooks && featureGates?.ValidatingAdmissionPolicy === true
      ? { source: webhooks, listers, names, authorizer, catalog } : undefined;
    return {
      name: 'ValidatingAdmissionPolicy',
      async validate(a) { if (deps) await validatePolicies(a, deps); },
    };
  },
});
