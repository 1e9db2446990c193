// Client-configuration files: which files are read, how KUBECONFIG's merge, and where changes are written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parse } from 'yaml';
import { defaultFile, deleteEntry, kubeconfigLoading, loadKubeconfig, mergedDocument, renameContext, setCurrentContext, setEntry } from './kubeconfig.js';
import { resolveClientConfig } from './client-config.js';

let dir: string;
before(() => { dir = mkdtempSync(join(tmpdir(), 'kubeconfig-')); });
after(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, doc: object) => { const p = join(dir, name); writeFileSync(p, JSON.stringify(doc)); return p; };

test('which files: --kubeconfig alone, else every file of KUBECONFIG (deduplicated), else ~/.kube/config', () => {
  assert.deepEqual(kubeconfigLoading({ explicit: 'x', env: 'a:b' }), { files: [join(process.cwd(), 'x')], explicit: true });
  assert.deepEqual(kubeconfigLoading({ env: ['/a', '', '/b', '/a'].join(delimiter) }), { files: ['/a', '/b'], explicit: false });
  assert.deepEqual(kubeconfigLoading({ env: '', home: '/home/u' }), { files: ['/home/u/.kube/config'], explicit: false });
});

test('merging: the first file to name an entry or set the current context wins; missing files are skipped; paths stay relative to their file', async () => {
  const a = write('a', { clusters: [{ name: 'c', cluster: { server: 'https://a', 'certificate-authority': 'ca.crt' } }], contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }] });
  const b = write('b', { 'current-context': 'x', clusters: [{ name: 'c', cluster: { server: 'https://b' } }, { name: 'd', cluster: { server: 'https://d' } }], users: [{ name: 'u', user: { token: 't' } }] });
  const merged = await loadKubeconfig({ files: [a, join(dir, 'missing'), b], explicit: false });
  assert.equal(merged.currentContext, 'x');
  assert.equal(merged.currentContextFile, b);
  assert.equal(merged.clusters.get('c')!.entry.server, 'https://a');
  assert.equal(merged.clusters.get('d')!.file, b);
  assert.equal(mergedDocument(merged).clusters![0]!.cluster['certificate-authority'], join(dir, 'ca.crt'));
  const minified = mergedDocument(merged, { context: 'x' });
  assert.deepEqual(minified.clusters!.map((c) => c.name), ['c']);
  const config = await resolveClientConfig(merged, { namespace: 'n' }).catch((e: Error) => e);
  assert.match(String(config), /ca\.crt/, 'the CA file is read relative to the file that named it');
  await assert.rejects(loadKubeconfig({ files: [join(dir, 'missing')], explicit: true }), /no such file/);
});

test('writing: the current context where one is set, changed entries in their own file, new entries in the default file', async () => {
  const a = write('wa', { clusters: [{ name: 'one', cluster: { server: 'https://one' } }] });
  const b = write('wb', { 'current-context': 'ctx', contexts: [{ name: 'ctx', context: { cluster: 'one' } }] });
  const loading = { files: [a, b], explicit: false };
  assert.equal(defaultFile(loading), a, 'the first file that exists');
  await setCurrentContext(await loadKubeconfig(loading), 'other');
  assert.equal(parse(readFileSync(b, 'utf8'))['current-context'], 'other');
  await setEntry(await loadKubeconfig(loading), 'clusters', 'one', { server: 'https://changed' });
  assert.equal(parse(readFileSync(a, 'utf8')).clusters[0].cluster.server, 'https://changed');
  await setEntry(await loadKubeconfig(loading), 'users', 'new', { token: 'x' });
  assert.equal(parse(readFileSync(a, 'utf8')).users[0].name, 'new');
  await renameContext(await loadKubeconfig(loading), 'ctx', 'renamed');
  assert.equal(parse(readFileSync(b, 'utf8')).contexts[0].name, 'renamed');
  assert.ok(await deleteEntry(await loadKubeconfig(loading), 'clusters', 'one'));
  assert.deepEqual(parse(readFileSync(a, 'utf8')).clusters, []);
  assert.equal(await deleteEntry(await loadKubeconfig(loading), 'clusters', 'none'), false);
  // a list of files none of which exists: new entries go to the last
  const fresh = { files: [join(dir, 'n1'), join(dir, 'n2')], explicit: false };
  await setEntry(await loadKubeconfig(fresh), 'clusters', 'c', { server: 'https://c' });
  assert.ok(existsSync(join(dir, 'n2')) && !existsSync(join(dir, 'n1')));
});
