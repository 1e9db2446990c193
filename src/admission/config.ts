// The AdmissionConfiguration file (--admission-control-config-file): each plugin's configuration, inline or
// in a file of its own (a relative path is read beside the configuration file), and the checks a plugin's
// configuration object goes through before the plugin is built.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Naming } from '../api/naming.js';
import { loadYaml } from '../util/yaml.js';
import { unreadable } from '../util/files.js';

/** the AdmissionConfiguration file as it was parsed: nothing in it is checked yet */
interface AdmissionConfiguration {
  apiVersion?: unknown;
  kind?: unknown;
  plugins?: Array<{ name?: string; configuration?: unknown; path?: string } | null>;
}

/** a plugin's configuration and the file it came from */
export interface PluginConfig { config: unknown; path: string }

async function parseFile(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((e: unknown) => { throw new Error(unreadable(path, e)); });
  try { return JSON.parse(text); } catch { return (await loadYaml()).parse(text); }
}

/** plugin name -> its configuration object */
export async function loadAdmissionConfig(path: string, names: Naming): Promise<Map<string, PluginConfig>> {
  const out = new Map<string, PluginConfig>();
  if (!path) return out;
  // plugins read the files their configuration names (client configurations, in YAML) while they are built, synchronously
  await loadYaml();
  const doc = await parseFile(path) as AdmissionConfiguration | null | undefined;
  const group = names.group('apiserver.config');
  if (doc?.kind !== 'AdmissionConfiguration' || !String(doc.apiVersion ?? '').startsWith(`${group}/`))
    throw new Error(`${path}: expected kind AdmissionConfiguration of ${group}, got ${doc?.kind ?? 'nothing'} ${doc?.apiVersion ?? ''}`);
  for (const p of doc.plugins ?? []) {
    if (!p?.name) throw new Error(`${path}: a plugin entry has no name`);
    if (p.configuration !== undefined) out.set(p.name, { config: p.configuration, path });
    else if (p.path) {
      const file = resolve(dirname(path), p.path);
      out.set(p.name, { config: await parseFile(file), path: file });
    }
  }
  return out;
}

/** a configuration problem: the server refuses to start and says which plugin and field */
export const configError = (plugin: string, message: string) => new Error(`admission plugin ${plugin}: ${message}`);

/** a plugin's configuration object checked for its kind and `<base>.<domain>` group (any of the versions); undefined when absent */
export function typedConfig<T extends object>(plugin: string, config: unknown, names: Naming,
  expected: { kind: string; group: string; versions: string[] }): T | undefined {
  if (config === undefined || config === null) return undefined;
  const c = config as { apiVersion?: unknown; kind?: unknown };
  const group = names.group(expected.group);
  const apiVersions = expected.versions.map(v => `${group}/${v}`);
  if (typeof config !== 'object' || c.kind !== expected.kind || !apiVersions.includes(String(c.apiVersion)))
    throw configError(plugin, `expected a ${expected.kind} of ${apiVersions.join(' or ')}, got ${typeof config === 'object' ? `${c.kind ?? 'no kind'} ${c.apiVersion ?? ''}` : typeof config}`);
  return config as T;
}

/** the object under `key` of an untyped configuration ({ imagePolicy: {...} }); undefined when absent */
export function keyedConfig<T extends object>(plugin: string, config: unknown, key: string): T | undefined {
  if (config === undefined || config === null) return undefined;
  const inner = (config as Record<string, unknown>)[key];
  if (typeof config !== 'object' || !inner || typeof inner !== 'object') throw configError(plugin, `the configuration must hold an object under "${key}"`);
  return inner as T;
}
