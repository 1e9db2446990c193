// Container logs as the node agent serves them: CRI log files read a chunk at a time, as fast as the client takes them
// (a file may be as large as rotation lets it grow, and many clients may read at once), a tail found by counting back
// from the file's end, the query's since and limit applied, then with follow the lines that come while the container runs.
import type { ServerResponse } from 'node:http';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { queryFlag } from '../api/request.js';
import { timeProblem } from '../api/meta.js';
import { HttpError } from './http-error.js';

export interface LogOptions { follow: boolean; timestamps: boolean; tailLines?: number; limitBytes?: number; since?: number }

interface LogEntry { time: string; text: string }

/** CRI log lines are `<RFC 3339 time> <stream> <P|F> <text>`; partial lines join the next. */
export function parseCriLog(raw: string, timestamps: boolean): string[] {
  return parseCriEntries(raw).entries.map((e) => `${timestamps ? `${fixedNanoTime(e.time)} ` : ''}${e.text}\n`);
}

/**
 * a log time as the reference's node agent prints it with `timestamps`: nine fraction digits always (its fixed
 * RFC 3339 nano form), whatever precision the runtime wrote
 */
export function fixedNanoTime(time: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(time);
  if (!m) return time;
  return `${m[1]}.${(m[2] ?? '').slice(0, 9).padEnd(9, '0')}${m[3]}`;
}

/** the whole lines of a CRI log text, and what is left of an unfinished one */
export function parseCriEntries(raw: string, partial = ''): { entries: LogEntry[]; partial: string; rest: string } {
  const entries: LogEntry[] = [];
  const end = raw.lastIndexOf('\n');
  // by hand rather than by a regular expression per line: logs are read in megabytes
  for (let at = 0; at <= end;) {
    const nl = raw.indexOf('\n', at);
    const s1 = raw.indexOf(' ', at);
    const s2 = s1 < 0 || s1 > nl ? -1 : raw.indexOf(' ', s1 + 1);
    const tag = s2 < 0 || s2 > nl ? '' : raw[s2 + 1];
    const stream = s2 < 0 ? '' : raw.slice(s1 + 1, s2);
    if ((tag === 'P' || tag === 'F') && (stream === 'stdout' || stream === 'stderr') && (s2 + 2 === nl || raw[s2 + 2] === ' ')) {
      partial += raw.slice(Math.min(s2 + 3, nl), nl);
      if (tag === 'F') { entries.push({ time: raw.slice(at, s1), text: partial }); partial = ''; }
    }
    at = nl + 1;
  }
  return { entries, partial, rest: raw.slice(end + 1) };
}

const flag = (url: URL, name: string) => queryFlag(url.searchParams.get(name));

/** a log query's numbers may be any 64-bit integer, as the reference decodes them */
const isInt64 = (v: string) => { const n = BigInt(v); return BigInt.asIntN(64, n) === n; };

/**
 * the log query, as the reference's node agent reads it: what does not parse is a 400, what parses but is out of
 * range (tailLines below 0, limitBytes or sinceSeconds below 1, both since forms) a 422
 */
export function logOptions(url: URL): LogOptions {
  const num = (name: string, min: number) => {
    const v = url.searchParams.get(name);
    if (v === null) return undefined;
    // (kubectl logs --tail with the largest one is valid)
    if (!/^[+-]?\d{1,19}$/.test(v) || !isInt64(v)) throw new HttpError(400, `${name} must be an integer`);
    const n = Number(v);
    if (n < min) throw new HttpError(422, `${name}: Invalid value: ${n}: must be greater than or equal to ${min}`);
    return n;
  };
  const sinceSeconds = num('sinceSeconds', 1);
  const sinceTime = url.searchParams.get('sinceTime');
  if (sinceTime !== null && timeProblem(sinceTime)) throw new HttpError(400, 'sinceTime must be an RFC 3339 time');
  if (sinceTime !== null && sinceSeconds !== undefined) throw new HttpError(422, 'at most one of sinceTime or sinceSeconds may be specified');
  const since = sinceSeconds !== undefined ? Date.now() - sinceSeconds * 1000 : sinceTime !== null ? Date.parse(sinceTime) : undefined;
  return { follow: flag(url, 'follow'), timestamps: flag(url, 'timestamps'), tailLines: num('tailLines', 0), limitBytes: num('limitBytes', 1), since };
}

/** how often a followed log is looked at for new lines */
const followPollMs = 100;

/** how much of a log file is read at a time */
export const logChunkBytes = 1 << 20;

const sizeOf = (file: string) => stat(file).then((st) => st.size, () => undefined);

/** the followers of each log file waiting for its next look */
const lookingAt = new Map<string, Set<(size: number | undefined) => void>>();

/**
 * the file's size at its next look: one look each interval for all who follow the file, so that many followers
 * of one log (a client may open thousands) cost one timer and one stat, not one each
 */
function nextLook(file: string): Promise<number | undefined> {
  let waiting = lookingAt.get(file);
  if (!waiting) {
    const followers = new Set<(size: number | undefined) => void>();
    waiting = followers;
    lookingAt.set(file, followers);
    setTimeout(async function look() {
      const now = [...followers];
      followers.clear();
      if (!now.length) { lookingAt.delete(file); return; }
      const size = await sizeOf(file);
      for (const resolve of now) resolve(size);
      setTimeout(look, followPollMs);
    }, followPollMs);
  }
  return new Promise((resolve) => waiting.add(resolve));
}

/** up to `length` bytes of the file from `from` (fewer at its end) */
async function readAt(fh: FileHandle, from: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const { bytesRead } = await fh.read(buf, 0, length, from);
  return buf.subarray(0, bytesRead);
}

/** the same, the file opened for the read: a rotation puts a new file at the path */
async function readFileAt(file: string, from: number, length: number): Promise<Buffer> {
  const fh = await open(file, 'r').catch(() => undefined);
  if (!fh) return Buffer.alloc(0);
  try { return await readAt(fh, from, length); } finally { await fh.close(); }
}

/**
 * where the file's last `lines` lines start, counted back from its `size` a block at a time, as the reference's node
 * agent counts them: raw lines of the file (the pieces of a partial line each count), the final newline ending the
 * last line rather than starting one
 */
async function tailStart(file: string, size: number, lines: number): Promise<number> {
  if (lines === 0) return size;
  const fh = await open(file, 'r').catch(() => undefined);
  if (!fh) return size;
  try {
    let seen = 0;
    for (let at = size; at > 0;) {
      const n = Math.min(64 << 10, at);
      at -= n;
      const block = await readAt(fh, at, n);
      for (let i = block.length - 1; i >= 0; i--) {
        if (block[i] === 10 && at + i !== size - 1 && ++seen === lines) return at + i + 1;
      }
    }
    return 0;
  } finally {
    await fh.close();
  }
}

/** resolves when the response can take more, or is gone */
const drained = (res: ServerResponse) => new Promise<void>((resolve) => {
  const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
  res.on('drain', done).on('close', done);
});

/** the log's lines as asked (since, tail, limit), then with follow the lines that come while the container runs */
export async function streamLog(res: ServerResponse, file: string, o: LogOptions, running: () => boolean): Promise<void> {
  let closed = false;
  res.once('close', () => { closed = true; });
  let budget = o.limitBytes ?? Infinity;
  /** writes the entries the query lets through, within the byte limit; waits while the client is behind */
  const emit = async (entries: LogEntry[]) => {
    const lines: string[] = [];
    for (const e of entries) {
      if (o.since !== undefined && Date.parse(e.time) < o.since) continue;
      lines.push(o.timestamps ? `${fixedNanoTime(e.time)} ${e.text}\n` : `${e.text}\n`);
    }
    if (!lines.length) return;
    let out = Buffer.from(lines.join(''));
    if (out.length > budget) out = out.subarray(0, budget);
    budget -= out.length;
    if (!res.write(out) && !closed) await drained(res);
  };
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  let size = (await sizeOf(file)) ?? 0;
  let offset = 0;
  let partial = '';
  /** the bytes after the last whole line read */
  let rest: Buffer = Buffer.alloc(0);
  /** inside a line that is not kept (too long): what comes up to its end is dropped */
  let skipping = false;
  if (o.tailLines !== undefined) offset = await tailStart(file, size, o.tailLines);
  if (o.follow) res.flushHeaders();
  // what is there now a chunk at a time, then with follow what is added while the container runs
  while (!closed && budget > 0) {
    // looked at before reading, so that all the container wrote before it stopped is read
    const alive = o.follow && running();
    if (size < offset) { offset = 0; rest = Buffer.alloc(0); partial = ''; skipping = false; } // rotated: the new file from its start
    if (size > offset) {
      const bytes = await readFileAt(file, offset, Math.min(size - offset, logChunkBytes));
      if (!bytes.length) { size = offset; continue; } // shorter than it was: rotated, looked at again below
      offset += bytes.length;
      let text = rest.length ? Buffer.concat([rest, bytes]) : bytes;
      if (skipping) {
        // the rest of a line too long to be a runtime's, which writes at most 16 KiB a line
        const end = text.indexOf(10);
        text = end < 0 ? Buffer.alloc(0) : text.subarray(end + 1);
        skipping = end < 0;
      }
      const lastNewline = text.lastIndexOf(10);
      rest = text.subarray(lastNewline + 1);
      if (rest.length > logChunkBytes) { rest = Buffer.alloc(0); skipping = true; }
      const parsed = parseCriEntries(text.toString('utf8', 0, lastNewline + 1), partial);
      partial = parsed.partial;
      await emit(parsed.entries);
      continue;
    }
    if (!alive) break;
    size = (await nextLook(file)) ?? size;
  }
  if (!closed) res.end();
}
