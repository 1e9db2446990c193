import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldCause, invalid } from './status.js';

test('an Invalid status says each cause once in its message and keeps every cause', () => {
  const dup = fieldCause('FieldValueDuplicate', 'metadata.finalizers', 'Duplicate value: "a/b"');
  const other = fieldCause('FieldValueRequired', 'metadata.name', 'Required value');
  const e = invalid('', 'ConfigMap', 'x', [dup, dup, other, dup]);
  assert.equal(e.status.message, 'ConfigMap "x" is invalid: [metadata.finalizers: Duplicate value: "a/b", metadata.name: Required value]');
  assert.equal(invalid('', 'ConfigMap', 'x', [dup, dup]).status.message, 'ConfigMap "x" is invalid: metadata.finalizers: Duplicate value: "a/b"');
  assert.equal(e.status.details?.causes?.length, 4);
});
