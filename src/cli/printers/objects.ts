// Objects as JSON (four-space indent), YAML (sequences flush with their key, no folding) and names, with keys
// in sorted order as the reference prints the objects it reads; several objects print as one `List`.

import type { ApiObject } from '../../api/meta.js';
import { loadYaml } from '../../util/yaml.js';

export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export const asList = (items: unknown[]) => ({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } });

export function toJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 4)}\n`;
}

export async function toYaml(value: unknown): Promise<string> {
  const { stringify } = await loadYaml();
  return stringify(sortKeys(value), { version: '1.1', indentSeq: false, lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false });
}

/** `kind[.group]/name` in lower case, as `-o name` prints */
export function nameOf(obj: ApiObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  return `${String(obj.kind ?? '').toLowerCase()}${group ? `.${group}` : ''}/${obj.metadata?.name ?? ''}`;
}
