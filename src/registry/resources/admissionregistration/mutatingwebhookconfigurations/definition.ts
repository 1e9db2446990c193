// admissionregistration/v1 mutating webhook configurations.
import type { MutatingWebhookConfiguration } from '../../../../api/types/admissionregistration-v1.js';
import * as s from '../../../../api/schemas/admissionregistration.js';
import { define, only } from '../../define.js';
import { webhookConfigurationColumns, webhookConfigurationStrategy } from '../webhooks.js';

export const definition = define<MutatingWebhookConfiguration>({
  group: 'admissionregistration', domainGroup: true, categories: ['api-extensions'],
  resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false,
  versions: only('v1', s.mutatingWebhookConfiguration),
  strategy: webhookConfigurationStrategy(true), columns: webhookConfigurationColumns,
});
