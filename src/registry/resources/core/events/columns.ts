// An event's Table row. Events have two shapes, core/v1 and events/v1 (regarding, note, deprecated* fields); each
// resource reads its own into the one view the columns print.
import type { ObjectMeta } from '../../../../api/types/meta-v1.js';
import type { ObjectReference } from '../../../../api/types/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { column, since, wide } from '../../columns.js';

/** what an event row shows, whichever shape the event has */
export interface EventView {
  metadata?: ObjectMeta;
  type?: string;
  reason?: string;
  regarding: ObjectReference;
  /** the component reporting the event, and its host */
  source: { component?: string; host?: string };
  message?: string;
  first?: string | null;
  last?: string | null;
  count?: number;
}

const sourceText = (e: EventView) => (e.source.host ? `${e.source.component ?? ''}, ${e.source.host}` : e.source.component ?? '');

/** kind/name of the object, or the kind alone for an event about no named object (a cluster-wide one) */
const objectText = (e: EventView) => {
  const kind = String(e.regarding.kind ?? '').toLowerCase();
  return e.regarding.name ? `${kind}/${e.regarding.name}` : kind;
};

/** events print without a leading Name column: Name is the last, wide column */
export function eventColumns<T>(view: (event: T) => EventView): TableColumn<T>[] {
  const cell = (f: (e: EventView) => unknown) => (event: T) => f(view(event));
  return [
    column('Last Seen', 'string', cell(e => since(e.last)), 'Time since the event was last seen.'),
    column('Type', 'string', cell(e => e.type ?? ''), 'Type of this event (Normal, Warning), new types could be added in the future.'),
    column('Reason', 'string', cell(e => e.reason ?? ''), 'Short, machine understandable reason for the transition into the object\'s current status.'),
    column('Object', 'string', cell(objectText), 'The object that this event is about.'),
    wide('Subobject', 'string', cell(e => e.regarding.fieldPath ?? ''), 'The subobject (for example a container) this event is about.'),
    wide('Source', 'string', cell(sourceText), 'The component reporting this event.'),
    column('Message', 'string', cell(e => (e.message ?? '').trim()), 'A human-readable description of the status of this operation.'),
    wide('First Seen', 'string', cell(e => since(e.first)), 'The time at which the event was first recorded.'),
    wide('Count', 'string', cell(e => e.count ?? 1), 'The number of times this event has occurred.'),
    wide('Name', 'string', cell(e => e.metadata?.name ?? ''), 'Name of the event.'),
  ];
}
