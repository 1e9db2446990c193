// The version of this package, from the nearest package.json above the running file (compiled or bundled).
import { readFileSync } from 'node:fs';

export function packageVersion(from: string | URL = import.meta.url): string {
  for (let up = '../'; up.length <= 12; up += '../') {
    try { return JSON.parse(readFileSync(new URL(`${up}package.json`, from), 'utf8')).version; } catch { /* look higher */ }
  }
  return '0.0.0';
}
