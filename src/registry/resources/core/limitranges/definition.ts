// core/v1 limit ranges (enforced by the LimitRanger admission plugin).
import * as s from '../../../../api/schemas/core-v1.js';
import { define, only } from '../../define.js';
import { createdAt } from '../../columns.js';

export const definition = define({
  group: '', resource: 'limitranges', kind: 'LimitRange', shortNames: ['limits'], namespaced: true,
  versions: only('v1', s.limitRange), columns: [createdAt],
});
