// The agent's log: text lines (`I <time> <message>`), or with --logging-format=json one JSON object a
// line as the reference's JSON format writes them (`ts` in seconds, `v` verbosity, `msg`, `err` for
// errors). --log-json-split-stream sends info to stdout and errors to stderr; the info stream is then
// buffered up to --log-json-info-buffer-size and flushed at least every --log-flush-frequency.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** writes what is buffered */
  flush(): void;
  close(): void;
}

export interface LogSettings {
  format: 'text' | 'json';
  splitStream: boolean;
  infoBufferBytes: number;
  flushMs: number;
}

interface Sink {
  write(s: string): unknown;
  /** bytes written but not yet taken by the reader (a pipe whose reader is slow) */
  readonly writableLength?: number;
}

/**
 * What may wait for a slow reader of the log: beyond it lines are dropped and counted, not kept (a process with a
 * thousand simulated nodes can log failures faster than a busy parent reads them, and held them all in memory).
 */
const maxUnreadBytes = 4 * 2 ** 20;

export function createLogger(s: LogSettings, out: Sink = process.stdout, err: Sink = process.stderr): Logger {
  const json = s.format === 'json';
  const split = json && s.splitStream;
  const buffer: string[] = [];
  let buffered = 0;
  let dropped = 0;
  const put = (sink: Sink, text: string) => {
    if ((sink.writableLength ?? 0) > maxUnreadBytes) {
      dropped++;
      return;
    }
    if (dropped) {
      sink.write(line('W', `${dropped} log line(s) dropped: the log was not read as fast as it was written`));
      dropped = 0;
    }
    sink.write(text);
  };
  const flush = () => {
    if (!buffered) return;
    put(out, buffer.join(''));
    buffer.length = 0;
    buffered = 0;
  };
  const timer = split && s.infoBufferBytes > 0 ? setInterval(flush, s.flushMs) : undefined;
  timer?.unref();

  const line = (level: 'I' | 'W' | 'E', message: string) => {
    if (!json) return `${level} ${new Date().toISOString()} ${message}\n`;
    const ts = Date.now() / 1000;
    return `${JSON.stringify(level === 'E' ? { ts, msg: message, err: message } : { ts, v: 0, msg: message })}\n`;
  };
  const info = (level: 'I' | 'W', message: string) => {
    const text = line(level, message);
    if (!split) return put(err, text);
    if (s.infoBufferBytes <= 0) return put(out, text);
    buffer.push(text);
    buffered += Buffer.byteLength(text);
    if (buffered >= s.infoBufferBytes) flush();
  };
  return {
    info: (m) => info('I', m),
    warn: (m) => info('W', m),
    error(m) {
      // an error comes after everything logged before it
      flush();
      put(err, line('E', m));
    },
    flush,
    close() {
      clearInterval(timer);
      flush();
    },
  };
}
