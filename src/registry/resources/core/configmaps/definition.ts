// core/v1 configmaps: keys, a size limit, and `immutable`.
import type { Stored } from '../../../../api/meta.js';
import type { ConfigMap } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import type { Causes } from '../../../validation/fields.js';
import { invalid } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column, count } from '../../columns.js';
import { dataKeyCauses, decodedLength, immutableData, keyCauses, maxDataBytes, textLength, tooLong } from './keys.js';

function validateConfigMap(cm: ConfigMap): Causes {
  const out: Causes = [];
  let size = 0;
  if (cm.data) size += dataKeyCauses('data', cm.data, out, textLength);
  for (const k in cm.binaryData) {
    out.push(...keyCauses('binaryData', k));
    if (cm.data && k in cm.data) out.push(invalid(`binaryData[${k}]`, k, 'duplicate of key present in data'));
    size += decodedLength(cm.binaryData[k]);
  }
  if (size > maxDataBytes) out.push(tooLong('', maxDataBytes));
  return out;
}

export const strategy = defineStrategy<Stored<ConfigMap>>({
  generation: false,
  validate: validateConfigMap,
  validateUpdate: (cm, old) => [...validateConfigMap(cm), ...immutableData(cm, old, ['data', 'binaryData'])],
});

const columns: TableColumn<ConfigMap>[] = [
  column('Data', 'string', o => count(o.data) + count(o.binaryData), 'Data contains the configuration data.'),
  age,
];

export const definition = define<ConfigMap>({
  group: '', resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'], namespaced: true,
  versions: only('v1', s.configMap), strategy, columns,
});
