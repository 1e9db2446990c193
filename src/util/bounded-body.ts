// The answer of another server (a webhook, an issuer) is held in memory whole before it is read, so it has a bound:
// a peer that sends more fails the call, and its failure policy applies, instead of growing the heap until the
// process dies (a string past 512 MiB cannot even be made). It has a bound in time too: the whole answer within the
// call's time, not each piece of it, or a peer trickling its answer would hold its caller as long as it liked.

/** the most bytes an answer may have: far above any review, token or key set, far below what would hurt */
export const maxAnswerBytes = 64 * 1024 * 1024;

interface DataSource {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  destroy(error?: Error): unknown;
}

/** collects the stream's chunks into the array returned; past `limit` bytes it destroys the stream with an error */
export function boundedChunks(stream: DataSource, limit = maxAnswerBytes): Buffer[] {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) { chunks.push(chunk); return; }
    chunks.length = 0;
    stream.destroy(new Error(`the answer is larger than ${limit} bytes`));
  });
  return chunks;
}

export interface Settling<T> { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void }

/**
 * A call's outcome, settled once: by `resolve` or `reject`, or after `ms` by an error with `message`, when `cut` ends
 * the request (a later answer or error is then ignored)
 */
export function settledWithin<T>(ms: number, message: string, cut: (error: Error) => void): Settling<T> {
  let done = false;
  let fulfil!: (value: T) => void, fail!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => { fulfil = res; fail = rej; });
  const settle = (f: () => void) => { if (!done) { done = true; clearTimeout(timer); f(); } };
  const timer = setTimeout(() => { const e = new Error(message); cut(e); settle(() => fail(e)); }, ms);
  return { promise, resolve: (v) => settle(() => fulfil(v)), reject: (e) => settle(() => fail(e)) };
}
