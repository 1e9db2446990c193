// networking/v1.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/networking-v1.js';
import { define, only, status } from './define.js';
import * as c from './columns.js';

const group = { group: 'networking', domainGroup: true };

export const networkingResources: ResourceDefinition[] = [
  define({
    ...group, resource: 'ingressclasses', kind: 'IngressClass', namespaced: false,
    versions: only('v1', s.ingressClass), columns: c.ingressClassColumns,
  }),
  define({
    ...group, resource: 'ingresses', kind: 'Ingress', shortNames: ['ing'], namespaced: true,
    versions: only('v1', s.ingress), subresources: status, columns: c.ingressColumns,
  }),
  define({
    ...group, resource: 'networkpolicies', kind: 'NetworkPolicy', shortNames: ['netpol'], namespaced: true,
    versions: only('v1', s.networkPolicy), columns: c.networkPolicyColumns,
  }),
];
