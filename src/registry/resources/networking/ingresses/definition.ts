// networking/v1 ingresses: HTTP routes from hosts and paths to services.
import type { Stored } from '../../../../api/meta.js';
import type { HTTPIngressPath, Ingress, IngressBackend, IngressSpec } from '../../../../api/types/networking-v1.js';
import * as s from '../../../../api/schemas/networking-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, dns1035Label, dnsSubdomain, invalid, isSet, notSupported, portName, portNumber, required } from '../../../validation/fields.js';
import { nameProblems } from '../../../validation/object-meta.js';
import { parseIp } from '../../../../api/ip.js';
import { define, only, status } from '../../define.js';
import { age, column, orNone } from '../../columns.js';
import { loadBalancerAddresses } from '../../core/services/columns.js';

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const wildcardHostProblem = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
  + "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for "
  + "validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const invalidPathSequences = ['//', '/./', '/../', '%2f', '%2F'];
const invalidPathSuffixes = ['/..', '/.'];

/** an IP address as the reference parses one, leading zeros allowed */
const isIP = (h: string) => parseIp(h) !== undefined || (/^\d{1,3}(\.\d{1,3}){3}$/.test(h) && h.split('.').every(p => Number(p) <= 255));

/** a host or TLS host: a DNS subdomain, or a wildcard one when it has a star anywhere */
function hostName(at: string, host: string): Causes {
  if (!host.includes('*')) return dnsSubdomain(at, host);
  return host.startsWith('*.') && !dnsSubdomain(at, host.slice(2)).length ? [] : [invalid(at, host, wildcardHostProblem)];
}

function backend(at: string, b: IngressBackend): Causes {
  if (b.service && b.resource) return [invalid(at, '', 'cannot set both resource and service backends')];
  if (b.resource) {
    const r = b.resource;
    const out: Causes = [];
    if (r.apiGroup) out.push(...dnsSubdomain(`${at}.resource.apiGroup`, r.apiGroup));
    if (!r.kind) out.push(required(`${at}.resource.kind`, 'kind is required'));
    else out.push(...nameProblems(r.kind, 'path-segment').map(p => invalid(`${at}.resource.kind`, r.kind, p)));
    if (!r.name) out.push(required(`${at}.resource.name`, 'name is required'));
    else out.push(...nameProblems(r.name, 'path-segment').map(p => invalid(`${at}.resource.name`, r.name, p)));
    return out;
  }
  if (!b.service) return [invalid(at, '', 'resource or service backend is required')];
  const out: Causes = [];
  if (!b.service.name) out.push(required(`${at}.service.name`));
  else out.push(...dns1035Label(`${at}.service.name`, b.service.name));
  const port = b.service.port ?? {};
  const number = isSet(port.number) && port.number !== 0;
  if (port.name && number) out.push(invalid(at, '', 'cannot set both port name & port number'));
  else if (port.name) out.push(...portName(`${at}.service.port.name`, port.name));
  else if (number) out.push(...portNumber(`${at}.service.port.number`, port.number));
  else out.push(required(at, 'port name or number is required'));
  return out;
}

function path(at: string, p: HTTPIngressPath): Causes {
  // without a type nothing else of the path is looked at
  if (!p.pathType) return [required(`${at}.pathType`, 'pathType must be specified')];
  const out: Causes = [];
  const value = String(p.path ?? '');
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!value.startsWith('/')) out.push(invalid(`${at}.path`, value, 'must be an absolute path'));
    for (const seq of invalidPathSequences) if (value.includes(seq)) out.push(invalid(`${at}.path`, value, `must not contain '${seq}'`));
    for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) out.push(invalid(`${at}.path`, value, `cannot end with '${suffix}'`));
  } else if (p.pathType === 'ImplementationSpecific') {
    if (value && !value.startsWith('/')) out.push(invalid(`${at}.path`, value, 'must be an absolute path'));
  } else out.push(notSupported(`${at}.pathType`, p.pathType, pathTypes));
  out.push(...backend(`${at}.backend`, p.backend ?? {}));
  return out;
}

/** secret names that were already stored stay allowed, as the reference keeps accepting them on update */
function validateIngress(ing: Ingress, old?: Ingress): Causes {
  const s: IngressSpec = ing.spec ?? {};
  const out: Causes = [];
  const rules = s.rules ?? [];
  if (!rules.length && !s.defaultBackend)
    out.push({ reason: 'FieldValueInvalid', field: 'spec', message: `Invalid value: []networking.IngressRule${s.rules ? '{}' : '(nil)'}: either \`defaultBackend\` or \`rules\` must be specified` });
  if (s.defaultBackend) out.push(...backend('spec.defaultBackend', s.defaultBackend));
  for (const [i, r] of rules.entries()) {
    const at = `spec.rules[${i}]`;
    if (r?.host) {
      const host = String(r.host);
      if (isIP(host)) out.push(invalid(`${at}.host`, host, 'must be a DNS name, not an IP address'));
      out.push(...hostName(`${at}.host`, host));
    }
    if (!r?.http) continue;
    const paths = r.http.paths ?? [];
    if (!paths.length) out.push(required(`${at}.http.paths`));
    for (const [j, p] of paths.entries()) out.push(...path(`${at}.http.paths[${j}]`, p ?? {}));
  }
  const keepSecretNames = !!old && badSecretNames(old.spec);
  for (const [i, t] of (s.tls ?? []).entries()) {
    for (const [j, h] of (t?.hosts ?? []).entries()) if (h) out.push(...hostName(`spec.tls[${i}].hosts[${j}]`, String(h)));
    if (t?.secretName && !keepSecretNames) out.push(...dnsSubdomain(`spec.tls[${i}].secretName`, t.secretName));
  }
  if (isSet(s.ingressClassName)) out.push(...dnsSubdomain('spec.ingressClassName', s.ingressClassName));
  return out;
}

/** a new Ingress that names its class twice, in the old annotation and in ingressClassName, names one class */
function classAnnotationCauses(ing: Ingress, annotation: string): Causes {
  const named = ing.metadata?.annotations?.[annotation];
  const cls = ing.spec?.ingressClassName;
  return named !== undefined && isSet(cls) && named !== cls
    ? [invalid(`annotations.${annotation}`, named, 'must match `ingressClassName` when both are specified')] : [];
}

const badSecretNames = (s: IngressSpec | undefined) =>
  (s?.tls ?? []).some(t => !!t?.secretName && dnsSubdomain('', t.secretName).length > 0);

export const strategy = defineStrategy<Stored<Ingress>>({
  prepareForCreate(ing) { ing.status = { loadBalancer: {} }; },
  validate: (ing, ctx) => [...validateIngress(ing), ...classAnnotationCauses(ing, ctx.names.label('ingress.class'))],
  // as the reference, only a create is told that the class annotation is deprecated
  warnings: (ing, old, ctx) => (!old && ing.metadata?.annotations?.[ctx.names.label('ingress.class')] !== undefined
    ? [`annotation ${JSON.stringify(ctx.names.label('ingress.class'))} is deprecated, please use 'spec.ingressClassName' instead`] : []),
  validateUpdate: (ing, old) => validateIngress(ing, old),
});

/** the hosts of the rules, at most three; as in the reference, '+ N more...' counts the rules past the third
 * (with or without a host) once three hosts are listed and a rule follows */
export function ingressHosts(ing: Ingress): string {
  const rules = ing.spec?.rules ?? [];
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) { more = true; break; }
    if (rule.host) hosts.push(rule.host);
  }
  if (!hosts.length) return '*';
  return more ? `${hosts.join(',')} + ${rules.length - 3} more...` : hosts.join(',');
}

const columns: TableColumn<Ingress>[] = [
  column('Class', 'string', o => orNone(o.spec?.ingressClassName), 'The name of the IngressClass resource.'),
  column('Hosts', 'string', ingressHosts, 'Hosts that incoming requests are matched against.'),
  column('Address', 'string', o => loadBalancerAddresses(o.status?.loadBalancer).join(','), 'Address is a list containing ingress points for the load-balancer.'),
  column('Ports', 'string', o => (o.spec?.tls?.length ? '80, 443' : '80'), 'Ports of TLS configurations that open.'),
  age,
];

export const definition = define<Ingress>({
  group: 'networking', domainGroup: true, resource: 'ingresses', kind: 'Ingress', shortNames: ['ing'], namespaced: true,
  versions: only('v1', s.ingress), subresources: status, strategy, columns,
});
