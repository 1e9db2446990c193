// Reading the files a program's flags and configuration name, with refusals that say which file and why.
import { readFileSync } from 'node:fs';

/** `cannot read <path>: <code>` (ENOENT, EACCES...), for a file that could not be read */
export const unreadable = (path: string, e: unknown): string =>
  `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;

/** a file a flag names, read at start: a failure names the flag, so the refusal says what to fix */
export function readFlagFile(flag: string, path: string): string {
  try { return readFileSync(path, 'utf8'); } catch (e) { throw new Error(`${flag}: ${unreadable(path, e)}`); }
}
