// Termination messages, as the reference's agent keeps them: each container instance gets an empty file of its
// own, mounted read-write at its `terminationMessagePath` (default /dev/termination-log); once the container
// exits, what it wrote there (its last 4096 bytes) becomes `state.terminated.message`. With
// `terminationMessagePolicy: FallbackToLogsOnError`, a container that failed and wrote nothing there gets the
// end of its log instead (its last 80 lines, at most 2048 bytes).

import { chmod, mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Container } from './objects.js';
import type { MountSpec } from './volumes/index.js';
import { parseCriEntries } from './logs.js';

const maxMessageBytes = 4096;
const maxLogMessageBytes = 2048;
const maxLogMessageLines = 80;

/** the file of one container instance, under the pod's folder */
export const terminationMessageFile = (podDir: string, container: string, attempt: number) => join(podDir, 'containers', container, String(attempt));

/** makes the instance's empty file (writable by any user of the container) and its mount */
export async function terminationMessageMount(podDir: string, spec: Container, attempt: number): Promise<MountSpec | undefined> {
  const containerPath = spec.terminationMessagePath ?? '/dev/termination-log';
  if (!containerPath) return undefined;
  const file = terminationMessageFile(podDir, spec.name, attempt);
  await mkdir(join(podDir, 'containers', spec.name), { recursive: true, mode: 0o750 });
  await writeFile(file, '');
  await chmod(file, 0o666);
  return { containerPath, hostPath: file, readOnly: false, propagation: 'private' };
}

/** the last `max` bytes of a file ('' when it is missing) */
async function tail(file: string, max: number): Promise<string> {
  const f = await open(file, 'r').catch(() => undefined);
  if (!f) return '';
  try {
    const { size } = await f.stat();
    const length = Math.min(size, max);
    const buf = Buffer.alloc(length);
    await f.read(buf, 0, length, size - length);
    return buf.toString('utf8');
  } finally {
    await f.close();
  }
}

/** what an exited container leaves as its termination message */
export async function terminationMessage(file: string, logFile: string | undefined, spec: Container | undefined, exitCode: number | undefined): Promise<string> {
  const written = await tail(file, maxMessageBytes);
  if (written || spec?.terminationMessagePolicy !== 'FallbackToLogsOnError' || !exitCode || !logFile) return written;
  // the log's end, read generously (CRI lines carry a time and a stream), then cut as the reference cuts it
  const cap = 64 * maxLogMessageBytes;
  const raw = await tail(logFile, cap);
  // a read that starts inside a line leaves that line out
  const { entries } = parseCriEntries(Buffer.byteLength(raw) >= cap ? raw.slice(raw.indexOf('\n') + 1) : raw);
  const text = entries.slice(-maxLogMessageLines).map((e) => `${e.text}\n`).join('');
  const bytes = Buffer.from(text);
  return bytes.length > maxLogMessageBytes ? bytes.subarray(bytes.length - maxLogMessageBytes).toString('utf8') : text;
}
