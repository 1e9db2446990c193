// A service's Table row: its type, addresses and ports.
import type { LoadBalancerStatus, Service } from '../../../../api/types/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { age, column, formatLabels, orNone, wide } from '../../columns.js';

/** the addresses of a load balancer's ingress points (services and ingresses alike) */
export const loadBalancerAddresses = (lb: Pick<LoadBalancerStatus, 'ingress'> | undefined): string[] =>
  (lb?.ingress ?? []).map(i => i.ip || i.hostname).filter((a): a is string => !!a);

export function serviceExternalIP(svc: Service): string {
  const spec = svc.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const all = [...loadBalancerAddresses(svc.status?.loadBalancer), ...external];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

export function servicePorts(svc: Service): string {
  const ports = svc.spec?.ports ?? [];
  if (!ports.length) return '<none>';
  return ports.map(p => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

export const columns: TableColumn<Service>[] = [
  column('Type', 'string', o => o.spec?.type ?? 'ClusterIP', 'The type of the service.'),
  column('Cluster-IP', 'string', o => orNone(o.spec?.clusterIP), 'The IP address of the service.'),
  column('External-IP', 'string', serviceExternalIP, 'The external IP address of the service.'),
  column('Port(s)', 'string', servicePorts, 'The ports of the service.'),
  age,
  wide('Selector', 'string', o => formatLabels(o.spec?.selector), 'The label selector of the service.'),
];
