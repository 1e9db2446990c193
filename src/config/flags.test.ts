import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, formatDuration, help, parseDuration, parseFlags, type FlagDecl } from './flags.js';

const decls: FlagDecl[] = [
  { name: 'port', type: 'int', default: 6443, help: 'Port to serve on.', validate: (v) => ((v as number) > 65535 ? 'must be at most 65535' : undefined) },
  { name: 'ratio', type: 'float', default: 0.5, help: 'A ratio.' },
  { name: 'name', type: 'string', default: '', help: 'A name.' },
  { name: 'watch-cache', type: 'bool', default: true, help: 'Enable the watch cache.' },
  { name: 'verbose', type: 'bool', default: false, help: 'Talk more.' },
  { name: 'timeout', type: 'duration', default: 60_000, help: 'Request timeout.' },
  { name: 'modes', type: 'stringList', default: ['AlwaysAllow'], help: 'Authorization modes.' },
  { name: 'gates', type: 'map', default: {}, help: 'Feature gates.' },
  { name: 'backend', type: 'enum', values: ['memory', 'sqlite', 'etcd'], default: 'sqlite', help: 'Storage backend.' },
  { name: 'old-flag', type: 'string', help: 'Legacy.', deprecated: 'use --name instead' },
  { name: 'secret', type: 'string', help: 'Internal.', hidden: true },
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Log verbosity.' },
];

describe('parseFlags', () => {
  test('defaults when nothing is given', () => {
    const p = parseFlags(decls, []);
    assert.equal(p.values.port, 6443);
    assert.deepEqual(p.values.modes, ['AlwaysAllow']);
    assert.equal(p.values['watch-cache'], true);
    assert.equal(p.given.size, 0);
    assert.equal(p.help, false);
  });

  test('--name=value and --name value', () => {
    const p = parseFlags(decls, ['--port=8443', '--name', 'x', '--ratio', '1.25', '--backend=etcd']);
    assert.equal(p.values.port, 8443);
    assert.equal(p.values.name, 'x');
    assert.equal(p.values.ratio, 1.25);
    assert.equal(p.values.backend, 'etcd');
    assert.deepEqual([...p.given].sort(), ['backend', 'name', 'port', 'ratio']);
  });

  test('booleans: bare, =false, and a following word is not consumed', () => {
    const p = parseFlags(decls, ['--verbose', '--watch-cache=false', 'positional']);
    assert.equal(p.values.verbose, true);
    assert.equal(p.values['watch-cache'], false);
    assert.deepEqual(p.args, ['positional']);
    assert.throws(() => parseFlags(decls, ['--verbose=maybe']), /--verbose.*true or false/);
  });

  test('lists are comma-separated and repeatable; the first use replaces the default', () => {
    const p = parseFlags(decls, ['--modes=Node,RBAC', '--modes', 'Webhook']);
    assert.deepEqual(p.values.modes, ['Node', 'RBAC', 'Webhook']);
    assert.deepEqual(parseFlags(decls, ['--modes=']).values.modes, []);
  });

  test('maps take k=v pairs, repeatable, values may contain =', () => {
    const p = parseFlags(decls, ['--gates=A=true,B=false', '--gates', 'C=x=y']);
    assert.deepEqual(p.values.gates, { A: 'true', B: 'false', C: 'x=y' });
    assert.throws(() => parseFlags(decls, ['--gates=A']), (e: Error) => e instanceof FlagError && /--gates/.test(e.message) && /key=value/.test(e.message));
  });

  test('defaults are not shared between parses', () => {
    parseFlags(decls, ['--gates=A=1']);
    assert.deepEqual(parseFlags(decls, []).values.gates, {});
  });

  test('durations in Go form become milliseconds', () => {
    assert.equal(parseFlags(decls, ['--timeout=300ms']).values.timeout, 300);
    assert.equal(parseFlags(decls, ['--timeout', '1m30s']).values.timeout, 90_000);
    assert.throws(() => parseFlags(decls, ['--timeout=5']), /--timeout.*duration such as/);
  });

  test('an unknown flag is an error naming it, with a suggestion when close', () => {
    assert.throws(() => parseFlags(decls, ['--prot=1']), /unknown flag --prot \(did you mean --port\?\)/);
    assert.throws(() => parseFlags(decls, ['--completely-different']), (e: Error) => e.message === 'unknown flag --completely-different');
    assert.throws(() => parseFlags(decls, ['-port=1']), /unknown flag -port/);
  });

  test('invalid values name the flag and the expected form', () => {
    assert.throws(() => parseFlags(decls, ['--port=abc']), /invalid value "abc" for flag --port: expected an integer/);
    assert.throws(() => parseFlags(decls, ['--ratio=x']), /--ratio: expected a number/);
    assert.throws(() => parseFlags(decls, ['--backend=mysql']), /--backend: expected one of memory, sqlite, etcd/);
    assert.throws(() => parseFlags(decls, ['--port']), /--port needs a value/);
    assert.throws(() => parseFlags(decls, ['--port=70000']), /invalid value for flag --port: must be at most 65535/);
  });

  test('deprecated flags warn once; help flags and -- are recognised', () => {
    const p = parseFlags(decls, ['--old-flag=a', '--old-flag=b', '-h', '--', '--port=1']);
    assert.deepEqual(p.warnings, ['flag --old-flag is deprecated: use --name instead']);
    assert.equal(p.values['old-flag'], 'b');
    assert.equal(p.help, true);
    assert.deepEqual(p.args, ['--port=1']);
    assert.equal(parseFlags(decls, ['--help']).help, true);
  });

  test('short aliases', () => {
    assert.equal(parseFlags(decls, ['-v=3']).values.v, 3);
    assert.equal(parseFlags(decls, ['-v', '4']).values.v, 4);
    assert.equal(parseFlags(decls, ['--v=5']).values.v, 5);
  });
});

describe('durations', () => {
  test('Go forms', () => {
    const cases: [string, number][] = [
      ['0', 0], ['0s', 0], ['300ms', 300], ['5s', 5000], ['1m30s', 90_000], ['2h', 7_200_000],
      ['1.5h', 5_400_000], ['-2s', -2000], ['1h2m3s4ms', 3_723_004], ['500us', 0.5], ['.5s', 500],
    ];
    for (const [s, ms] of cases) assert.equal(parseDuration(s), ms, s);
    for (const s of ['', '5', 's', '1d', '1m 2s', '--1s', '1.2.3s']) assert.throws(() => parseDuration(s), s);
  });

  test('formatting round-trips', () => {
    for (const ms of [0, 300, 5000, 90_000, 7_200_000, 1800_000]) assert.equal(parseDuration(formatDuration(ms)), ms);
    assert.equal(formatDuration(60_000), '1m0s');
    assert.equal(formatDuration(7_200_000), '2h0m0s');
  });
});

describe('help', () => {
  test('sorted, with type, default and description; hidden left out; deprecated marked', () => {
    const text = help(decls, { usage: 'prog [flags]' });
    assert.match(text, /^Usage: prog \[flags\]/);
    const flagLines = text.split('\n').filter((l) => /^\s+(-\w, )?--/.test(l)).map((l) => /--([a-z-]+)/.exec(l)![1]!);
    assert.deepEqual(flagLines, [...flagLines].sort());
    assert.ok(flagLines.includes('help') && flagLines.includes('port'));
    assert.match(text, /--port int {2}\(default 6443\)\n\s+Port to serve on\./);
    assert.match(text, /--timeout duration {2}\(default 1m0s\)/);
    assert.match(text, /--modes stringList {2}\(default AlwaysAllow\)/);
    assert.match(text, /--backend memory\|sqlite\|etcd {2}\(default sqlite\)/);
    assert.match(text, /Legacy\. \(DEPRECATED: use --name instead\)/);
    assert.match(text, /-v, --v int/);
    assert.doesNotMatch(text, /secret/);
  });
});
