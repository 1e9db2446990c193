// flowcontrol.apiserver: API priority and fairness. 1.27 serves v1beta3 (preferred, stored) and the deprecated v1beta2.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/flowcontrol.js';
import { define, status } from './define.js';
import * as c from './columns.js';

const group = { group: 'flowcontrol.apiserver', domainGroup: true, namespaced: false, subresources: status };
// v1beta2 is deprecated in 1.26 and removed in 1.29; its warning names the full group, so the server composes it
const versions = (schema: (v: string) => ResourceDefinition['versions'][number]['schema']) => [
  { name: 'v1beta3', served: true, storage: true, schema: schema('v1beta3') },
  { name: 'v1beta2', served: true, storage: false, schema: schema('v1beta2'), deprecated: true, deprecatedIn: '1.26', removedIn: '1.29' },
];

export const flowcontrolResources: ResourceDefinition[] = [
  define({
    ...group, resource: 'flowschemas', kind: 'FlowSchema', versions: versions(s.flowSchema),
    columns: [
      c.column('PriorityLevel', 'string', o => o.spec?.priorityLevelConfiguration?.name ?? '', 'Name of the priority level.'),
      c.column('MatchingPrecedence', 'string', o => o.spec?.matchingPrecedence ?? 0, 'Precedence of the schema among the others.'),
      c.column('DistinguisherMethod', 'string', o => o.spec?.distinguisherMethod?.type ?? '*', 'How flows are distinguished.'),
      c.age,
      c.wide('MissingPL', 'string', o => {
        const cond = (o.status?.conditions ?? []).find((x: any) => x.type === 'Dangling');
        return cond ? cond.status : '?';
      }, 'Whether the priority level the schema refers to is missing.'),
    ],
  }),
  define({
    ...group, resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration',
    versions: versions(s.priorityLevelConfiguration),
    columns: [
      c.column('Type', 'string', o => o.spec?.type ?? '', 'Limited or Exempt.'),
      c.column('NominalConcurrencyShares', 'string', o => o.spec?.limited?.nominalConcurrencyShares ?? '<none>', 'Share of the server concurrency limit.'),
      c.column('Queues', 'string', o => o.spec?.limited?.limitResponse?.queuing?.queues ?? '<none>', 'Number of queues.'),
      c.column('HandSize', 'string', o => o.spec?.limited?.limitResponse?.queuing?.handSize ?? '<none>', 'Shuffle-sharding hand size.'),
      c.column('QueueLengthLimit', 'string', o => o.spec?.limited?.limitResponse?.queuing?.queueLengthLimit ?? '<none>', 'Maximum queue length.'),
      c.age,
    ],
  }),
];
