// core/v1 secrets.
import type { Secret } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { define, only } from '../../define.js';
import { age, column, count } from '../../columns.js';
import { strategy } from './strategy.js';

const columns: TableColumn<Secret>[] = [
  column('Type', 'string', o => o.type ?? '', 'The type of the secret'),
  column('Data', 'string', o => count(o.data), 'The number of entries in the secret'),
  age,
];

export const definition = define<Secret>({
  group: '', resource: 'secrets', kind: 'Secret', namespaced: true, versions: only('v1', s.secret), strategy, columns,
});
