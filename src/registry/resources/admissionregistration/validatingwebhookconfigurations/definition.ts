// admissionregistration/v1 validating webhook configurations.
import type { ValidatingWebhookConfiguration } from '../../../../api/types/admissionregistration-v1.js';
import * as s from '../../../../api/schemas/admissionregistration.js';
import { define, only } from '../../define.js';
import { webhookConfigurationColumns, webhookConfigurationStrategy } from '../webhooks.js';

export const definition = define<ValidatingWebhookConfiguration>({
  group: 'admissionregistration', domainGroup: true, categories: ['api-extensions'],
  resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false,
  versions: only('v1', s.validatingWebhookConfiguration),
  strategy: webhookConfigurationStrategy(false), columns: webhookConfigurationColumns,
});
