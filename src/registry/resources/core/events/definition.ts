// core/v1 events.
import type { Stored } from '../../../../api/meta.js';
import type { Event } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import { defineStrategy, selectable } from '../../../strategy.js';
import { define, only } from '../../define.js';
import { eventColumns } from './columns.js';
import { legacyEventCauses } from './validation.js';
import { eventSource } from './selectors.js';

/**
 * the fields the reference always writes: its times are structs without omitempty (null while unset), the source a
 * struct, the reporting fields strings without omitempty; clients that read raw JSON see them
 */
export function withUnsetEventFields(e: Record<string, unknown>): void {
  for (const f of ['firstTimestamp', 'lastTimestamp', 'eventTime']) if (e[f] === undefined) e[f] = null;
  if (e.source === undefined || e.source === null) e.source = {};
  for (const f of ['reportingComponent', 'reportingInstance']) if (e[f] === undefined || e[f] === null) e[f] = '';
}

/** core/v1 writes get the reference's older checks only: an older recorder's event lives in its object's namespace */
const validateEvent = (e: Stored<Event>) => legacyEventCauses({
  namespace: e.metadata.namespace ?? '', regardingNamespace: e.involvedObject?.namespace ?? '', eventTime: e.eventTime,
  reportingController: e.reportingComponent ?? '', reportingInstance: e.reportingInstance ?? '', action: e.action ?? '',
  reason: e.reason ?? '', message: String(e.message ?? ''), reportingField: 'reportingComponent',
});

export const strategy = defineStrategy<Stored<Event>>({
  defaults: e => withUnsetEventFields(e as unknown as Record<string, unknown>),
  generation: false, allowCreateOnUpdate: true, nameRule: 'path-segment',
  validate: validateEvent, validateUpdate: validateEvent,
  selectableFields: {
    ...selectable('involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid',
      'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'type'),
    source: eventSource,
  },
});

const first = (e: Event) => e.firstTimestamp || e.eventTime;

export const definition = define<Event>({
  group: '', resource: 'events', kind: 'Event', shortNames: ['ev'], namespaced: true, versions: only('v1', s.event), strategy,
  columns: eventColumns<Event>(e => ({
    metadata: e.metadata, type: e.type, reason: e.reason, regarding: e.involvedObject ?? {}, message: e.message,
    source: { component: e.source?.component || e.reportingComponent, host: e.source?.host || e.reportingInstance },
    first: first(e), last: e.series?.lastObservedTime || e.lastTimestamp || first(e), count: e.series?.count ?? e.count,
  })),
});
