// discovery/v1 endpoint slices: a service's endpoints in slices of at most a thousand.
import type { Stored } from '../../../../api/meta.js';
import type { EndpointSlice } from '../../../../api/types/discovery-v1.js';
import * as s from '../../../../api/schemas/discovery-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, dnsLabel, dnsSubdomain, duplicate, immutable, isSet, oneOf, portNumber, qualifiedName, required, tooMany } from '../../../validation/fields.js';
import { fullyQualifiedName, ipOfFamily } from '../../../validation/addresses.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

const addressTypes = ['IPv4', 'IPv6', 'FQDN'];
const protocols = ['SCTP', 'TCP', 'UDP'];

function defaultEndpointSlice(es: EndpointSlice) {
  for (const p of es.ports ?? []) if (p) fill(p, { protocol: 'TCP', name: '' });
}

function address(field: string, a: string, type: string | undefined): Causes {
  if (type === 'IPv4' || type === 'IPv6') return ipOfFamily(field, a, type);
  return type === 'FQDN' ? fullyQualifiedName(field, a) : [];
}

function validateEndpointSlice(es: EndpointSlice): Causes {
  const out = oneOf('addressType', es.addressType, addressTypes);
  const endpoints = es.endpoints ?? [];
  if (endpoints.length > 1000) out.push(tooMany('endpoints', endpoints.length, 1000));
  else for (const [i, e] of endpoints.entries()) {
    const addrs = e?.addresses ?? [];
    if (!addrs.length) out.push(required(`endpoints[${i}].addresses`, 'must contain at least 1 address'));
    else if (addrs.length > 100) out.push(tooMany(`endpoints[${i}].addresses`, addrs.length, 100));
    for (const [j, a] of addrs.entries()) out.push(...address(`endpoints[${i}].addresses[${j}]`, String(a), es.addressType));
    if (isSet(e?.nodeName)) out.push(...dnsSubdomain(`endpoints[${i}].nodeName`, e.nodeName));
    if (isSet(e?.hostname)) out.push(...dnsLabel(`endpoints[${i}].hostname`, e.hostname));
  }
  const ports = es.ports ?? [];
  if (ports.length > 20000) return [...out, tooMany('ports', ports.length, 20000)];
  const names = new Set<string>();
  for (const [i, p] of ports.entries()) {
    const name = p?.name ?? '';
    if (name) out.push(...dnsLabel(`ports[${i}].name`, name));
    if (names.has(name)) out.push(duplicate(`ports[${i}].name`, name));
    names.add(name);
    out.push(...oneOf(`ports[${i}].protocol`, p?.protocol, protocols));
    if (isSet(p?.port)) out.push(...portNumber(`ports[${i}].port`, p.port));
    if (isSet(p?.appProtocol)) out.push(...qualifiedName(`ports[${i}].appProtocol`, p.appProtocol));
  }
  return out;
}

export const strategy = defineStrategy<Stored<EndpointSlice>>({
  defaults: defaultEndpointSlice,
  validate: validateEndpointSlice,
  validateUpdate: (es, old) => [...validateEndpointSlice(es), ...immutable('addressType', es.addressType, old.addressType)],
});

const columns: TableColumn<EndpointSlice>[] = [
  column('AddressType', 'string', o => o.addressType ?? '', 'Type of address carried by the slice.'),
  // at most three: the number, else the name, else * (a port of every number)
  column('Ports', 'string', o => {
    const ports = (o.ports ?? []).map(p => (p.port !== undefined && p.port !== null ? String(p.port) : p.name ?? '*'));
    if (!ports.length) return '<unset>';
    return ports.length > 3 ? `${ports.slice(0, 3).join(',')} + ${ports.length - 3} more...` : ports.join(',');
  }, 'Ports of the slice.'),
  column('Endpoints', 'string', o => {
    const addrs = (o.endpoints ?? []).flatMap(e => e.addresses ?? []);
    if (!addrs.length) return '<unset>';
    return addrs.length > 3 ? `${addrs.slice(0, 3).join(',')} + ${addrs.length - 3} more...` : addrs.join(',');
  }, 'Addresses of the endpoints.'),
  age,
];

export const definition = define<EndpointSlice>({
  group: 'discovery', domainGroup: true, resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true,
  versions: only('v1', s.endpointSlice), strategy, columns,
});
