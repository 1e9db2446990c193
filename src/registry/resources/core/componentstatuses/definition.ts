// core/v1 component statuses (deprecated since 1.19, as in the reference): never stored, each read asks the server how
// the components it knows of are (its store, and the controller manager and scheduler it may run), so
// `kubectl get componentstatuses` answers as it does against the reference.
import type { ComponentStatus } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { notFound } from '../../../../api/status.js';
import type { ComponentHealth, RestRequest, TableColumn } from '../../../types.js';
import { define } from '../../define.js';
import { column, conditionOf } from '../../columns.js';

const healthy = (o: ComponentStatus) => conditionOf(o.conditions, 'Healthy');

const columns: TableColumn<ComponentStatus>[] = [
  column('Status', 'string', o => {
    const c = healthy(o);
    return !c || c.status === 'Unknown' ? 'Unknown' : c.status === 'True' ? 'Healthy' : 'Unhealthy';
  }, 'Status of the component conditions'),
  column('Message', 'string', o => healthy(o)?.message ?? '', 'Message of the component conditions'),
  column('Error', 'string', o => healthy(o)?.error ?? '', 'Error of the component conditions'),
];

function statusOf(c: ComponentHealth): ComponentStatus {
  const status = c.healthy === undefined ? 'Unknown' : c.healthy ? 'True' : 'False';
  return {
    kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: c.name },
    conditions: [{ type: 'Healthy', status, ...(c.message ? { message: c.message } : {}), ...(c.error ? { error: c.error } : {}) }],
  };
}

/** GET of one component by name, or of the list */
async function read(req: RestRequest): Promise<object> {
  const all = (await req.services.componentHealth?.()) ?? [];
  if (!req.name) return { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: all.map(statusOf) };
  const one = all.find(c => c.name === req.name);
  if (!one) throw notFound('', 'componentstatuses', req.name);
  return statusOf(one);
}

export const definition = define<ComponentStatus>({
  group: '', resource: 'componentstatuses', kind: 'ComponentStatus', shortNames: ['cs'], namespaced: false, verbs: ['get', 'list'],
  versions: [{ name: 'v1', served: true, storage: true, schema: s.componentStatus, deprecated: true, deprecatedIn: '1.19' }],
  columns, rest: { get: read },
});
