import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, milliUnits, quantityProblem, quantityValue, wholeUnits } from './quantity.js';

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

test('canonical quantities, as the reference stores and serves them', () => {
  const cases: Array<[string | number, string]> = [
    ['0.5', '500m'], [0.5, '500m'], ['1024Mi', '1Gi'], ['1000m', '1'], ['1e3', '1e3'], [1000, '1k'], ['1000', '1k'],
    ['100m', '100m'], ['1.5', '1500m'], ['1536Mi', '1536Mi'], ['0.5Gi', '512Mi'], ['1.5Gi', '1536Mi'], ['2048Ki', '2Mi'],
    ['1000Ki', '1000Ki'], ['512Ki', '512Ki'], ['1Ki', '1Ki'], ['1024', '1024'], ['0.1m', '100u'], ['0.1n', '1n'],
    ['12e6', '12e6'], ['1.5e3', '1500'], ['10e3', '10e3'], ['1E', '1E'], ['1000G', '1T'], ['-1000m', '-1'], ['-0.5', '-500m'],
    ['0', '0'], ['0Mi', '0'], ['0.0', '0'], ['00', '0'], [' 2Gi ', '2Gi'], ['100Mi', '100Mi'], ['128974848', '128974848'],
    ['129e6', '129e6'], ['123Mi', '123Mi'], ['512', '512'], ['0.5Ki', '512'], ['1e-12', '1e-9'],
    ['20000000000000000000Ei', '9223372036854775807'], ['1e2147483647', '10e2147483646'], ['0.000000001', '1n'],
  ];
  for (const [given, canonical] of cases) assert.equal(canonicalQuantity(given), canonical, `${given}`);
});
