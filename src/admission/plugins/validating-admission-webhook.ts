// ValidatingAdmissionWebhook: calls the webhooks of the ValidatingWebhookConfigurations, all at once, in the validating phase.
import { definePlugin } from '../types.js';
import { webhookCredentials } from '../webhook/credentials.js';
import { dispatchValidating } from '../webhook/dispatch.js';

export default definePlugin({
  name: 'ValidatingAdmissionWebhook',
  defaultOn: true,
  create: ({ listers, names, webhooks, authorizer, featureGates, config, configPath }) => {
    const credentials = webhookCredentials('ValidatingAdmissionWebhook', config, configPath, names);
    const deps = webhooks && { source: webhooks, listers, names, authorizer, credentials, matchConditions: featureGates?.AdmissionWebhookMatchConditions === true };
    return {
      name: 'ValidatingAdmissionWebhook',
      async validate(a) { if (deps) await dispatchValidating(a, deps); },
    };
  },
});
