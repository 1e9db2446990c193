// What the programs share: the log lines they write (a level letter and a timestamp, as the reference's
// components write them), how a failed start ends the process, and a graceful stop on SIGTERM or SIGINT.

export type LogFormat = 'text' | 'json';
let format: LogFormat = 'text';

/** --logging-format: json writes each line as the reference's JSON logger does */
export function setLogFormat(f: LogFormat): void { format = f; }

/** one log line: `I <time> <message>` in text; in JSON an object with the time in seconds, the verbosity of info and
 *  warning lines (0) and the message; errors carry no verbosity, as the reference's */
export function logLine(level: 'I' | 'W' | 'E', m: string, now = Date.now()): string {
  if (format === 'text') return `${level} ${new Date(now).toISOString()} ${m}\n`;
  return `${JSON.stringify(level === 'E' ? { ts: now / 1000, msg: m } : { ts: now / 1000, v: 0, msg: m })}\n`;
}

export const log = {
  info: (m: string) => process.stderr.write(logLine('I', m)),
  warn: (m: string) => process.stderr.write(logLine('W', m)),
  error: (m: string) => process.stderr.write(logLine('E', m)),
};

/** ends the program with the error's message: code 2 for bad flags or configuration (with a pointer to --help), 1 otherwise */
export const exitWith = (program: string, code: 1 | 2) => (e: unknown): never => {
  process.stderr.write(`${program}: ${(e as Error).message}\n${code === 2 ? 'Run with --help for the list of flags.\n' : ''}`);
  process.exit(code);
};

/**
 * On SIGTERM or SIGINT, `stop` runs and the process ends (0, or 1 when the stop failed); a second signal
 * ends it at once. `keepAlive` holds the process for components whose own handles would not.
 */
export function stopOnSignal(what: string, stop: () => Promise<void>, opts: { keepAlive?: boolean } = {}) {
  const keepAlive = opts.keepAlive ? setInterval(() => {}, 3_600_000) : undefined;
  let stopping = false;
  const onSignal = (sig: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    clearInterval(keepAlive);
    log.info(`${sig}: ${what}`);
    stop().then(() => process.exit(0), (e) => { log.error(String(e)); process.exit(1); });
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}
