// core/v1 nodes: registered by their agents, which keep their status.
import type { Stored } from '../../../../api/meta.js';
import type { Node } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { define, only, proxy, statusSubresource } from '../../define.js';
import { columns } from './columns.js';

export const definition = define<Node>({
  group: '', resource: 'nodes', kind: 'Node', shortNames: ['no'], namespaced: false, versions: only('v1', s.node),
  subresources: { proxy: { verbs: proxy, kind: 'NodeProxyOptions' }, status: statusSubresource },
  strategy: defineStrategy<Stored<Node>>({ generation: false, selectableFields: { 'spec.unschedulable': node => String(!!node.spec?.unschedulable) } }),
  columns,
});
