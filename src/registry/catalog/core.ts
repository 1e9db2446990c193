// core/v1: the legacy group served under /api.
import type { ResourceDefinition } from '../types.js';
import { apiDomains, naming } from '../../api/naming.js';
import * as s from '../../api/schemas/core-v1.js';
import { connect, createOnly, define, only, proxy, readWrite, scale, status } from './define.js';
import * as c from './columns.js';


// node roles come from `node-role.<labelDomain>/<role>` label keys and the `<labelDomain>/role` label
const labelDomains = apiDomains.map(d => naming(d).labelDomain);
const nodeColumns = c.nodeColumns(labelDomains.map(d => `node-role.${d}/`), apiDomains.map(d => naming(d).label('role')));

export const coreResources: ResourceDefinition[] = [
  define({
    group: '', resource: 'bindings', kind: 'Binding', namespaced: true, verbs: createOnly, versions: only('v1', s.binding),
  }),
  define({
    group: '', resource: 'componentstatuses', kind: 'ComponentStatus', shortNames: ['cs'], namespaced: false,
    verbs: ['get', 'list'], versions: only('v1', s.componentStatus), columns: c.componentStatusColumns,
  }),
  define({
    group: '', resource: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'], namespaced: true,
    versions: only('v1', s.configMap), columns: c.configMapColumns,
  }),
  define({
    group: '', resource: 'endpoints', kind: 'Endpoints', singular: 'endpoints', listKind: 'EndpointsList', shortNames: ['ep'],
    namespaced: true, versions: only('v1', s.endpoints), columns: c.endpointsColumns,
  }),
  define({
    group: '', resource: 'events', kind: 'Event', shortNames: ['ev'], namespaced: true,
    versions: only('v1', s.event), columns: c.eventColumns,
  }),
  define({
    group: '', resource: 'limitranges', kind: 'LimitRange', shortNames: ['limits'], namespaced: true,
    versions: only('v1', s.limitRange), columns: [c.createdAt],
  }),
  define({
    group: '', resource: 'namespaces', kind: 'Namespace', shortNames: ['ns'], namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    versions: only('v1', s.namespace),
    subresources: { finalize: { verbs: ['update'] }, status: { verbs: readWrite } },
    columns: c.namespaceColumns,
  }),
  define({
    group: '', resource: 'nodes', kind: 'Node', shortNames: ['no'], namespaced: false, versions: only('v1', s.node),
    subresources: { proxy: { verbs: proxy, kind: 'NodeProxyOptions' }, status: { verbs: readWrite } },
    columns: nodeColumns,
  }),
  define({
    group: '', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', shortNames: ['pvc'], namespaced: true,
    versions: only('v1', s.persistentVolumeClaim), subresources: status, columns: c.persistentVolumeClaimColumns,
  }),
  define({
    group: '', resource: 'persistentvolumes', kind: 'PersistentVolume', shortNames: ['pv'], namespaced: false,
    versions: only('v1', s.persistentVolume), subresources: status, columns: c.persistentVolumeColumns,
  }),
  define({
    group: '', resource: 'pods', kind: 'Pod', shortNames: ['po'], categories: ['all'], namespaced: true,
    versions: only('v1', s.pod),
    subresources: {
      attach: { verbs: connect, kind: 'PodAttachOptions' },
      binding: { verbs: createOnly, kind: 'Binding' },
      ephemeralcontainers: { verbs: readWrite },
      eviction: { verbs: createOnly, kind: 'Eviction', group: 'policy', version: 'v1' },
      exec: { verbs: connect, kind: 'PodExecOptions' },
      log: { verbs: ['get'] },
      portforward: { verbs: connect, kind: 'PodPortForwardOptions' },
      proxy: { verbs: proxy, kind: 'PodProxyOptions' },
      status: { verbs: readWrite },
    },
    columns: c.podColumns,
  }),
  define({
    group: '', resource: 'podtemplates', kind: 'PodTemplate', namespaced: true,
    versions: only('v1', s.podTemplate), columns: c.podTemplateColumns,
  }),
  define({
    group: '', resource: 'replicationcontrollers', kind: 'ReplicationController', shortNames: ['rc'], categories: ['all'],
    namespaced: true, versions: only('v1', s.replicationController),
    subresources: { scale, status: { verbs: readWrite } }, columns: c.replicationControllerColumns,
  }),
  define({
    group: '', resource: 'resourcequotas', kind: 'ResourceQuota', shortNames: ['quota'], namespaced: true,
    versions: only('v1', s.resourceQuota), subresources: status, columns: c.resourceQuotaColumns,
  }),
  define({
    group: '', resource: 'secrets', kind: 'Secret', namespaced: true, versions: only('v1', s.secret), columns: c.secretColumns,
  }),
  define({
    group: '', resource: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'], namespaced: true,
    versions: only('v1', s.serviceAccount),
    subresources: { token: { verbs: createOnly, kind: 'TokenRequest', group: 'authentication', domainGroup: true, version: 'v1' } },
    columns: c.serviceAccountColumns,
  }),
  define({
    group: '', resource: 'services', kind: 'Service', shortNames: ['svc'], categories: ['all'], namespaced: true,
    versions: only('v1', s.service),
    subresources: { proxy: { verbs: proxy, kind: 'ServiceProxyOptions' }, status: { verbs: readWrite } },
    columns: c.serviceColumns,
  }),
];
