// core/v1 service accounts, and the tokens the server issues for them.
import type { ServiceAccount } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { createOnly, define, only } from '../../define.js';
import { age, column } from '../../columns.js';
import { requestToken } from './token.js';

const columns: TableColumn<ServiceAccount>[] = [
  column('Secrets', 'string', o => (o.secrets ?? []).length, 'Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount.'),
  age,
];

export const definition = define<ServiceAccount>({
  group: '', resource: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'], namespaced: true,
  versions: only('v1', s.serviceAccount),
  subresources: {
    token: { verbs: createOnly, kind: 'TokenRequest', group: 'authentication', domainGroup: true, version: 'v1', schema: s.tokenRequest, rest: { create: requestToken } },
  },
  strategy: defineStrategy({ generation: false }),
  columns,
});
