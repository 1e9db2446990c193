// core/v1 endpoints: the addresses behind a service.
import type { Stored } from '../../../../api/meta.js';
import type { Endpoints } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill } from '../../../defaults/fill.js';
import { type Causes, oneOf, portNumber, required } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column } from '../../columns.js';

function defaultEndpoints(ep: Endpoints) {
  for (const subset of ep.subsets ?? [])
    for (const p of subset?.ports ?? []) if (p) fill(p, { protocol: 'TCP' });
}

function validateEndpoints(ep: Endpoints): Causes {
  const out: Causes = [];
  for (const [i, subset] of (ep.subsets ?? []).entries()) {
    for (const [j, a] of (subset?.addresses ?? []).entries()) if (!a?.ip) out.push(required(`subsets[${i}].addresses[${j}].ip`));
    for (const [j, p] of (subset?.ports ?? []).entries()) {
      out.push(...portNumber(`subsets[${i}].ports[${j}].port`, p?.port));
      out.push(...oneOf(`subsets[${i}].ports[${j}].protocol`, p?.protocol, ['SCTP', 'TCP', 'UDP']));
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
