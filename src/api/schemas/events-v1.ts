// events/v1 definitions.
import { apiRef, int32, microTime, obj, str, time } from './build.js';
import { kind } from './meta.js';
import { eventSource, objectReference } from './core-v1.js';

const ref = (k: string) => apiRef('events.v1', k);

export const event = kind(ref('Event'), {
  eventTime: microTime,
  series: obj(ref('EventSeries'), { count: int32(), lastObservedTime: microTime }, { required: ['count', 'lastObservedTime'] }),
  reportingController: str(),
  reportingInstance: str(),
  action: str(),
  reason: str(),
  regarding: objectReference,
  related: objectReference,
  note: str(),
  type: str(),
  deprecatedSource: eventSource,
  deprecatedFirstTimestamp: time,
  deprecatedLastTimestamp: time,
  deprecatedCount: int32(),
}, { required: ['eventTime'] });
