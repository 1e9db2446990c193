// The answer of another server (a webhook, an issuer) is held in memory whole before it is read, so it has a bound:
// a peer that sends more fails the call, and its failure policy applies, instead of growing the heap until the
// process dies (a string past 512 MiB cannot even be made).

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
