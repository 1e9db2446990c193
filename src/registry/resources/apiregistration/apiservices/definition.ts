// apiregistration/v1 APIServices, named <version>.<group>; a local one (no service) is available at once.
import type { Stored } from '../../../../api/meta.js';
import type { APIService, APIServiceSpec } from '../../../../api/types/apiregistration-v1.js';
import * as s from '../../../../api/schemas/apiregistration-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, dnsSubdomain, invalid, isInt, notSupported, required } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column, conditionOf } from '../../columns.js';

type StoredApiService = Stored<APIService>;

const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Problem = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
  + "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function validateApiService(obj: StoredApiService): Causes {
  const s: Partial<APIServiceSpec> = obj.spec ?? {};
  const out: Causes = [];
  const group = s.group ?? '', version = s.version ?? '';
  const wanted = `${version}.${group}`;
  if (obj.metadata.name && obj.metadata.name !== wanted)
    out.push(invalid('metadata.name', obj.metadata.name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(wanted)}`));
  if (!group && version !== 'v1') out.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) out.push(...dnsSubdomain('spec.group', group));
  if (version.length > 63) out.push(invalid('spec.version', version, 'must be no more than 63 characters'));
  if (!dns1035Label.test(version)) out.push(invalid('spec.version', version, dns1035Problem));
  const gpm = s.groupPriorityMinimum ?? 0, vp = s.versionPriority ?? 0;
  if (!(gpm > 0 && gpm <= 20000)) out.push(invalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  if (!(vp > 0 && vp <= 1000)) out.push(invalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const caBundle = Buffer.from(String(s.caBundle ?? ''), 'base64');
  if (!s.service) {
    if (caBundle.length) out.push(invalid('spec.caBundle', `${caBundle.length} bytes`, 'local APIServices may not have a caBundle'));
    if (s.insecureSkipTLSVerify) out.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return out;
  }
  if (!s.service.namespace) out.push(required('spec.service.namespace'));
  if (!s.service.name) out.push(required('spec.service.name'));
  const port = s.service.port;
  if (!(isInt(port) && port >= 1 && port <= 65535)) out.push(invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (s.insecureSkipTLSVerify && caBundle.length) out.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return out;
}

const conditionStatuses = ['True', 'False', 'Unknown'];

export const strategy = defineStrategy<StoredApiService>({
  generation: false,
  // names are <version>.<group>, and the core group's is `v1.`
  nameRule: 'path-segment',
  defaults(obj) {
    if (obj.spec?.service && obj.spec.service.port === undefined) obj.spec.service.port = 443;
  },
  prepareForCreate(obj, ctx) {
    obj.status = obj.spec?.service ? {}
      : { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: ctx.now, reason: 'Local', message: 'Local APIServices are always available' }] };
  },
  validate: validateApiService,
  validateUpdate: validateApiService,
  validateStatusUpdate: obj => (obj.status?.conditions ?? []).flatMap((c, i): Causes =>
    conditionStatuses.includes(c?.status) ? [] : [notSupported(`status.conditions[${i}].status`, c?.status ?? '', conditionStatuses)]),
});

const columns: TableColumn<APIService>[] = [
  column('Service', 'string', o => (o.spec?.service ? `${o.spec.service.namespace}/${o.spec.service.name}` : 'Local'), 'The reference to the service that hosts the API endpoint.'),
  column('Available', 'string', o => {
    const c = conditionOf(o.status?.conditions, 'Available');
    if (!c) return 'Unknown';
    return c.status === 'True' ? 'True' : `${c.status} (${c.reason})`;
  }, 'Whether this service is available.'),
  age,
];

export const definition = define<APIService>({
  group: 'apiregistration', domainGroup: true, resource: 'apiservices', kind: 'APIService',
  categories: ['api-extensions'], namespaced: false,
  versions: only('v1', s.apiService), subresources: status, strategy, columns,
});
