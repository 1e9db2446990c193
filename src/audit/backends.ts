// Where audit events go: a log (JSON lines or the legacy text lines; a file rotated by size, with backups
// compressed if asked and pruned by count and age, or stdout) and a webhook that receives them in batches. Each
// runs in one of three modes. In batch mode a request only hands its events over to a bounded buffer that one
// sender empties; when the sink is slower than the requests the buffer fills and further events are dropped and
// counted, so auditing never holds a request back. In blocking mode the request waits until its events are
// written (failures are counted, the request goes on); blocking-strict fails the request too when its first
// event cannot be written.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { readdir, stat, unlink } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { createStream } from 'rotating-file-stream';
import { tokenBucket } from '../util/token-bucket.js';
import type { WebhookClient } from '../util/webhook-client.js';

/** an audit event as written (audit.<domain>/v1 Event) */
export type AuditEvent = Record<string, unknown>;

export type AuditMode = 'blocking' | 'blocking-strict' | 'batch';

export interface Backend {
  /** hands events over: in batch mode it returns at once; a blocking backend's promise settles once they are
   *  written, and a strict one's rejects when they could not be */
  process(events: AuditEvent[]): void | Promise<void>;
  /** sends what is buffered, within the time given */
  shutdown(timeoutMs: number): Promise<void>;
}

export interface BatchOptions {
  mode: AuditMode;
  /** events held at most; more are dropped */
  bufferSize: number;
  maxBatchSize: number;
  /** how long the first event of a batch waits for more (0: a batch goes as soon as the sink is free) */
  maxWaitMs: number;
  throttle?: { qps: number; burst: number };
  send(events: AuditEvent[]): Promise<void>;
  /** events that were dropped (buffer full) or could not be sent */
  onError(count: number, why: string): void;
}

/** the backend of a mode: the request waits for the sink (blocking), or the bounded buffer stands between (batch) */
export function inMode(o: BatchOptions): Backend {
  if (o.mode === 'batch') return batching(o);
  const strict = o.mode === 'blocking-strict';
  return {
    async process(events) {
      try { await o.send(events); } catch (e) {
        o.onError(events.length, (e as Error).message);
        if (strict) throw e;
      }
    },
    async shutdown() {},
  };
}

/** the bounded buffer and the one sender that empties it, batch by batch, in order */
function batching(o: BatchOptions): Backend {
  const queue: AuditEvent[] = [];
  const bucket = o.throttle && tokenBucket(o.throttle.qps, o.throttle.burst);
  let sending: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** the oldest buffered event has waited maxWaitMs, or the backend is shutting down */
  let due = false, closing = false;

  const shouldSend = () => queue.length > 0 && (queue.length >= o.maxBatchSize || o.maxWaitMs === 0 || due || closing);
  function schedule() {
    if (sending) return;
    if (shouldSend()) {
      clearTimeout(timer);
      timer = undefined;
      sending = run();
    } else if (queue.length && !timer) {
      timer = setTimeout(() => { timer = undefined; due = true; schedule(); }, o.maxWaitMs).unref();
    }
  }
  async function run() {
    try {
      while (shouldSend()) {
        const wait = bucket?.waitMs() ?? 0;
        if (wait) await new Promise(r => setTimeout(r, wait).unref());
        bucket?.tryAccept();
        const batch = queue.splice(0, o.maxBatchSize);
        due = false;
        try { await o.send(batch); } catch (e) { o.onError(batch.length, (e as Error).message); }
      }
    } finally {
      sending = undefined;
      schedule();
    }
  }
  return {
    process(events) {
      const room = Math.max(o.bufferSize - queue.length, 0);
      if (room < events.length) o.onError(events.length - room, 'audit buffer is full');
      if (room > 0) queue.push(...(room < events.length ? events.slice(0, room) : events));
      schedule();
    },
    async shutdown(timeoutMs) {
      closing = true;
      const deadline = Date.now() + timeoutMs;
      schedule();
      while ((sending || queue.length) && Date.now() < deadline) await Promise.race([sending, new Promise(r => setTimeout(r, 20))]);
    },
  };
}

export interface LogOptions {
  /** a file, or `-` for standard output */
  path: string;
  /** megabytes before the file is rotated (0: never) */
  maxSizeMb: number;
  /** rotated files kept (0: all) */
  maxBackups: number;
  /** days a rotated file is kept (0: no limit) */
  maxAgeDays: number;
  /** rotated files are compressed with gzip (and named with .gz) */
  compress?: boolean;
  /** json: the event as a JSON line; legacy: the reference's older one-line text */
  format?: 'json' | 'legacy';
}

/** rotated files are named like the log with the time of rotation: audit-2024-01-02T15-04-05.000.log */
const backupName = (file: string, time: Date, index?: number) => {
  const ext = extname(file);
  const stamp = time.toISOString().replace(/:/g, '-').replace(/Z$/, '');
  return `${basename(file, ext)}-${stamp}${index && index > 1 ? `-${index}` : ''}${ext}`;
};

/** removes rotated files past the count or age limit, oldest first */
async function prune(o: LogOptions) {
  const dir = dirname(o.path), ext = extname(o.path), base = basename(o.path, ext);
  const backups = (await readdir(dir)).filter(f => f !== basename(o.path) && f.startsWith(`${base}-`) && (f.endsWith(ext) || f.endsWith(`${ext}.gz`)));
  const aged = await Promise.all(backups.map(async f => ({ f, mtime: (await stat(join(dir, f))).mtimeMs })));
  aged.sort((x, y) => y.mtime - x.mtime);
  const tooOld = Date.now() - o.maxAgeDays * 86_400_000;
  await Promise.all(aged.filter((b, i) => (o.maxBackups > 0 && i >= o.maxBackups) || (o.maxAgeDays > 0 && b.mtime < tooOld))
    .map(b => unlink(join(dir, b.f)).catch(() => {})));
}

/**
 * The log file, made before the server serves, as the reference makes it: with its directory, readable by the owner
 * only (events carry request bodies, secrets among them). A path that cannot be written refuses the start instead of
 * every event being lost.
 */
export function ensureLogFile(path: string): void {
  if (path === '-') return;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, 'a', 0o600));
  } catch (e) {
    throw new Error(`--audit-log-path ${path}: ${(e as Error).message}`);
  }
}

/** the log's stream: what it accepts, and a wait for it to take more when it is backed up */
export function logStream(o: LogOptions, onError: (why: string) => void): { write(text: string): Promise<void>; close(): Promise<void> } {
  let out: Writable;
  if (o.path === '-') out = process.stdout;
  else {
    const file = basename(o.path);
    // the library leaves a generated name as it is: compressed backups are given their .gz here
    const rotating = createStream((time, index) => (time
      ? `${backupName(file, time instanceof Date ? time : new Date(time), index)}${o.compress ? '.gz' : ''}` : file), {
      path: dirname(o.path), mode: 0o600, ...(o.maxSizeMb > 0 ? { size: `${o.maxSizeMb}M` } : {}), ...(o.compress ? { compress: 'gzip' } : {}),
    });
    rotating.on('rotated', () => { void prune(o).catch(e => onError(`pruning audit log backups: ${(e as Error).message}`)); });
    rotating.on('warning', e => onError(e.message));
    out = rotating;
  }
  out.on('error', e => onError(e.message));
  return {
    // settles when the text is written (or could not be), so a blocking request waits for exactly its own events
    write: text => new Promise((resolve, reject) => { out.write(text, e => (e ? reject(e) : resolve())); }),
    close: () => (out === process.stdout ? Promise.resolve() : new Promise(r => out.end(r))),
  };
}

/** Go's %q of a string: quoted, with JSON's escapes (the characters the log meets are the same) */
const quoted = (v: unknown) => JSON.stringify(String(v ?? ''));

/** the legacy log line of an event: the request in one line of text, without bodies or annotations */
export function legacyLine(e: AuditEvent): string {
  const user = (e.user ?? {}) as { username?: string; groups?: string[] };
  const as = e.impersonatedUser as { username?: string; groups?: string[] } | undefined;
  const ref = e.objectRef as { namespace?: string } | undefined;
  const status = e.responseStatus as { code?: number } | undefined;
  const list = (groups: string[]) => groups.map(quoted).join(',');
  const username = user.username || '<none>';
  const groups = user.username && user.groups?.length ? list(user.groups) : '<none>';
  const received = String(e.requestReceivedTimestamp ?? '').replace(/\.(\d*?)0*Z$/, (_, f: string) => (f ? `.${f}Z` : 'Z'));
  return `${received} AUDIT: id=${quoted(e.auditID)} stage=${quoted(e.stage)} ip=${quoted((e.sourceIPs as string[] | undefined)?.[0] ?? '<unknown>')} `
    + `method=${quoted(e.verb)} user=${quoted(username)} groups=${quoted(groups)} as=${quoted(as ? as.username : '<self>')} `
    + `asgroups=${quoted(as?.groups ? list(as.groups) : '<lookup>')} user-agent=${quoted(e.userAgent)} namespace=${quoted(ref?.namespace || '<none>')} `
    + `uri=${quoted(e.requestURI)} response="${status?.code !== undefined ? status.code : '<deferred>'}"`;
}

export function logBackend(o: LogOptions, batch: Omit<BatchOptions, 'send' | 'onError'>, onError: (count: number, why: string) => void) {
  const stream = logStream(o, why => onError(0, why));
  const line = o.format === 'legacy' ? legacyLine : (e: AuditEvent) => JSON.stringify(e);
  const b = inMode({ ...batch, onError, send: events => stream.write(events.map(e => `${line(e)}\n`).join('')) });
  return { ...b, async shutdown(timeoutMs: number) { await b.shutdown(timeoutMs); await stream.close(); } };
}

export interface WebhookOptions {
  batch: Omit<BatchOptions, 'send' | 'onError'>;
  /** the first retry's wait; each retry waits twice the last, five tries in all */
  initialBackoffMs: number;
  apiVersion: string;
}

export function webhookBackend(client: WebhookClient, o: WebhookOptions, onError: (count: number, why: string) => void): Backend {
  return inMode({
    ...o.batch, onError,
    async send(items) {
      let wait = o.initialBackoffMs;
      for (let attempt = 1; ; attempt++) {
        try {
          await client.post({ kind: 'EventList', apiVersion: o.apiVersion, metadata: {}, items });
          return;
        } catch (e) {
          if (attempt >= 5) throw e;
          await new Promise(r => setTimeout(r, wait).unref());
          wait *= 2;
        }
      }
    },
  });
}

/** what several hand-overs return together: nothing when none waits, else a promise of them all */
function whenAll(results: Array<void | Promise<void>>): void | Promise<void> {
  const waiting = results.filter(Boolean);
  return waiting.length ? Promise.all(waiting).then(() => undefined) : undefined;
}

export interface TruncateOptions {
  /** bytes of one event (as JSON) at most: a larger one loses its request and response objects, and is dropped if
   *  still too large */
  maxEventSize: number;
  /** bytes of the events handed over together at most: more are handed over in several batches */
  maxBatchSize: number;
  /** the annotation marking an event whose objects were removed (`audit.<domain>/truncated`) */
  annotation: string;
}

const levels = ['None', 'Metadata', 'Request', 'RequestResponse'];
const byteSize = (e: AuditEvent) => Buffer.byteLength(JSON.stringify(e));

/** keeps events and the batches of them handed to `to` within sizes, as the reference's truncate backend does in front of
 *  a log or webhook: an event too large is sent without its objects (marked by an annotation), or dropped and counted when
 *  that is still too large; events handed over together go in several batches, none larger than the batch size */
export function truncating(to: Backend, o: TruncateOptions, onError: (count: number, why: string) => void): Backend {
  return {
    process(events) {
      const batches: AuditEvent[][] = [];
      let batch: AuditEvent[] = [], batchSize = 0, dropped = 0;
      for (let event of events) {
        let size = byteSize(event);
        // only an event with objects has anything to remove: one at level Metadata is as small as it gets
        if (size > o.maxEventSize && levels.indexOf(String(event.level)) >= 2) {
          const { requestObject: _req, responseObject: _res, ...rest } = event;
          event = { ...rest, annotations: { ...(event.annotations as Record<string, string> | undefined), [o.annotation]: 'true' } };
          size = byteSize(event);
        }
        if (size > o.maxEventSize) { dropped++; continue; }
        if (batch.length && batchSize + size > o.maxBatchSize) { batches.push(batch); batch = []; batchSize = 0; }
        batch.push(event);
        batchSize += size;
      }
      if (batch.length) batches.push(batch);
      if (dropped) onError(dropped, 'event is too large even after truncating');
      return whenAll(batches.map(b => to.process(b)));
    },
    shutdown: timeoutMs => to.shutdown(timeoutMs),
  };
}

export function unionBackend(backends: Backend[]): Backend {
  if (backends.length === 1) return backends[0]!;
  return {
    process(events) {
      return whenAll(backends.map(b => b.process(events)));
    },
    async shutdown(timeoutMs) { await Promise.all(backends.map(b => b.shutdown(timeoutMs))); },
  };
}
