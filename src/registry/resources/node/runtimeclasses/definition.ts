// node/v1 runtime classes: the handler names a CRI runtime configuration and never changes.
import type { Stored } from '../../../../api/meta.js';
import type { RuntimeClass } from '../../../../api/types/node-v1.js';
import * as s from '../../../../api/schemas/node-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { dnsLabel, immutable } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const handler = (rc: RuntimeClass) => dnsLabel('handler', rc.handler ?? '');

export const strategy = defineStrategy<Stored<RuntimeClass>>({
  generation: false,
  validate: handler,
  validateUpdate: (rc, old) => [...handler(rc), ...immutable('handler', rc.handler, old.handler)],
});

const columns: TableColumn<RuntimeClass>[] = [column('Handler', 'string', o => o.handler ?? '', 'The underlying runtime.'), age];

export const definition = define<RuntimeClass>({
  group: 'node', domainGroup: true, resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false,
  versions: only('v1', s.runtimeClass), strategy, columns,
});
