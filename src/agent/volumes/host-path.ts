// hostPath: a file or folder of the node, checked against the volume's type (created for
// DirectoryOrCreate and FileOrCreate). Local and hostPath persistent volumes use the same checks.

import { mkdir, open, stat } from 'node:fs/promises';
import type { HostPathVolumeSource } from '../objects.js';
import type { VolumeKind } from './types.js';

const what: Record<string, string> = {
  Directory: 'a directory', File: 'a file', Socket: 'a socket', CharDevice: 'a character device', BlockDevice: 'a block device',
};

export async function checkHostPath(src: HostPathVolumeSource): Promise<void> {
  const type = src.type ?? '';
  const path = src.path;
  if (type === 'DirectoryOrCreate') await mkdir(path, { recursive: true, mode: 0o755 });
  if (type === 'FileOrCreate') {
    const st = await stat(path).catch(() => undefined);
    if (!st) await (await open(path, 'a', 0o644)).close();
  }
  if (type === '') return;
  const st = await stat(path).catch(() => undefined);
  const kind = type.replace(/OrCreate$/, '');
  if (!st) throw new Error(`hostPath type check failed: ${path} does not exist`);
  const ok = { Directory: st.isDirectory(), File: st.isFile(), Socket: st.isSocket(), CharDevice: st.isCharacterDevice(), BlockDevice: st.isBlockDevice() }[kind];
  if (ok === undefined) throw new Error(`hostPath type ${JSON.stringify(type)} is not known`);
  if (!ok) throw new Error(`hostPath type check failed: ${path} is not ${what[kind]}`);
}

export const hostPathVolume: VolumeKind = {
  async setUp(volume) {
    await checkHostPath(volume.hostPath!);
    return { path: volume.hostPath!.path, readOnly: false };
  },
};
