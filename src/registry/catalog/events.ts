// events/v1: the same stored events as core/v1, in the newer shape.
import type { ResourceDefinition } from '../types.js';
import * as s from '../../api/schemas/events-v1.js';
import { define, only } from './define.js';
import * as c from './columns.js';

export const eventsResources: ResourceDefinition[] = [
  define({
    group: 'events', domainGroup: true, resource: 'events', kind: 'Event', shortNames: ['ev'], namespaced: true,
    versions: only('v1', s.event), columns: c.eventColumns,
  }),
];
