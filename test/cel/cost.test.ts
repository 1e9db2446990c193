// The static cost estimator against costs the reference's model gives, and runtime budgets.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression, compileSchema, validateRules, perCallLimit } from '../../src/cel/rules.js';
import { typeOfSchema } from '../../src/cel/types.js';

const self = (schema: object) => { const t = typeOfSchema(schema as never); return { self: t, oldSelf: t }; };
const cost = (expr: string, schema: object = { type: 'object', properties: {} }) => {
  const c = compileExpression(expr, self(schema));
  assert.ok(c.ok, !c.ok ? c.error : '');
  return c.cost;
};

describe('static cost estimates', () => {
  test('constants, comparisons and literals', () => {
    assert.deepEqual(cost('1 == 1'), { min: 1, max: 1 });               // comparison 1, constants 0
    assert.deepEqual(cost('[1, 2, 3].size() > 0'), { min: 42, max: 42 }); // list literal 40 (spec §8), size 1, comparison 1
    assert.deepEqual(cost("{'a': 1}.size() == 1"), { min: 32, max: 32 });  // map literal 30
    assert.deepEqual(cost('true || false'), { min: 0, max: 0 });
  });
  test('string sizes from maxLength: equality 0.1 per character, regex length times input', () => {
    const s = { type: 'object', properties: { name: { type: 'string', maxLength: 100 } } };
    // self 1 + select 1 + equality ceil(0.1 * min(100, 3)) = 1
    assert.deepEqual(cost("self.name == 'abc'", s), { min: 3, max: 3 });
    // matches: ceil(0.1 * (100 + 1)) * ceil(0.25 * 8) = 11 * 2 = 22, plus self and select
    assert.deepEqual(cost("self.name.matches('^[a-z]+$')", s), { min: 4, max: 24 });
    assert.equal(cost("self.name.startsWith('abcdefghijk')", s).max, 2 + 2);
  });
  test('comprehensions multiply by the list size from maxItems', () => {
    const s = { type: 'object', properties: { items: { type: 'array', maxItems: 10, items: { type: 'integer' } } } };
    // range: self + select = 2; accu init 0; per item: loop condition (@not_strictly_false(@result): 1 ident + 1 call)
    // plus step (@result && x > 0: 1 + 1 ident + 1 comparison + 0); the result @result 1; 10 items
    const c = cost('self.items.all(x, x > 0)', s);
    assert.equal(c.max, 2 + 1 + 10 * (2 + 3));
  });
  test('unbounded strings and lists take their size from the 3 MiB request limit', () => {
    const s = { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } };
    // (3 MiB - 2) / (2 + 1) items of up to 3 MiB - 2 characters: far over the limit
    const problems = compileSchema({ ...s, 'x-kubernetes-validations': [{ rule: "self.list.all(x, x.matches('^a+$'))" }] } as never, 'schema').problems;
    assert.equal(problems.length, 2);
    assert.equal(problems[0].field, 'schema.x-kubernetes-validations[0].rule');
    assert.match(problems[0].message ?? '', /^Forbidden: estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength/);
    assert.match(problems[1].message ?? '', /estimated rule cost total for entire OpenAPIv3 schema exceeds budget/);
    const bounded = { type: 'object', properties: { list: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } } },
      'x-kubernetes-validations': [{ rule: "self.list.all(x, x.matches('^a+$'))" }] };
    assert.deepEqual(compileSchema(bounded as never, 'schema').problems, []);
  });
  test('rules under lists count once per possible item', () => {
    const item = { type: 'string', maxLength: 1000, 'x-kubernetes-validations': [{ rule: "self.matches('^(a|b)+$')" }] };
    const ok = compileSchema({ type: 'object', properties: { l: { type: 'array', maxItems: 100, items: item } } } as never, 's');
    assert.deepEqual(ok.problems, []);
    const tooMany = compileSchema({ type: 'object', properties: { l: { type: 'array', maxItems: 1_000_000, items: item } } } as never, 's');
    assert.equal(tooMany.problems[0]?.field, 's.properties[l].items.x-kubernetes-validations[0].rule');
  });
});

describe('runtime budgets', () => {
  const schema = (rule: string) => ({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-validations': [{ rule }] } } });
  test('a rule over the per-call limit halts with an error naming the rule', () => {
    // dyn input: the estimator cannot bound it, but the runtime cost can
    const s = schema('self.xs.all(a, self.xs.all(b, self.xs.all(c, a + b + c >= 0)))');
    const compiled = compileSchema(s as never, '');
    const xs = Array.from({ length: 120 }, (_, i) => i);
    const causes = validateRules(compiled, s as never, { spec: { xs } }, undefined);
    assert.equal(causes.length, 1);
    assert.equal(causes[0].field, 'spec');
    assert.match(causes[0].message ?? '', /^Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self\.xs\.all/);
    assert.ok(120 ** 3 > perCallLimit / 8);
  });
  test('the per-object budget stops further rules', () => {
    const s = schema('self.xs.all(a, a >= 0)');
    const compiled = compileSchema(s as never, '');
    const causes = validateRules(compiled, s as never, { spec: { xs: Array.from({ length: 50 }, (_, i) => i) } }, undefined, 100);
    assert.deepEqual(causes.map(c => c.message), ['Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run']);
    assert.deepEqual(validateRules(compiled, s as never, { spec: { xs: [1, 2] } }, undefined, 100), []);
  });
});

describe('string functions', () => {
  const holds = (rule: string, value: string) => {
    const s = { type: 'object', properties: { s: { type: 'string', maxLength: 1000 } }, 'x-kubernetes-validations': [{ rule }] };
    return validateRules(compileSchema(s as never, ''), s as never, { s: value }, undefined);
  };
  test('replace is Go\'s strings.Replace: n matches, an empty match before each character and at the end', () => {
    assert.deepEqual(holds("self.s.replace('b', 'XY') == 'aXYcXY'", 'abcb'), []);
    assert.deepEqual(holds("self.s.replace('b', 'XY', 1) == 'aXYcb'", 'abcb'), []);
    assert.deepEqual(holds("self.s.replace('b', 'XY', -1) == 'aXYcXY'", 'abcb'), []);
    assert.deepEqual(holds("self.s.replace('b', 'XY', 0) == 'abcb'", 'abcb'), []);
    assert.deepEqual(holds("self.s.replace('', '-') == '-a-é-c-'", 'aéc'), []);
    assert.deepEqual(holds("self.s.replace('', '-', 2) == '-a-éc'", 'aéc'), []);
  });
  test('replace builds its result in one pass: every character of a long string replaced by a long string', () => {
    // 1,000 matches each replaced by 2,000 characters: rebuilding the string at each match copied gigabytes
    assert.deepEqual(holds('self.s.replace("a", self.s + self.s).size() == 2000000', 'a'.repeat(1000)), []);
  });
});
