// events/v1: the events of core/v1, in the newer shape, kept with them (conversion.ts).
import type { Event } from '../../../../api/types/events-v1.js';
import * as s from '../../../../api/schemas/events-v1.js';
import { define, only } from '../../define.js';
import { eventColumns } from '../../core/events/columns.js';
import { strategy } from './strategy.js';
import { convertEvents } from './conversion.js';

const first = (e: Event) => e.deprecatedFirstTimestamp || e.eventTime;

export const definition = define<Event>({
  group: 'events', domainGroup: true, resource: 'events', kind: 'Event', shortNames: ['ev'], namespaced: true,
  versions: only('v1', s.event), strategy,
  storedAs: { group: '', resource: 'events', version: 'v1' }, convert: convertEvents,
  columns: eventColumns<Event>(e => ({
    metadata: e.metadata, type: e.type, reason: e.reason, regarding: e.regarding ?? {}, message: e.note,
    source: { component: e.deprecatedSource?.component || e.reportingController, host: e.deprecatedSource?.host || e.reportingInstance },
    first: first(e), last: e.series?.lastObservedTime || e.deprecatedLastTimestamp || first(e), count: e.series?.count ?? e.deprecatedCount,
  })),
});
