// flowcontrol.apiserver priority levels: how much of the server's concurrency each gets, and how requests queue.
import type { PriorityLevelConfiguration } from '../../../../api/types/flowcontrol-v1beta3.js';
import * as s from '../../../../api/schemas/flowcontrol.js';
import { define, status } from '../../define.js';
import { age, column } from '../../columns.js';
import { flowcontrolVersions } from '../versions.js';
import { strategy } from './strategy.js';
import { convertPriorityLevels } from './conversion.js';

export const definition = define<PriorityLevelConfiguration>({
  group: 'flowcontrol.apiserver', domainGroup: true, namespaced: false, subresources: status,
  resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', strategy, versions: flowcontrolVersions(s.priorityLevelConfiguration),
  convert: convertPriorityLevels,
  columns: [
    column('Type', 'string', o => o.spec?.type ?? '', 'Limited or Exempt.'),
    // a v1beta2 level names its shares assuredConcurrencyShares
    column('NominalConcurrencyShares', 'string', o => o.spec?.limited?.nominalConcurrencyShares
      ?? (o.spec?.limited as { assuredConcurrencyShares?: number } | undefined)?.assuredConcurrencyShares ?? '<none>', 'Share of the server concurrency limit.'),
    column('Queues', 'string', o => o.spec?.limited?.limitResponse?.queuing?.queues ?? '<none>', 'Number of queues.'),
    column('HandSize', 'string', o => o.spec?.limited?.limitResponse?.queuing?.handSize ?? '<none>', 'Shuffle-sharding hand size.'),
    column('QueueLengthLimit', 'string', o => o.spec?.limited?.limitResponse?.queuing?.queueLengthLimit ?? '<none>', 'Maximum queue length.'),
    age,
  ],
});
