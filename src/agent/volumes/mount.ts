// Mounts the agent makes itself (tmpfs for memory-backed volumes, bind mounts for subPaths, its root
// folder made shared), through the mount program of --experimental-mounter-path; the mount table is
// read from /proc.

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Mounter {
  mount(source: string, target: string, fsType: string, options: string[]): Promise<void>;
  /** a bind mount of a file or folder onto another */
  bind(source: string, target: string, readOnly?: boolean): Promise<void>;
  unmount(target: string): Promise<void>;
  /** makes a folder a mount point of its own (bound onto itself) shared with the mount namespaces made from it */
  makeShared(path: string): Promise<void>;
  /** the mount points at or below a folder, deepest first */
  mountsUnder(path: string): Promise<string[]>;
}

/** fields of /proc/self/mountinfo: the mount point is the fifth, octal escapes for spaces and the like */
const unescape = (s: string) => s.replace(/\\(\d{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));

export async function mountTable(): Promise<{ target: string; shared: boolean }[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  return text.split('\n').filter(Boolean).map((line) => {
    const f = line.split(' ');
    const dash = f.indexOf('-');
    return { target: unescape(f[4] ?? ''), shared: f.slice(6, dash).some((x) => x.startsWith('shared:')) };
  });
}

export function createMounter(mountPath = 'mount'): Mounter {
  const mount = async (args: string[]) => {
    try {
      await run(mountPath, args, { timeout: 60_000 });
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`mount ${args.join(' ')} failed: ${(err.stderr || err.message).trim()}`);
    }
  };
  const self: Mounter = {
    async mount(source, target, fsType, options) {
      await mount(['-t', fsType, ...(options.length ? ['-o', options.join(',')] : []), source, target]);
    },
    async bind(source, target, readOnly = false) {
      await mount(['--bind', source, target]);
      if (readOnly) await mount(['-o', 'remount,bind,ro', target]);
    },
    async unmount(target) {
      try {
        await run('umount', [target], { timeout: 60_000 });
      } catch (e) {
        // a busy mount is detached now and freed once nothing uses it
        await run('umount', ['-l', target], { timeout: 60_000 }).catch(() => {
          throw new Error(`umount ${target} failed: ${((e as { stderr?: string }).stderr ?? (e as Error).message).trim()}`);
        });
      }
    },
    async makeShared(path) {
      const table = await mountTable();
      const own = table.filter((m) => m.target === path);
      if (!own.length) await mount(['--bind', path, path]);
      if (!own.some((m) => m.shared)) await mount(['--make-rshared', path]);
    },
    async mountsUnder(path) {
      const prefix = path.endsWith('/') ? path : `${path}/`;
      const targets = (await mountTable()).map((m) => m.target).filter((t) => t === path || t.startsWith(prefix));
      return [...new Set(targets)].sort((a, b) => b.length - a.length);
    },
  };
  return self;
}
