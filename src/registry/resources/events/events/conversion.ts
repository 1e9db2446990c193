// The two forms of one Event: events/v1 objects are kept as core/v1 Events, as the reference keeps them, so an event
// written through either API is read through both (`kubectl get events` and `describe` see what a client of the newer
// API recorded). The fields are the same under other names; metadata is shared as it is.
import type { ApiObject } from '../../../../api/meta.js';
import { withUnsetEventFields } from '../../core/events/definition.js';

/** events/v1 name, core/v1 name */
const renamed: Array<[string, string]> = [
  ['regarding', 'involvedObject'], ['note', 'message'], ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'], ['deprecatedFirstTimestamp', 'firstTimestamp'], ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const same = ['reason', 'type', 'eventTime', 'series', 'action', 'related', 'reportingInstance'];

/**
 * the fields of `o` under the other form's names: `pairs` map each name of o's form to the other's. The source is a
 * struct in the reference's types, never omitted: an event without one shows `{}` (clients read `source.component`)
 */
function rename(o: ApiObject, apiVersion: string, pairs: Array<[string, string]>, sourceField: string): ApiObject {
  const out: ApiObject = { apiVersion, kind: 'Event', metadata: o.metadata };
  for (const [from, to] of [...pairs, ...same.map((f): [string, string] => [f, f])]) if (o[from] !== undefined) out[to] = o[from];
  out[sourceField] ??= {};
  return out;
}

const coreApiVersion = 'v1';
const toCore = renamed;
const toEvents = renamed.map(([e, c]): [string, string] => [c, e]);

/** objects of either form to `toApiVersion`: the core one ('v1') or the events group's */
export async function convertEvents(objects: ApiObject[], toApiVersion: string): Promise<ApiObject[]> {
  return objects.map(o => {
    if (o.apiVersion === toApiVersion) return o;
    if (toApiVersion === coreApiVersion) {
      const core = rename(o, toApiVersion, toCore, 'source');
      withUnsetEventFields(core);
      return core;
    }
    if (o.apiVersion !== coreApiVersion) return { ...o, apiVersion: toApiVersion };
    const event = rename(o, toApiVersion, toEvents, 'deprecatedSource');
    // as the core form, the times without omitempty are null while unset (the reporting fields here have omitempty)
    for (const f of ['eventTime', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp']) event[f] ??= null;
    for (const f of ['reportingController', 'reportingInstance']) if (event[f] === '') delete event[f];
    return event;
  });
}
