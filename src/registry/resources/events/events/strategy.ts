// events/v1 Events. The reference checks the newer shape strictly, but names fields as its internal (core) Event
// does: regarding is `involvedObject`, note is `message`, the deprecated* fields lose their prefix.
import type { Stored } from '../../../../api/meta.js';
import type { Event } from '../../../../api/types/events-v1.js';
import { defineStrategy, fieldAt } from '../../../strategy.js';
import { type Causes, immutable, invalid, required, sameJson } from '../../../validation/fields.js';
import { legacyEventCauses } from '../../core/events/validation.js';
import { eventSource } from '../../core/events/selectors.js';

type StoredEvent = Stored<Event>;

/** the checks every event passes, whichever version wrote it */
const legacy = (e: StoredEvent): Causes => legacyEventCauses({
  namespace: e.metadata.namespace ?? '', regardingNamespace: e.regarding?.namespace ?? '', eventTime: e.eventTime,
  reportingController: e.reportingController ?? '', reportingInstance: e.reportingInstance ?? '', action: e.action ?? '',
  reason: e.reason ?? '', message: String(e.note ?? ''), reportingField: 'reportingController',
});

function series(e: StoredEvent): Causes {
  if (!e.series) return [];
  const out: Causes = [];
  if (!(e.series.count >= 2)) out.push(invalid('series.count', '', 'should be at least 2'));
  if (!e.series.lastObservedTime) out.push(required('series.lastObservedTime'));
  return out;
}

function validateEvent(e: StoredEvent): Causes {
  const out = legacy(e);
  out.push(...series(e));
  if (!e.eventTime) out.push(required('eventTime'));
  if (e.type !== 'Normal' && e.type !== 'Warning') out.push(invalid('type', '', `has invalid value: ${e.type ?? ''}`));
  const unset: Array<[string, boolean]> = [
    ['firstTimestamp', !!e.deprecatedFirstTimestamp], ['lastTimestamp', !!e.deprecatedLastTimestamp], ['count', !!e.deprecatedCount],
    ['source', !!(e.deprecatedSource?.component || e.deprecatedSource?.host)],
  ];
  for (const [f, set] of unset) if (set) out.push(invalid(f, '', 'needs to be unset'));
  return out;
}

/** the internal field each events/v1 field is reported under, for the fields that never change */
const fixedFields: Array<[keyof Event, string]> = [
  ['regarding', 'involvedObject'], ['reason', 'reason'], ['note', 'message'], ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'], ['deprecatedCount', 'count'],
  ['type', 'type'], ['eventTime', 'eventTime'], ['action', 'action'], ['related', 'related'],
  ['reportingController', 'reportingController'], ['reportingInstance', 'reportingInstance'],
];

function validateEventUpdate(e: StoredEvent, old: StoredEvent): Causes {
  const out = legacy(e);
  if (!sameJson(e.series, old.series)) out.push(...series(e));
  for (const [f, at] of fixedFields) out.push(...immutable(at, e[f], old[f]));
  return out;
}

/** field selectors under the events/v1 names, read from the stored (core/v1) form the selectors are matched against */
const selectableFields = {
  reason: fieldAt('reason'), type: fieldAt('type'), reportingController: fieldAt('reportingComponent'),
  // the reference still selects events/v1 by the core form's source, though the newer form has no such field
  source: eventSource,
  ...Object.fromEntries(['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']
    .map(f => [`regarding.${f}`, fieldAt(`involvedObject.${f}`)])),
};

export const strategy = defineStrategy<StoredEvent>({
  generation: false, allowCreateOnUpdate: true, selectableFields,
  validate: validateEvent,
  validateUpdate: validateEventUpdate,
});
