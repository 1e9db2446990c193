// core/v1 services: cluster IPs and node ports allocated by the server.
import type { Service } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { define, only, proxy, proxyOptions, statusSubresource } from '../../define.js';
import { strategy } from './strategy.js';
import { columns } from './columns.js';
import { connectService } from './proxy.js';

export const definition = define<Service>({
  group: '', resource: 'services', kind: 'Service', shortNames: ['svc'], categories: ['all'], namespaced: true,
  versions: only('v1', s.service),
  subresources: { proxy: { verbs: proxy, kind: 'ServiceProxyOptions', connectOptions: proxyOptions, rest: { connect: connectService } }, status: statusSubresource },
  strategy, columns,
});
