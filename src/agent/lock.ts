// --lock-file: the agent holds an exclusive lock on the file while it runs, waiting at start until it
// gets it. With --exit-on-lock-contention it leaves as soon as another agent asks for the lock. The
// lock is the system's (flock(2), through the flock program: Node has no call for it), held by a child
// that keeps it until the agent's end closes its input. An agent asking for a held lock first touches the
// file, which the holder watches.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, utimesSync, watch, type FSWatcher } from 'node:fs';

export interface FileLock {
  release(): void;
}

export async function acquireLock(path: string, onContention?: () => void): Promise<FileLock> {
  closeSync(openSync(path, 'a'));
  // tell a holder that watches for contention
  const now = new Date();
  utimesSync(path, now, now);
  const holder: ChildProcess = spawn('flock', ['--exclusive', path, 'sh', '-c', 'echo locked; exec cat'], { stdio: ['pipe', 'pipe', 'pipe'] });
  holder.stdin!.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    holder.stderr!.on('data', (d) => (stderr += d));
    holder.stdout!.once('data', () => resolve());
    holder.once('error', (e) => reject(new Error(`--lock-file ${path}: cannot run flock: ${e.message}`)));
    holder.once('exit', (code) => reject(new Error(`--lock-file ${path}: flock ended (${code}): ${stderr.trim()}`)));
  });
  holder.unref();
  let watcher: FSWatcher | undefined;
  if (onContention) {
    // the touch this agent made itself came before the lock was taken; later ones are contenders
    const since = Date.now() + 50;
    watcher = watch(path, () => {
      if (Date.now() >= since) onContention();
    });
    watcher.unref();
  }
  return {
    release() {
      watcher?.close();
      holder.stdin!.end();
      holder.kill();
    },
  };
}
