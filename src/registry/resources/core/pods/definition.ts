// core/v1 pods, with the subresources the store serves (status, ephemeralcontainers), those with handlers of their
// own (binding, eviction), and the node streams proxied to the pod's agent or the pod (attach, exec, log, portforward, proxy).
import type { Pod } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { eviction } from '../../../../api/schemas/policy-v1.js';
import { connect, createOnly, define, only, portForwardOptions, proxy, proxyOptions, readWrite, statusSubresource, streamOptions } from '../../define.js';
import { strategy } from './strategy.js';
import { columns, podRowConditions } from './columns.js';
import { bind, bindingChanges } from './binding.js';
import { evict } from './eviction.js';
import { connectLog, connectPortForward, connectProxy, connectStream } from './connect.js';

export const definition = define<Pod>({
  group: '', resource: 'pods', kind: 'Pod', shortNames: ['po'], categories: ['all'], namespaced: true,
  versions: only('v1', s.pod),
  subresources: {
    attach: { verbs: connect, kind: 'PodAttachOptions', connectOptions: streamOptions(false), rest: { connect: connectStream('attach') } },
    binding: {
      verbs: createOnly, kind: 'Binding', schema: s.binding, changes: bindingChanges,
      rest: { create: (req, body) => bind(req, req.namespace, req.name, body, req.dryRun, req.admission()) },
    },
    ephemeralcontainers: { verbs: readWrite, changes: [['spec', 'ephemeralContainers']] },
    eviction: { verbs: createOnly, kind: 'Eviction', group: 'policy', version: 'v1', schema: eviction, rest: { create: evict } },
    exec: { verbs: connect, kind: 'PodExecOptions', connectOptions: streamOptions(true), rest: { connect: connectStream('exec') } },
    log: { verbs: ['get'], rest: { connect: connectLog } },
    portforward: { verbs: connect, kind: 'PodPortForwardOptions', connectOptions: portForwardOptions, rest: { connect: connectPortForward } },
    proxy: { verbs: proxy, kind: 'PodProxyOptions', connectOptions: proxyOptions, rest: { connect: connectProxy } },
    status: statusSubresource,
  },
  strategy,
  columns,
  rowConditions: podRowConditions,
});
