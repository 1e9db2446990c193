import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionPlugin } from '../api/admission.js';
import { admissionFor, observedChain } from './chain.js';

test('the observed chain runs the plugins in order and tells of each call and, once, of each phase', async () => {
  const ran: string[] = [], seen: string[] = [];
  const plugins: AdmissionPlugin[] = [
    { name: 'sync', admit() { ran.push('sync.admit'); } },
    { name: 'async', async admit() { ran.push('async.admit'); }, async validate() { ran.push('async.validate'); } },
    { name: 'updates only', operations: ['UPDATE'], admit() { ran.push('never'); } },
    { name: 'pods only', resources: [['', 'pods']], admit() { ran.push('never'); }, validate() { ran.push('never'); } },
    { name: 'config maps of another group', resources: [['other', 'configmaps']], admit() { ran.push('never'); } },
    { name: 'config maps', resources: [['', 'pods'], ['', 'configmaps']], admit() { ran.push('configmaps.admit'); } },
    { name: 'refuses', validate(a) { if (a.object?.metadata.name === 'bad') throw new Error('refused'); ran.push('refuses.validate'); } },
  ];
  const chain = observedChain(plugins, {
    plugin: (p, phase, op, s, e) => { assert.ok(s >= 0); seen.push(`${p.name} ${phase} ${op}${e ? ' refused' : ''}`); },
    phase: (phase, op, s, e) => { assert.ok(s >= 0); seen.push(`phase ${phase} ${op}${e ? ' refused' : ''}`); },
  });
  const base = { group: '', version: 'v1', resource: 'configmaps', subresource: '', kind: { group: '', version: 'v1', kind: 'ConfigMap' }, namespace: 'ns', name: '', dryRun: false };
  const hooks = admissionFor([chain], base);
  await hooks.mutate('CREATE', { metadata: { name: 'ok' } }, undefined);
  await hooks.validate('CREATE', { metadata: { name: 'ok' } }, undefined);
  assert.deepEqual(ran, ['sync.admit', 'async.admit', 'configmaps.admit', 'async.validate', 'refuses.validate']);
  assert.deepEqual(seen, ['sync admit CREATE', 'async admit CREATE', 'config maps admit CREATE', 'phase admit CREATE',
    'async validate CREATE', 'refuses validate CREATE', 'phase validate CREATE']);
  seen.length = 0;
  await assert.rejects(hooks.validate('CREATE', { metadata: { name: 'bad' } }, undefined), /refused/);
  assert.deepEqual(seen, ['async validate CREATE', 'refuses validate CREATE refused', 'phase validate CREATE refused']);
});
