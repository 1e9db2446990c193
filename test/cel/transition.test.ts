// Transition rules (oldSelf) in lists: items of map lists correlate with their old selves by key, others not at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileSchema, validateRules } from '../../src/cel/rules.js';

const schema = {
  type: 'object', properties: {
    items: {
      type: 'array', maxItems: 100_000, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'],
      items: {
        type: 'object', required: ['name', 'port'],
        properties: { name: { type: 'string', maxLength: 20 }, port: { type: 'integer' }, size: { type: 'integer' } },
        'x-kubernetes-validations': [{ rule: 'self.size >= oldSelf.size', message: 'size may only grow' }],
      },
    },
  },
};
const compiled = compileSchema(schema as never, 'schema');
const check = (obj: unknown, old: unknown) => validateRules(compiled, schema as never, obj, old).map(c => `${c.field}: ${c.message}`);

test('an item meets the old item of the same keys, wherever it sits', () => {
  assert.deepEqual(compiled.problems, []);
  const old = { items: [{ name: 'a', port: 1, size: 5 }, { name: 'a', port: 2, size: 1 }] };
  assert.deepEqual(check({ items: [{ name: 'a', port: 2, size: 1 }, { name: 'a', port: 1, size: 6 }] }, old), []);
  assert.deepEqual(check({ items: [{ name: 'a', port: 2, size: 1 }, { name: 'a', port: 1, size: 4 }] }, old), ["items[1]: Invalid value: \"object\": size may only grow"]);
  // the key's type counts: port "1" is not port 1, so that item is new and no transition rule applies
  assert.deepEqual(check({ items: [{ name: 'a', port: '1', size: 0 }] }, old), []);
  assert.deepEqual(check({ items: [{ name: 'b', port: 1, size: 0 }] }, old), []);
});

test('correlating many items is linear: 50,000 items against 50,000 old ones', () => {
  const items = (size: number) => Array.from({ length: 50_000 }, (_, i) => ({ name: `n${i}`, port: i, size }));
  const old = { items: items(1) };
  // with a search per new item this would be 1.25 billion key comparisons; the failing item is the last
  const next = { items: items(1) };
  next.items[49_999] = { ...next.items[49_999], size: 0 };
  assert.deepEqual(check(next, old), ["items[49999]: Invalid value: \"object\": size may only grow"]);
});
