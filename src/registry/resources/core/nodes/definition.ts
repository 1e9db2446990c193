// core/v1 nodes: registered by their agents, which keep their status; nodes/proxy reaches the agent's server.
import type { Node } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { define, only, proxy, proxyOptions, statusSubresource } from '../../define.js';
import { columns } from './columns.js';
import { connectNode } from './connection.js';
import { strategy } from './strategy.js';

export const definition = define<Node>({
  group: '', resource: 'nodes', kind: 'Node', shortNames: ['no'], namespaced: false, versions: only('v1', s.node),
  subresources: { proxy: { verbs: proxy, kind: 'NodeProxyOptions', connectOptions: proxyOptions, rest: { connect: connectNode } }, status: statusSubresource },
  strategy,
  columns,
});
