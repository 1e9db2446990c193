// flowcontrol.apiserver flow schemas: which requests go to which priority level.
import type { FlowSchema } from '../../../../api/types/flowcontrol-v1beta3.js';
import * as s from '../../../../api/schemas/flowcontrol.js';
import { define, status } from '../../define.js';
import { age, column, conditionOf } from '../../columns.js';
import { flowcontrolVersions } from '../versions.js';
import { strategy } from './strategy.js';

export const definition = define<FlowSchema>({
  group: 'flowcontrol.apiserver', domainGroup: true, namespaced: false, subresources: status,
  resource: 'flowschemas', kind: 'FlowSchema', strategy, versions: flowcontrolVersions(s.flowSchema),
  columns: [
    column('PriorityLevel', 'string', o => o.spec?.priorityLevelConfiguration?.name ?? '', 'Name of the priority level.'),
    column('MatchingPrecedence', 'string', o => o.spec?.matchingPrecedence ?? 0, 'Precedence of the schema among the others.'),
    column('DistinguisherMethod', 'string', o => o.spec?.distinguisherMethod?.type ?? '<none>', 'How flows are distinguished.'),
    age,
    // shown without -o wide, as the reference's
    column('MissingPL', 'string', o => conditionOf(o.status?.conditions, 'Dangling')?.status ?? '?', 'Whether the priority level the schema refers to is missing.'),
  ],
});
