// networking/v1 ingress classes: which controller serves an ingress.
import type { Stored } from '../../../../api/meta.js';
import type { IngressClass } from '../../../../api/types/networking-v1.js';
import * as s from '../../../../api/schemas/networking-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { immutable, required } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

export const strategy = defineStrategy<Stored<IngressClass>>({
  validate: ic => {
    const c = ic.spec?.controller;
    if (!c) return [required('spec.controller')];
    return String(c).length > 250 ? [{ reason: 'FieldValueTooLong', field: 'spec.controller', message: 'Too long: must have at most 250 bytes' }] : [];
  },
  validateUpdate: (ic, old) => immutable('spec.controller', ic.spec?.controller, old.spec?.controller),
});

const columns: TableColumn<IngressClass>[] = [
  column('Controller', 'string', o => o.spec?.controller ?? '', 'Controller that implements the ingress class.'),
  column('Parameters', 'string', o => {
    const p = o.spec?.parameters;
    return p ? `${p.kind}${p.apiGroup ? `.${p.apiGroup}` : ''}/${p.name}` : '<none>';
  }, 'Configuration for the controller.'),
  age,
];

export const definition = define<IngressClass>({
  group: 'networking', domainGroup: true, resource: 'ingressclasses', kind: 'IngressClass', namespaced: false,
  versions: only('v1', s.ingressClass), strategy, columns,
});
