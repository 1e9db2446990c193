// hostPath: a file or folder of the node, checked against the volume's type (created for
// DirectoryOrCreate and FileOrCreate). Local and hostPath persistent volumes use the same checks.

import { mkdir, open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import type { HostPathVolumeSource } from '../objects.js';
import type { VolumeKind } from './types.js';

/** each checked type: how the reference's messages name it, and whether a file is of it */
const types: Record<string, [description: string, is: (st: Stats) => boolean]> = {
  Directory: ['directory', (st) => st.isDirectory()],
  File: ['file', (st) => st.isFile()],
  Socket: ['socket file', (st) => st.isSocket()],
  CharDevice: ['character device', (st) => st.isCharacterDevice()],
  BlockDevice: ['block device', (st) => st.isBlockDevice()],
};

const typeOf = (st: Stats) => Object.entries(types).find(([, [, is]]) => is(st))?.[0] ?? 'unknown';

const statOf = (path: string) => stat(path).catch(() => undefined);
/** made meanwhile by someone else is fine: the type check below decides */
const unlessExists = (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EEXIST' && e.code !== 'EISDIR') throw e;
};

export async function checkHostPath(src: HostPathVolumeSource): Promise<void> {
  const type = src.type ?? '';
  const path = src.path;
  if (type === '') return;
  const kind = type.replace(/OrCreate$/, '');
  const expected = types[kind];
  if (!expected || (type.endsWith('OrCreate') && kind !== 'Directory' && kind !== 'File')) throw new Error(`${type} is an invalid volume type`);
  // what exists already is only checked, never replaced
  if (type === 'DirectoryOrCreate' && !(await statOf(path))) await mkdir(path, { recursive: true, mode: 0o755 }).catch(unlessExists);
  if (type === 'FileOrCreate' && !(await statOf(path))) await open(path, 'a', 0o644).then((f) => f.close(), unlessExists);
  const st = await statOf(path);
  if (!st) throw new Error(`hostPath ${path} doesn't exist`);
  if (!expected[1](st)) throw new Error(`hostPath type check failed: ${path} is not a ${expected[0]}, it's a ${typeOf(st)}`);
}

export const hostPathVolume: VolumeKind = {
  async setUp(volume) {
    await checkHostPath(volume.hostPath!);
    return { path: volume.hostPath!.path, readOnly: false };
  },
};
