// The README's table of the agent's options: every option of the agent has its row, and the rows of options
// accepted without effect say so with the reason --help gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { agentFlags } from '../../src/agent/options.js';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const table = readme.slice(readme.indexOf('### Options (spec 4.9)'));
const row = (name: string) => table.split('\n').find((l) => l.startsWith(`| \`--${name}\` |`));

test('every option of the agent has a row in the README', () => {
  const missing = agentFlags.filter((d) => !row(d.name)).map((d) => d.name);
  assert.deepEqual(missing, []);
});

test('options without effect say so, with the reason of --help; the others say what they do', () => {
  for (const d of agentFlags) {
    const r = row(d.name)!;
    if (d.noEffect) assert.ok(r.includes(`Accepted without effect: ${d.noEffect}`), `--${d.name}: ${r}`);
    else assert.match(r, /\| (Acts|Ours)[:.]/, `--${d.name}: ${r}`);
  }
});
