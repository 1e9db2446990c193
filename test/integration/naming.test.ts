// The API domain: spelled only in the naming module, fixed when a store is first used, a different one refused later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../../src/testing.js';

function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

test('no vendor domain is spelled in the sources outside the naming module', () => {
  const src = join(repositoryRoot(), 'src');
  const literal = new RegExp(['(cluster|k8s|kubernetes)', '\\.io|vnd\\.(cluster|kubernetes)'].join(''));
  const offenders = sources(src)
    .filter(f => !f.endsWith(join('api', 'naming.ts')))
    .flatMap(f => readFileSync(f, 'utf8').split('\n').map((line, i) => ({ f, i, line })).filter(l => literal.test(l.line)))
    .map(l => `${l.f.slice(src.length + 1)}:${l.i + 1}: ${l.line.trim()}`);
  assert.deepEqual(offenders, []);
});

test('the API domain is fixed at the first start; another one is refused with a clear error', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'domain-'));
  try {
    const first = await startTestServer({ storage: 'sqlite', dataDir, apiDomain: 'k8s.io' });
    await first.close();
    await assert.rejects(startTestServer({ storage: 'sqlite', dataDir, apiDomain: 'cluster.io' }),
      /this store was created with --api-domain=k8s\.io; start with --api-domain=k8s\.io, or use a new data directory or store/);
    const again = await startTestServer({ storage: 'sqlite', dataDir, apiDomain: 'k8s.io' });
    await again.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
