// events/v1: the newer form of Events.
import { kind, type DescriptionTable } from './common.js';

export default {
  Event: kind('An Event reports something that happened to an object, such as a pod being scheduled or an image failing to pull. Events are kept for a limited time (an hour by default) and are meant for people, not for program logic.', {
    eventTime: 'When the event first happened. Required.',
    series: 'The series of similar events this one belongs to, if it happened more than once.',
    reportingController: 'The controller that reported the event, such as "{labels}/kubelet". Required for new events.',
    reportingInstance: 'The instance of the controller that reported the event, such as the node name. Required for new events.',
    action: 'What was done, or failed to be done, to the regarding object, such as "Binding" or "Pulling". At most 128 characters.',
    reason: 'A short CamelCase code for why the action was taken, such as "Scheduled". At most 128 characters.',
    regarding: 'The object the event is about.',
    related: 'A second object the event is about, if any, such as the node a pod was bound to.',
    note: 'A human-readable description of what happened; at most 1 KiB.',
    type: 'The event\'s type: "Normal" or "Warning".',
    deprecatedSource: 'The reporting component, in the form of core/v1 Events.',
    deprecatedFirstTimestamp: 'When the event was first seen, in the form of core/v1 Events.',
    deprecatedLastTimestamp: 'When the event was last seen, in the form of core/v1 Events.',
    deprecatedCount: 'How many times the event was seen, in the form of core/v1 Events.',
  }),
  EventSeries: {
    '': 'A series of similar events, counted rather than reported one by one.',
    count: 'How many times the event has happened so far in the series.',
    lastObservedTime: 'When the event last happened.',
  },
} satisfies DescriptionTable;
