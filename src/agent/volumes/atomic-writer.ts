// Writes the files of a configMap, secret, downwardAPI or projected volume so that a container reading
// them sees the old set or the new one, never a mix: each version goes into a hidden folder
// `..<time>`, the symbolic link `..data` is switched to it by one rename, and the visible names are
// links through `..data`. Nothing is written when the content and modes are unchanged.

import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, symlink, unlink, writeFile, chmod, chown } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';

export interface FileContent {
  data: Buffer;
  mode: number;
}

/** relative path → content */
export type FileSet = Map<string, FileContent>;

const dataLink = '..data';

/** a path a volume item may use: relative, inside the volume, not one of the writer's own names */
export function checkItemPath(path: string): string | undefined {
  if (!path || path.startsWith('/')) return `${JSON.stringify(path)} must be a relative path`;
  if (normalize(path).split(sep).includes('..')) return `${JSON.stringify(path)} must not contain '..'`;
  if (path.startsWith('..')) return `${JSON.stringify(path)} must not start with '..'`;
  return undefined;
}

async function unchanged(current: string, files: FileSet): Promise<boolean> {
  const existing = await listFiles(current).catch(() => undefined);
  if (!existing || existing.length !== files.size) return false;
  for (const rel of existing) {
    const want = files.get(rel);
    if (!want) return false;
    const [data, st] = await Promise.all([readFile(join(current, rel)), stat(join(current, rel))]);
    if ((st.mode & 0o7777) !== want.mode || !data.equals(want.data)) return false;
  }
  return true;
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listFiles(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/** Makes `dir` hold exactly `files`; returns whether anything changed. */
export async function writeAtomically(dir: string, files: FileSet, gid?: number): Promise<boolean> {
  for (const path of files.keys()) {
    const problem = checkItemPath(path);
    if (problem) throw new Error(`invalid item path: ${problem}`);
  }
  await mkdir(dir, { recursive: true });
  const current = await readlink(join(dir, dataLink)).catch(() => undefined);
  if (current && (await unchanged(join(dir, current), files))) return false;

  const stamp = new Date().toISOString().replace(/[:.]/g, '_');
  const version = await mkdtemp(join(dir, `..${stamp}.`));
  await chmod(version, 0o755);
  for (const [rel, f] of files) {
    const file = join(version, rel);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, f.data);
    await chmod(file, f.mode);
    if (gid !== undefined) await chown(file, -1, gid);
  }
  if (gid !== undefined) await chown(version, -1, gid);

  const tmp = join(dir, `${dataLink}_tmp`);
  await unlink(tmp).catch(() => {});
  await symlink(version.slice(dir.length + 1), tmp);
  await rename(tmp, join(dir, dataLink));

  // the visible names: one link per top-level entry, through ..data
  const top = new Set([...files.keys()].map((p) => p.split('/')[0]!));
  for (const name of top) {
    const link = join(dir, name);
    const target = join(dataLink, name);
    const existing = await readlink(link).catch(() => undefined);
    if (existing === target) continue;
    await rm(link, { force: true, recursive: true });
    await symlink(target, link);
  }
  for (const e of await readdir(dir)) {
    if (e.startsWith('..') || top.has(e)) continue;
    const st = await lstat(join(dir, e));
    if (st.isSymbolicLink() && (await readlink(join(dir, e))).startsWith(`${dataLink}/`)) await unlink(join(dir, e));
  }
  if (current && current !== version.slice(dir.length + 1)) await rm(join(dir, current), { recursive: true, force: true });
  return true;
}
