// Periodic compaction, as kube-apiserver drives it: at every tick, compact to the revision
// seen at the previous tick, so history (and the continue tokens that point into it) lives
// for about one interval.
import { isStorageError, type KV, type Revision } from './types.js';

export interface CompactorOptions {
  /** default 5 minutes */
  intervalMs?: number;
  /** where failures go; default console.error */
  log?: (message: string) => void;
}

export function startCompactor(kv: KV, opts: CompactorOptions = {}): { stop(): void } {
  const intervalMs = opts.intervalMs ?? 5 * 60_000;
  const log = opts.log ?? ((message: string) => console.error(message));
  let seen: Revision = 0;
  let compactedTo: Revision = 0;
  let running = false;

  const tick = async () => {
    if (running) return; // a slow compaction is not stacked on itself
    running = true;
    try {
      const target = seen;
      seen = await kv.currentRevision();
      if (target > compactedTo) {
        await kv.compact(target);
        compactedTo = target;
      }
    } catch (err) {
      // someone else compacted further already: that is the goal reached, not a failure
      if (!isStorageError(err, 'Compacted')) log(`storage compactor (${kv.name}): ${(err as Error).message ?? String(err)}`);
    } finally {
      running = false;
    }
  };

  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
