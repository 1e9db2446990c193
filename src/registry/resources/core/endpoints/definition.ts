// core/v1 endpoints: the addresses behind a service.
import type { Stored } from '../../../../api/meta.js';
import type { EndpointAddress, Endpoints } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, dnsLabel, dnsSubdomain, isSet, oneOf, portNumber, qualifiedName, required } from '../../../validation/fields.js';
import { anyIp } from '../../../validation/addresses.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

function defaultEndpoints(ep: Endpoints) {
  for (const subset of ep.subsets ?? [])
    for (const p of subset?.ports ?? []) if (p) fill(p, { protocol: 'TCP' });
}

function endpointAddress(at: string, a: EndpointAddress): Causes {
  return [
    ...anyIp(`${at}.ip`, String(a.ip ?? '')),
    ...(a.hostname ? dnsLabel(`${at}.hostname`, a.hostname) : []),
    ...(isSet(a.nodeName) ? dnsSubdomain(`${at}.nodeName`, a.nodeName) : []),
  ];
}

function validateEndpoints(ep: Endpoints): Causes {
  const out: Causes = [];
  for (const [i, subset] of (ep.subsets ?? []).entries()) {
    if (!subset?.addresses?.length && !subset?.notReadyAddresses?.length)
      out.push(required(`subsets[${i}]`, 'must specify `addresses` or `notReadyAddresses`'));
    for (const [key, list] of [['addresses', subset?.addresses], ['notReadyAddresses', subset?.notReadyAddresses]] as const)
      for (const [j, a] of (list ?? []).entries()) out.push(...endpointAddress(`subsets[${i}].${key}[${j}]`, a ?? { ip: '' }));
    const ports = subset?.ports ?? [];
    for (const [j, p] of ports.entries()) {
      // a name tells several ports apart
      if (ports.length > 1 && !p?.name) out.push(required(`subsets[${i}].ports[${j}].name`));
      else if (p?.name) out.push(...dnsLabel(`subsets[${i}].ports[${j}].name`, p.name));
      out.push(...portNumber(`subsets[${i}].ports[${j}].port`, p?.port));
      out.push(...oneOf(`subsets[${i}].ports[${j}].protocol`, p?.protocol, ['SCTP', 'TCP', 'UDP']));
      if (isSet(p?.appProtocol)) out.push(...qualifiedName(`subsets[${i}].ports[${j}].appProtocol`, p.appProtocol));
    }
  }
  return out;
}

export const strategy = defineStrategy<Stored<Endpoints>>({
  generation: false, allowCreateOnUpdate: true,
  defaults: defaultEndpoints,
  validate: validateEndpoints, validateUpdate: validateEndpoints,
});

/** at most three addresses, then how many more */
export function formatEndpoints(ep: Endpoints): string {
  const all: string[] = [];
  for (const subset of ep.subsets ?? []) {
    const ports = subset.ports?.length ? subset.ports : [undefined];
    for (const port of ports) for (const a of subset.addresses ?? []) all.push(port ? `${a.ip}:${port.port}` : a.ip);
  }
  if (!all.length) return '<none>';
  const shown = all.slice(0, 3).join(',');
  return all.length > 3 ? `${shown} + ${all.length - 3} more...` : shown;
}

const columns: TableColumn<Endpoints>[] = [column('Endpoints', 'string', formatEndpoints, 'Endpoints of the service.'), age];

export const definition = define<Endpoints>({
  group: '', resource: 'endpoints', kind: 'Endpoints', singular: 'endpoints', listKind: 'EndpointsList', shortNames: ['ep'],
  namespaced: true, versions: only('v1', s.endpoints), strategy, columns,
});
