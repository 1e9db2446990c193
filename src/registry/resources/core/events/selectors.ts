// The `source` field selector of Events, read from the stored (core/v1) form whichever API lists them: the reference
// selects by `source.component`, or by `reportingComponent` when an event has no source (what the newer recorders
// write, as the scheduler does), so `--field-selector source=default-scheduler` finds the scheduler's events.
import { fieldAt } from '../../../strategy.js';

const component = fieldAt('source.component');
const reporting = fieldAt('reportingComponent');

export const eventSource = (e: unknown): string => component(e) || reporting(e);
