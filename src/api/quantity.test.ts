import { test } from 'node:test';
import assert from 'node:assert/strict';
import { milliUnits, quantityProblem, quantityValue, wholeUnits } from './quantity.js';

test('quantities: suffixes, exponents, and rounding up to whole units and milli-units', () => {
  assert.equal(quantityValue('1.5Gi'), 1.5 * 2 ** 30);
  assert.equal(quantityValue('2e3'), 2000);
  assert.equal(quantityValue(3), 3);
  assert.equal(quantityValue('1.5 Gi'), undefined);
  assert.equal(quantityValue('lots'), undefined);
  assert.equal(milliUnits('100m'), 100);
  assert.equal(milliUnits('0.1'), 100);
  assert.equal(milliUnits('1.1'), 1100);
  assert.equal(milliUnits('1u'), 1, 'a millionth of a CPU still asks for a millicore');
  assert.equal(milliUnits('2'), 2000);
  assert.equal(wholeUnits('1Gi'), 2 ** 30);
  assert.equal(wholeUnits('1.5'), 2);
  assert.equal(wholeUnits('500m'), 1);
  assert.equal(wholeUnits('nothing'), 0);
});

test('what decodes as a quantity, as the reference parses one', () => {
  for (const q of ['1', ' 1 ', '+1', '1.', '.5', '1e3', '1E+3', '1e-3', '100m', '1.5Gi', '1Ei', '1e2147483647', 1e300, 3, '9'.repeat(500)]) assert.equal(quantityProblem(q), undefined, String(q));
  const format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  for (const q of ['garbage', '', 'Ki', '١', {}, [], true]) assert.equal(quantityProblem(q), format, JSON.stringify(q));
  for (const q of ['1KiB', '1ki', '1..2', '1e', '1e+', '0x10', '1 Gi', '1e2147483648', '1e99999999999']) assert.equal(quantityProblem(q), "unable to parse quantity's suffix", q);
});
