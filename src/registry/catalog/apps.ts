// apps/v1: the workload controllers' kinds.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/apps-v1.js';
import { define, only, readWrite, scale } from './define.js';
import * as c from './columns.js';

const statusAndScale = { scale, status: { verbs: readWrite } };

export const appsResources: ResourceDefinition[] = [
  define({
    group: 'apps', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true,
    versions: only('v1', s.controllerRevision), columns: c.controllerRevisionColumns,
  }),
  define({
    group: 'apps', resource: 'daemonsets', kind: 'DaemonSet', shortNames: ['ds'], categories: ['all'], namespaced: true,
    versions: only('v1', s.daemonSet), subresources: { status: { verbs: readWrite } }, columns: c.daemonSetColumns,
  }),
  define({
    group: 'apps', resource: 'deployments', kind: 'Deployment', shortNames: ['deploy'], categories: ['all'], namespaced: true,
    versions: only('v1', s.deployment), subresources: statusAndScale, columns: c.deploymentColumns,
  }),
  define({
    group: 'apps', resource: 'replicasets', kind: 'ReplicaSet', shortNames: ['rs'], categories: ['all'], namespaced: true,
    versions: only('v1', s.replicaSet), subresources: statusAndScale, columns: c.replicaSetColumns,
  }),
  define({
    group: 'apps', resource: 'statefulsets', kind: 'StatefulSet', shortNames: ['sts'], categories: ['all'], namespaced: true,
    versions: only('v1', s.statefulSet), subresources: statusAndScale, columns: c.statefulSetColumns,
  }),
];
