import { test } from 'node:test';
import assert from 'node:assert/strict';
import { milliUnits, quantityValue, wholeUnits } from './quantity.js';

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
