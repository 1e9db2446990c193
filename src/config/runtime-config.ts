// `--runtime-config` (spec §9): comma-separated `<key>[=<bool>]` entries, a missing value meaning true,
// that switch whole API tracks, group versions or single resources on and off.

import { parseBool } from './flags.js';

export type ApiTrack = 'ga' | 'beta' | 'alpha';

export interface RuntimeConfig {
  /** entries as given, keyed by their normal form: `api/all`, `api/beta`, `/v1` (core), `apps/v1`, `apps/v1/deployments` */
  readonly entries: ReadonlyMap<string, boolean>;
  /**
   * Whether a group version (or one of its resources) is served. The most specific entry wins:
   * resource, then group version, then its track (`api/ga|beta|alpha`), then `api/all`, then the default.
   */
  isEnabled(group: string, version: string, resource?: string, defaultEnabled?: boolean): boolean;
  warnings: string[];
}

export class RuntimeConfigError extends Error {
  override name = 'RuntimeConfigError';
}

const trackKeys = new Set(['api/all', 'api/ga', 'api/beta', 'api/alpha']);
const groupPattern = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const resourcePattern = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

export function versionTrack(version: string): ApiTrack | undefined {
  const m = /^v\d+(?:(alpha|beta)\d+)?$/.exec(version);
  return m ? ((m[1] as ApiTrack | undefined) ?? 'ga') : undefined;
}

const isVersion = (s: string) => versionTrack(s) !== undefined;

/** Accepts the flag's text, its already split list, or a key → value map. */
export function parseRuntimeConfig(spec: string | readonly string[] | Readonly<Record<string, string>> = ''): RuntimeConfig {
  const pairs: [string, string | undefined][] =
    typeof spec === 'string' ? splitPairs(spec.split(',')) : Array.isArray(spec) ? splitPairs(spec as readonly string[]) : Object.entries(spec);
  const entries = new Map<string, boolean>();
  const warnings: string[] = [];
  for (const [rawKey, rawValue] of pairs) {
    const key = normalizeKey(rawKey.trim());
    if (rawKey.trim() === 'api/legacy') warnings.push('runtime-config key api/legacy is deprecated: use v1 (or api/v1) for the core group');
    const value = rawValue === undefined || rawValue.trim() === '' ? true : parseBool(rawValue.trim());
    if (value === undefined) throw new RuntimeConfigError(`invalid value ${JSON.stringify(rawValue)} for runtime-config key ${rawKey}: expected true or false`);
    entries.set(key, value);
  }

  const isEnabled = (group: string, version: string, resource?: string, defaultEnabled = true): boolean => {
    const gv = `${group}/${version}`;
    const track = versionTrack(version);
    const candidates = [resource ? `${gv}/${resource}` : undefined, gv, track && `api/${track}`, 'api/all'];
    for (const key of candidates) {
      const value = key === undefined ? undefined : entries.get(key);
      if (value !== undefined) return value;
    }
    return defaultEnabled;
  };
  return { entries, isEnabled, warnings };
}

/**
 * Refuses entries naming group versions or resources the server does not serve, as the reference does.
 * `served` lists each group version (core as group '') with its resources.
 */
export function checkRuntimeConfig(config: RuntimeConfig, served: readonly { group: string; version: string; resources: readonly string[] }[]): void {
  const known = new Set<string>(trackKeys);
  for (const { group, version, resources } of served) {
    known.add(`${group}/${version}`);
    for (const r of resources) known.add(`${group}/${version}/${r}`);
  }
  const unknown = [...config.entries.keys()].filter((k) => !known.has(k));
  if (unknown.length) throw new RuntimeConfigError(`unknown API group versions or resources in runtime-config: ${unknown.map(displayKey).join(', ')}`);
}

function splitPairs(items: readonly string[]): [string, string | undefined][] {
  return items
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const eq = item.indexOf('=');
      return eq < 0 ? [item, undefined] : [item.slice(0, eq), item.slice(eq + 1)];
    });
}

/** Core keys become `/v1[/<resource>]`; the rest are checked for shape. */
function normalizeKey(key: string): string {
  if (trackKeys.has(key)) return key;
  if (key === 'api/legacy') return '/v1';
  const parts = key.split('/');
  // `v1`, `v1/pods`, `api/v1`, `api/v1/pods` all mean the core group
  const core = parts[0] === 'api' ? parts.slice(1) : isVersion(parts[0] ?? '') ? parts : undefined;
  if (core && core.length >= 1 && core.length <= 2 && isVersion(core[0]!) && (core.length === 1 || resourcePattern.test(core[1]!))) {
    return `/${core.join('/')}`;
  }
  const [group, version, resource] = parts;
  const ok =
    parts.length >= 2 && parts.length <= 3 &&
    groupPattern.test(group!) && isVersion(version!) &&
    (resource === undefined || resourcePattern.test(resource));
  if (!ok) {
    throw new RuntimeConfigError(
      `invalid runtime-config key ${JSON.stringify(key)}: expected api/all, api/ga, api/beta, api/alpha, v1, <group>/<version> or <group>/<version>/<resource>`,
    );
  }
  return key;
}

function displayKey(key: string): string {
  return key.startsWith('/') ? key.slice(1) : key;
}
