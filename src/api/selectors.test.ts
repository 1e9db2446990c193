import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fieldSelectorRequires, labelSelectorFromObject, matchFields, matchLabels, parseFieldSelector, parseLabelSelector,
  qualifiedNameErrors, labelValueErrors, SelectorError, selectorToString,
} from './selectors.js';

function rejects(parse: () => unknown, message: string | RegExp) {
  assert.throws(parse, (e: unknown) => {
    assert.ok(e instanceof SelectorError, `expected a SelectorError, got ${String(e)}`);
    assert.equal(e.code, 400);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

const nameRegexError = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
  + "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
  + "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexError = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
  + "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
  + "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('label selectors: matching', () => {
  const labels = { app: 'web', tier: 'frontend', 'example.com/team': 'a', replicas: '3', empty: '' };
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', labels, true],
    ['', undefined, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['app!=db', labels, true],
    ['missing!=x', labels, true],
    ['app!=web', labels, false],
    ['app in (web,db)', labels, true],
    ['app in (db)', labels, false],
    ['missing in (x)', labels, false],
    ['app notin (db,cache)', labels, true],
    ['app notin (web)', labels, false],
    ['missing notin (x)', labels, true],
    ['app', labels, true],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['!app', labels, false],
    ['replicas>2', labels, true],
    ['replicas>3', labels, false],
    ['replicas<4', labels, true],
    ['app>1', labels, false], // not an integer: never matches
    ['missing<10', labels, false],
    ['example.com/team=a', labels, true],
    ['empty=', labels, true],
    ['empty in (,a)', labels, true],
    ['missing=', labels, false],
    ['app=web,tier=frontend', labels, true],
    ['app=web,tier=backend', labels, false],
    ['  app = web ,  tier in ( frontend , x )  ', labels, true],
    ['app=web', undefined, false],
    ['!app', undefined, true],
  ];
  for (const [s, ls, expected] of cases) {
    test(`${JSON.stringify(s)} on ${ls ? 'labels' : 'no labels'} -> ${expected}`, () => {
      assert.equal(matchLabels(parseLabelSelector(s), ls), expected);
    });
  }

  test('gt and lt compare 64-bit integers exactly', () => {
    const big = { n: '9223372036854775807' };
    assert.equal(matchLabels(parseLabelSelector('n>9223372036854775806'), big), true);
    assert.equal(matchLabels(parseLabelSelector('n<9223372036854775807'), big), false);
    assert.equal(matchLabels(parseLabelSelector('n>1'), { n: '9223372036854775808' }), false); // out of range
  });

  test('keywords are ordinary words outside the operator position', () => {
    const sel = parseLabelSelector('in=notin,notin in (in)');
    assert.equal(matchLabels(sel, { in: 'notin', notin: 'in' }), true);
    assert.equal(matchLabels(sel, { in: 'notin', notin: 'x' }), false);
  });
});

describe('label selectors: canonical form', () => {
  test('requirements are sorted by key, values sorted and unique', () => {
    const sel = parseLabelSelector('z in (b,a,b), a!=x, !m, k, n>3, o<2, p==q, r notin (c)');
    assert.equal(selectorToString(sel), 'a!=x,k,!m,n>3,o<2,p==q,r notin (c),z in (a,b)');
    assert.deepEqual(sel.requirements.find(r => r.key === 'z'), { key: 'z', operator: 'in', values: ['a', 'b'] });
  });

  test('the string form parses back to the same selector', () => {
    for (const s of ['a=b', 'a in (,x)', 'a notin ()', '!a,b', 'x>1,y<2,example.com/k==v', '']) {
      const sel = parseLabelSelector(s);
      assert.deepEqual(parseLabelSelector(selectorToString(sel)), sel);
    }
  });
});

describe('label selectors: errors name the offending token', () => {
  const cases: [string, string | RegExp][] = [
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a in (x', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (x y)', "unable to parse requirement: found 'y', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a in (x,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['a=b,', "found '', expected: identifier after ','"],
    ['a=b,,c', "found ',', expected: identifier after ','"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['=b', "found '=', expected: !, identifier, or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ['app:web', `unable to parse requirement: <nil>: Invalid value: "app:web": ${nameRegexError}`],
    ['a/b/c=d', /^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a qualified name must consist of/],
    ['app.example_com/name=x', /^unable to parse requirement: <nil>: Invalid value: "app.example_com\/name": prefix part a lowercase RFC 1123 subdomain/],
    ['/name=x', 'unable to parse requirement: <nil>: Invalid value: "/name": prefix part must be non-empty'],
    ['app=demo-{nginx}', `unable to parse requirement: values[0][app]: Invalid value: "demo-{nginx}": ${valueRegexError}`],
    ['environment>qa', `unable to parse requirement: values[0]: Invalid value: "qa": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['a in (x-,y-)', /^unable to parse requirement: \[values\[0\]\[a\]: Invalid value: "x-": .*, values\[1\]\[a\]: Invalid value: "y-": /],
    [`a=${'x'.repeat(64)}`, /Invalid value: "x{64}": must be no more than 63 characters/],
  ];
  for (const [s, message] of cases) {
    test(JSON.stringify(s), () => rejects(() => parseLabelSelector(s), message));
  }
});

describe('label selectors from the LabelSelector type', () => {
  test('matchLabels and matchExpressions combine', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['frontend', 'edge'] },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'owner', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(selectorToString(sel), 'app=web,env notin (dev),!legacy,owner,tier in (edge,frontend)');
    assert.equal(matchLabels(sel, { app: 'web', tier: 'edge', owner: 'x' }), true);
    assert.equal(matchLabels(sel, { app: 'web', tier: 'edge', owner: 'x', legacy: '1' }), false);
    assert.equal(matchLabels(sel, { app: 'web', tier: 'edge', owner: 'x', env: 'dev' }), false);
    assert.equal(matchLabels(sel, { app: 'web', tier: 'core', owner: 'x' }), false);
  });

  test('an empty selector selects everything, a missing one nothing', () => {
    assert.equal(matchLabels(labelSelectorFromObject({}), { a: 'b' }), true);
    assert.equal(matchLabels(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }), undefined), true);
    assert.equal(matchLabels(labelSelectorFromObject(null), {}), false);
    assert.equal(matchLabels(labelSelectorFromObject(undefined), { a: 'b' }), false);
  });

  test('invalid selectors are refused with the reference messages', () => {
    rejects(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
      '"Gt" is not a valid label selector operator');
    rejects(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
    rejects(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
      'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist');
    rejects(() => labelSelectorFromObject({ matchLabels: { 'bad key': 'v' } }), `key: Invalid value: "bad key": ${nameRegexError}`);
    rejects(() => labelSelectorFromObject({ matchLabels: { k: 'bad value' } }), /^values\[0\]\[k\]: Invalid value: "bad value"/);
  });
});

describe('label key and value validation', () => {
  test('qualified names', () => {
    for (const ok of ['a', 'A-b_c.d', 'example.com/name', 'a'.repeat(63), `${'a'.repeat(253)}/x`]) assert.deepEqual(qualifiedNameErrors(ok), [], ok);
    assert.deepEqual(qualifiedNameErrors(''), ['name part must be non-empty', nameRegexError]);
    assert.deepEqual(qualifiedNameErrors('a'.repeat(64)), ['name part must be no more than 63 characters']);
    assert.equal(qualifiedNameErrors('-a').length, 1);
    assert.equal(qualifiedNameErrors('Example.com/a').length, 1);
    assert.equal(qualifiedNameErrors(`${'a'.repeat(254)}/x`)[0], 'prefix part must be no more than 253 characters');
  });

  test('label values', () => {
    for (const ok of ['', 'a', 'a.b-c_d', '0', 'x'.repeat(63)]) assert.deepEqual(labelValueErrors(ok), [], ok);
    assert.deepEqual(labelValueErrors('-a'), [valueRegexError]);
    assert.deepEqual(labelValueErrors('x'.repeat(64)), ['must be no more than 63 characters']);
  });
});

describe('field selectors', () => {
  const podFields = ['spec.nodeName', 'status.phase', 'spec.restartPolicy'];
  const fields = { 'metadata.name': 'web', 'metadata.namespace': 'default', 'spec.nodeName': 'node-1', 'status.phase': 'Running' };

  test('=, == and != with AND', () => {
    assert.equal(matchFields(parseFieldSelector('metadata.name=web', podFields), fields), true);
    assert.equal(matchFields(parseFieldSelector('metadata.name==web', podFields), fields), true);
    assert.equal(matchFields(parseFieldSelector('metadata.name!=web', podFields), fields), false);
    assert.equal(matchFields(parseFieldSelector('status.phase!=Succeeded,status.phase!=Failed', podFields), fields), true);
    assert.equal(matchFields(parseFieldSelector('spec.nodeName=node-1,metadata.namespace=other', podFields), fields), false);
    assert.equal(matchFields(parseFieldSelector('', podFields), fields), true);
  });

  test('a field the object lacks reads as empty', () => {
    assert.equal(matchFields(parseFieldSelector('spec.restartPolicy=', podFields), fields), true);
    assert.equal(matchFields(parseFieldSelector('spec.restartPolicy!=', podFields), fields), false);
  });

  test('backslash escapes in values', () => {
    const sel = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d', podFields);
    assert.deepEqual(sel.terms, [{ field: 'metadata.name', operator: '=', value: 'a,b=c\\d' }]);
    assert.equal(selectorToString(sel), 'metadata.name=a\\,b\\=c\\\\d');
    assert.deepEqual(parseFieldSelector(selectorToString(sel), podFields), sel);
  });

  test('terms are sorted in the canonical form; == is written as =', () => {
    const sel = parseFieldSelector('status.phase==Running,metadata.name!=x', podFields);
    assert.equal(selectorToString(sel), 'metadata.name!=x,status.phase=Running');
  });

  test('the exact value a selector pins', () => {
    assert.equal(fieldSelectorRequires(parseFieldSelector('metadata.name=foo'), 'metadata.name'), 'foo');
    assert.equal(fieldSelectorRequires(parseFieldSelector('metadata.namespace=ns,metadata.name==foo'), 'metadata.name'), 'foo');
    assert.equal(fieldSelectorRequires(parseFieldSelector('metadata.name!=foo'), 'metadata.name'), undefined);
    assert.equal(fieldSelectorRequires(parseFieldSelector(''), 'metadata.name'), undefined);
    assert.equal(fieldSelectorRequires(parseFieldSelector('metadata.name='), 'metadata.name'), '');
  });

  test('kubectl describe: involvedObject fields of events', () => {
    const sel = parseFieldSelector('involvedObject.name=nginx,involvedObject.namespace=default,involvedObject.uid=u1',
      ['involvedObject.name', 'involvedObject.namespace', 'involvedObject.uid']);
    assert.equal(matchFields(sel, { 'involvedObject.name': 'nginx', 'involvedObject.namespace': 'default', 'involvedObject.uid': 'u1' }), true);
    assert.equal(matchFields(sel, { 'involvedObject.name': 'nginx', 'involvedObject.namespace': 'default', 'involvedObject.uid': 'u2' }), false);
  });

  test('unsupported fields are refused; metadata.name and metadata.namespace are always supported', () => {
    rejects(() => parseFieldSelector('spec.foo=bar', podFields), 'field label not supported: spec.foo');
    rejects(() => parseFieldSelector('spec.nodeName=x', []), 'field label not supported: spec.nodeName');
    rejects(() => parseFieldSelector('metadata.name =x', []), 'field label not supported: metadata.name ');
    assert.equal(parseFieldSelector('metadata.namespace=a,metadata.name=b', []).terms.length, 2);
    // without a supported list any field is accepted
    assert.deepEqual(parseFieldSelector('anything.at.all=1').terms, [{ field: 'anything.at.all', operator: '=', value: '1' }]);
  });

  test('aliases rename old field names', () => {
    const sel = parseFieldSelector('spec.host=node-1', podFields, { 'spec.host': 'spec.nodeName' });
    assert.deepEqual(sel.terms, [{ field: 'spec.nodeName', operator: '=', value: 'node-1' }]);
    assert.equal(matchFields(sel, fields), true);
  });

  test('syntax errors', () => {
    rejects(() => parseFieldSelector('metadata.name'), "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    rejects(() => parseFieldSelector('a=b,c'), "invalid selector: 'a=b,c'; can't understand 'c'");
    rejects(() => parseFieldSelector('metadata.name=a=b'), 'invalid field selector: unescaped character in value: =');
    rejects(() => parseFieldSelector('metadata.name=a\\x'), 'invalid field selector: invalid escape sequence: \\x');
    rejects(() => parseFieldSelector('metadata.name=a\\'), 'invalid field selector: invalid escape sequence: \\');
  });

  test('empty terms are skipped', () => {
    assert.deepEqual(parseFieldSelector(',metadata.name=a,').terms, [{ field: 'metadata.name', operator: '=', value: 'a' }]);
  });
});
