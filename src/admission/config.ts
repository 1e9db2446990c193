// The AdmissionConfiguration file (--admission-control-config-file): each plugin's configuration, inline or
// in a file of its own (a relative path is read beside the configuration file).
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Naming } from '../api/naming.js';
import { loadYaml } from '../util/yaml.js';

/** the AdmissionConfiguration file as it was parsed: nothing in it is checked yet */
interface AdmissionConfiguration {
  apiVersion?: unknown;
  kind?: unknown;
  plugins?: Array<{ name?: string; configuration?: unknown; path?: string } | null>;
}

async function parseFile(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try { return JSON.parse(text); } catch { return (await loadYaml()).parse(text); }
}

/** plugin name -> its configuration object */
export async function loadAdmissionConfig(path: string, names: Naming): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  if (!path) return out;
  const doc = await parseFile(path) as AdmissionConfiguration | null | undefined;
  const group = names.group('apiserver.config');
  if (doc?.kind !== 'AdmissionConfiguration' || !String(doc.apiVersion ?? '').startsWith(`${group}/`))
    throw new Error(`${path}: expected kind AdmissionConfiguration of ${group}, got ${doc?.kind ?? 'nothing'} ${doc?.apiVersion ?? ''}`);
  for (const p of doc.plugins ?? []) {
    if (!p?.name) throw new Error(`${path}: a plugin entry has no name`);
    out.set(p.name, p.configuration ?? (p.path ? await parseFile(resolve(dirname(path), p.path)) : undefined));
  }
  return out;
}
