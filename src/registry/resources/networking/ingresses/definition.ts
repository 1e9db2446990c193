// networking/v1 ingresses: HTTP routes from hosts and paths to services.
import type { Stored } from '../../../../api/meta.js';
import type { Ingress, IngressBackend, IngressSpec } from '../../../../api/types/networking-v1.js';
import * as s from '../../../../api/schemas/networking-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, dnsLabel, dnsSubdomain, invalid, isSet, notSupported, portNumber, required } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column, orNone } from '../../columns.js';
import { loadBalancerAddresses } from '../../core/services/columns.js';

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const wildcardHostProblem = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
  + "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for "
  + "validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function backend(at: string, b: IngressBackend | undefined): Causes {
  if (!b || typeof b !== 'object') return [required(at)];
  const out: Causes = [];
  if (b.service && b.resource) out.push(invalid(at, '', 'cannot set both resource and service backends'));
  else if (!b.service && !b.resource) out.push(invalid(at, '', 'resource or service backend is required'));
  if (b.service) {
    if (!b.service.name) out.push(required(`${at}.service.name`));
    else out.push(...dnsLabel(`${at}.service.name`, b.service.name));
    const port = b.service.port ?? {};
    if (port.name && isSet(port.number)) out.push(invalid(`${at}.service.port`, port, 'cannot set both port name & port number'));
    else if (port.name) out.push(...dnsLabel(`${at}.service.port.name`, port.name));
    else if (isSet(port.number)) out.push(...portNumber(`${at}.service.port.number`, port.number));
    else out.push(required(`${at}.service.port`, 'port name or number is required'));
  }
  if (b.resource) {
    if (!b.resource.kind) out.push(required(`${at}.resource.kind`));
    if (!b.resource.name) out.push(required(`${at}.resource.name`));
  }
  return out;
}

function validateIngress(ing: Ingress): Causes {
  const s: IngressSpec = ing.spec ?? {};
  const out: Causes = [];
  if (s.defaultBackend) out.push(...backend('spec.defaultBackend', s.defaultBackend));
  else if (!(s.rules ?? []).length) out.push(invalid('spec.rules', s.rules ?? [], 'either `defaultBackend` or `rules` must be specified'));
  if (s.ingressClassName) out.push(...dnsSubdomain('spec.ingressClassName', s.ingressClassName));
  for (const [i, r] of (s.rules ?? []).entries()) {
    const at = `spec.rules[${i}]`;
    if (r?.host) {
      const host = String(r.host);
      if (!host.startsWith('*.')) out.push(...dnsSubdomain(`${at}.host`, host));
      else if (dnsSubdomain(`${at}.host`, host.slice(2)).length) out.push(invalid(`${at}.host`, host, wildcardHostProblem));
    }
    if (!r?.http) continue;
    const paths = r.http.paths ?? [];
    if (!paths.length) out.push(required(`${at}.http.paths`));
    for (const [j, p] of paths.entries()) {
      const pat = `${at}.http.paths[${j}]`;
      if (!p?.pathType) out.push(required(`${pat}.pathType`, 'pathType must be specified'));
      else if (!pathTypes.includes(p.pathType)) out.push(notSupported(`${pat}.pathType`, p.pathType, pathTypes));
      else if ((p.pathType === 'Exact' || p.pathType === 'Prefix') && !String(p.path ?? '').startsWith('/'))
        out.push(invalid(`${pat}.path`, p.path ?? '', 'must be an absolute path'));
      else if (p.pathType === 'ImplementationSpecific' && p.path && !String(p.path).startsWith('/'))
        out.push(invalid(`${pat}.path`, p.path, 'must be an absolute path'));
      out.push(...backend(`${pat}.backend`, p?.backend));
    }
  }
  for (const [i, t] of (s.tls ?? []).entries())
    for (const [j, h] of (t?.hosts ?? []).entries())
      if (h && !String(h).startsWith('*.')) out.push(...dnsSubdomain(`spec.tls[${i}].hosts[${j}]`, h));
  return out;
}

export const strategy = defineStrategy<Stored<Ingress>>({
  prepareForCreate(ing) { ing.status = { loadBalancer: {} }; },
  validate: validateIngress,
  validateUpdate: validateIngress,
});

const columns: TableColumn<Ingress>[] = [
  column('Class', 'string', o => orNone(o.spec?.ingressClassName), 'The name of the IngressClass resource.'),
  column('Hosts', 'string', o => {
    const hosts = (o.spec?.rules ?? []).map(r => r.host).filter((h): h is string => !!h);
    if (!hosts.length) return '*';
    return hosts.length > 4 ? `${hosts.slice(0, 4).join(',')} + ${hosts.length - 4} more...` : hosts.join(',');
  }, 'Hosts that incoming requests are matched against.'),
  column('Address', 'string', o => loadBalancerAddresses(o.status?.loadBalancer).join(','), 'Address is a list containing ingress points for the load-balancer.'),
  column('Ports', 'string', o => (o.spec?.tls?.length ? '80, 443' : '80'), 'Ports of TLS configurations that open.'),
  age,
];

export const definition = define<Ingress>({
  group: 'networking', domainGroup: true, resource: 'ingresses', kind: 'Ingress', shortNames: ['ing'], namespaced: true,
  versions: only('v1', s.ingress), subresources: status, strategy, columns,
});
