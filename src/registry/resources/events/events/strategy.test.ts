import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiObject } from '../../../../api/meta.js';
import { ctx, strategyOf, text } from '../../testing/strategy.js';

test('an events/v1 Event names the fields as the reference does', () => {
  const eventsV1 = strategyOf('events', 'events');
  const e: ApiObject = { metadata: { name: 'e', namespace: 'ns' }, eventTime: '2024-01-01T00:00:00.000000Z', type: 'Normal', regarding: { kind: 'Pod', name: 'p', namespace: 'ns' }, deprecatedCount: 3 };
  assert.deepEqual(text(eventsV1.validate!(e, ctx)), ['reportingController: Required value',
    'reportingController: Invalid value: "": name part must be non-empty',
    "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'reportingInstance: Required value', 'action: Required value', 'reason: Required value', 'count: Invalid value: "": needs to be unset']);
  assert.deepEqual(text(eventsV1.validateUpdate!({ ...e, note: 'changed' }, e, ctx)).filter(x => x.startsWith('message')), ['message: Invalid value: "changed": field is immutable']);
});
