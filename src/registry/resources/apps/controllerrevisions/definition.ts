// apps/v1 controller revisions: the stored history of a workload's template.
import type { ControllerRevision } from '../../../../api/types/apps-v1.js';
import * as s from '../../../../api/schemas/apps-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const columns: TableColumn<ControllerRevision>[] = [
  column('Controller', 'string', o => {
    const owner = (o.metadata?.ownerReferences ?? []).find(r => r.controller);
    if (!owner) return '<none>';
    const group = String(owner.apiVersion ?? '').split('/').slice(0, -1).join('/');
    return `${owner.kind.toLowerCase()}${group ? `.${group}` : ''}/${owner.name}`;
  }, 'Controller of the object'),
  column('Revision', 'integer', o => o.revision ?? 0, 'Revision indicates the revision of the state represented by Data.'),
  age,
];

export const definition = define<ControllerRevision>({
  group: 'apps', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true,
  versions: only('v1', s.controllerRevision), columns,
  strategy: defineStrategy({ generation: false }),
});
