// RuntimeClass (node/v1): the handler names a CRI runtime configuration and never changes.
import { defineStrategy } from '../strategy.js';
import { dnsLabel, immutable } from '../validation/fields.js';

const handler = (obj: any) => dnsLabel('handler', obj.handler ?? '');

export const runtimeClasses = defineStrategy({
  validate: handler,
  validateUpdate: (obj: any, old: any) => [...handler(obj), ...immutable('handler', obj.handler, old.handler)],
});
