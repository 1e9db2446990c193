// Large YAML bodies are decoded on a thread of their own. js-yaml reads one to a few megabytes a second, so a body
// near the 3 MiB limit (a flow list, many anchors, deep nesting) would otherwise hold the server's event loop for
// seconds. The thread starts on first use, takes one document at a time, and hands back the decoded value (a
// structured clone keeps aliases shared, as the decoder made them); a thread that dies fails what it held, and the
// next body starts another.
import { Worker } from 'node:worker_threads';
import type { ValueBound } from './value-bounds.js';

/** the decoded value, the decoder's error message, or the bound the decoded value passes (it is then not sent) */
export type YamlThreadResult = { value: unknown } | { error: string } | { beyond: ValueBound };
export interface YamlThreadRequest { id: number; text: string; maxDepth: number; lastKeyWins: boolean; maxValues: number }

interface Waiting { resolve(r: YamlThreadResult): void; reject(e: Error): void }

let thread: Worker | undefined;
const waiting = new Map<number, Waiting>();
let nextId = 0;

function yamlThread(): Worker {
  if (thread) return thread;
  // a document whose decoding outgrows this heap ends the thread, not the server
  const t = new Worker(new URL('./yaml-thread-main.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: 512 } });
  t.on('message', ({ id, ...result }: { id: number } & YamlThreadResult) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (waiting.size === 0) t.unref();
    w?.resolve(result);
  });
  const fail = (e: Error) => {
    if (thread === t) thread = undefined;
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  t.on('error', fail);
  t.on('exit', (code) => fail(new Error(`the YAML decoding thread stopped (exit code ${code})`)));
  // an idle thread keeps no process alive; one at work does, as a pending request's socket would
  t.unref();
  return (thread = t);
}

/**
 * decodes one YAML document on the decoding thread; a value nested deeper than `maxDepth` (through aliases, which the
 * decoder's own bound does not follow) or holding more than `maxValues` values is refused there
 */
export function decodeYamlOffThread(text: string, maxDepth: number, lastKeyWins = false, maxValues = Infinity): Promise<YamlThreadResult> {
  const t = yamlThread();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    t.ref();
    t.postMessage({ id, text, maxDepth, lastKeyWins, maxValues } satisfies YamlThreadRequest);
  });
}
