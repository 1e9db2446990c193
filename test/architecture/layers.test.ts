// The layer rules of .dependency-cruiser.cjs hold for the tree, and they do catch an import against the direction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');
const depcruise = join(root, 'node_modules/.bin/depcruise');

interface Violation { from: string; to: string; rule: { name: string } }

function cruise(cwd: string): Promise<Violation[]> {
  return new Promise((done, fail) => {
    execFile(depcruise, ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src'], { cwd, maxBuffer: 256 << 20 },
      (err, stdout, stderr) => {
        // depcruise exits non-zero when it finds violations; the JSON report is what counts
        try { done(JSON.parse(stdout).summary.violations); } catch { fail(err ?? new Error(stderr)); }
      });
  });
}

test('the tree has no import against the layer direction, and no circle', async () => {
  const violations = await cruise(root);
  assert.deepEqual(violations.map(v => `${v.rule.name}: ${v.from} → ${v.to}`), []);
});

test('an import against the direction is caught', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    cpSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    for (const d of ['api', 'registry', 'admission']) mkdirSync(join(dir, 'src', d), { recursive: true });
    writeFileSync(join(dir, 'src/registry/store.ts'), 'export const store = 1;\n');
    // the bottom layer reaching up, and admission reaching into the registry's internals
    writeFileSync(join(dir, 'src/api/leak.ts'), "import { store } from '../registry/store.js';\nexport const leak = store;\n");
    writeFileSync(join(dir, 'src/admission/plugin.ts'), "import type { store } from '../registry/store.js';\nexport type T = typeof store;\n");
    const found = (await cruise(dir)).map(v => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    assert.deepEqual(found, [
      'layer-admission: src/admission/plugin.ts → src/registry/store.ts',
      'layer-api: src/api/leak.ts → src/registry/store.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
