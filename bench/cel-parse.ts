// How long parsing a long CEL expression takes: @bufbuild/cel's generated PEG parser against src/cel/parser.ts.
// Not part of `npm run bench`; run it alone after a build: `node --expose-gc dist/bench/cel-parse.js [rounds]`.
// Each figure is the best of the rounds (garbage collected between runs when --expose-gc is given), in
// microseconds per character of input.
import { parse } from '@bufbuild/cel';
import { parseCel } from '../src/cel/parser.js';

const size = 100_000;
const repeat = (piece: string, separator: string) => Array(Math.floor(size / (piece.length + separator.length))).fill(piece).join(separator);
const expressions: Array<[string, string]> = [
  ['rules joined by ||', repeat("self.spec.items[0].name.startsWith('abc') && self.x.all(y, y > 1)", ' || ')],
  ['comparisons joined by &&', repeat('self.replicas <= 10', ' && ')],
  ['a list of ints', `[${repeat('12345', ', ')}]`],
  ['a map of strings', `{${repeat("'key': 'value'", ', ')}}`],
  ['a string literal', `'${'a'.repeat(size - 2)}'`],
  ['macros in a list', `[${repeat('x.map(y, y * 2).filter(z, z % 3 == 0).exists(w, has(w.v))', ', ')}]`],
];

const rounds = Number(process.argv[2] ?? 5);
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});

function best(run: () => unknown): number {
  let fastest = Infinity;
  for (let r = 0; r < rounds; r++) {
    collect();
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

console.log(`${'expression'.padEnd(26)} ${'chars'.padStart(7)} ${'old µs/char'.padStart(12)} ${'new µs/char'.padStart(12)} ${'speedup'.padStart(8)}`);
for (const [name, source] of expressions) {
  const old = best(() => parse(source));
  const now = best(() => parseCel(source));
  const perChar = (ms: number) => (ms * 1000 / source.length).toFixed(3).padStart(12);
  console.log(`${name.padEnd(26)} ${String(source.length).padStart(7)} ${perChar(old)} ${perChar(now)} ${(old / now).toFixed(1).padStart(7)}x`);
}
