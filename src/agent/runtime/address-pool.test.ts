import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressPool, subnet } from './address-pool.js';

test('a range split among nodes', () => {
  assert.equal(subnet('10.244.0.0/16', 0, 3), '10.244.0.0/18');
  assert.equal(subnet('10.244.0.0/16', 2, 3), '10.244.128.0/18');
  assert.equal(subnet('10.244.0.0/16', 5, 256), '10.244.5.0/24');
  assert.equal(subnet('fd00::/48', 1, 2), 'fd00:0:0:8000::/49');
});

test('addresses handed out in order, kept per owner, reused once released, and no more than the range holds', () => {
  const pool = addressPool('10.0.0.0/29');
  assert.equal(pool.allocate('a'), '10.0.0.2');
  assert.equal(pool.allocate('a'), '10.0.0.2', 'the same owner keeps its address');
  assert.equal(pool.allocate('b'), '10.0.0.3');
  for (const o of ['c', 'd', 'e']) assert.ok(pool.allocate(o));
  assert.equal(pool.allocate('f'), undefined, 'network, gateway and broadcast stay free');
  pool.release('b');
  assert.equal(pool.allocate('g'), '10.0.0.3');
  assert.equal(addressPool('fd00::/120').allocate('x'), 'fd00::2');
});
