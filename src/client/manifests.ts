// Manifests: YAML (several documents) or JSON text made objects, `List`s expanded; files and folders read
// (folders' subfolders with `recursive`), in name order.

import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { ApiObject } from '../api/meta.js';
import { loadYaml } from '../util/yaml.js';

export class ManifestError extends Error {
  override name = 'ManifestError';
}

export const maxManifestBytes = 64 << 20;
const manifestExtensions = new Set(['.yaml', '.yml', '.json']);

export interface Manifest { object: ApiObject; source: string }

/** every document of a YAML or JSON text; empty documents skipped, Lists expanded; each must have a kind and apiVersion */
export async function parseManifests(text: string, source: string): Promise<Manifest[]> {
  if (text.length > maxManifestBytes) throw new ManifestError(`${source} is larger than ${maxManifestBytes} bytes`);
  const { parseAllDocuments } = await loadYaml();
  const out: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new ManifestError(`${source}: ${doc.errors[0]!.message}`);
    const value = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value)) throw new ManifestError(`${source}: a document is not an object`);
    const objects: ApiObject[] = /List$/.test(String(value.kind)) && Array.isArray(value.items) ? value.items : [value];
    for (const object of objects) {
      if (!object?.kind || !object.apiVersion) throw new ManifestError(`${source}: an object has no ${!object?.kind ? 'kind' : 'apiVersion'}`);
      out.push({ object, source });
    }
  }
  return out;
}

/** the manifests of files and folders; a folder named directly is read, its subfolders only with `recursive` */
export async function readManifestFiles(paths: string[], o: { recursive?: boolean } = {}): Promise<Manifest[]> {
  const out: Manifest[] = [];
  const visit = async (path: string, top: boolean): Promise<void> => {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new ManifestError(`the path "${path}" does not exist`);
    if (info.isDirectory()) {
      if (!top && !o.recursive) return;
      for (const name of (await readdir(path)).sort()) {
        const child = join(path, name);
        if ((await stat(child)).isDirectory() || manifestExtensions.has(extname(name))) await visit(child, false);
      }
      return;
    }
    if (info.size > maxManifestBytes) throw new ManifestError(`${path} is larger than ${maxManifestBytes} bytes`);
    out.push(...(await parseManifests(await readFile(path, 'utf8'), path)));
  };
  for (const p of paths) await visit(p, true);
  return out;
}
