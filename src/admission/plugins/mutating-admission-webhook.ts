// MutatingAdmissionWebhook: calls the webhooks of the MutatingWebhookConfigurations in the mutating phase.
import { definePlugin } from '../types.js';
import { webhookCredentials } from '../webhook/credentials.js';
import { dispatchMutating } from '../webhook/dispatch.js';

export default definePlugin({
  name: 'MutatingAdmissionWebhook',
  defaultOn: true,
  create: ({ listers, names, webhooks, authorizer, featureGates, config, configPath }) => {
    const credentials = webhookCredentials('MutatingAdmissionWebhook', config, configPath, names);
    const deps = webhooks && { source: webhooks, listers, names, authorizer, credentials, matchConditions: featureGates?.AdmissionWebhookMatchConditions === true };
    return {
      name: 'MutatingAdmissionWebhook',
      async admit(a) { if (deps) await dispatchMutating(a, deps); },
      // the store runs only the validating phase for DELETE; a mutating webhook registered for DELETE
      // can still allow or deny it (there is no object to patch), so it is called there
      async validate(a) { if (deps && a.operation === 'DELETE') await dispatchMutating(a, deps); },
    };
  },
});
