// What the agent checks and sets on its host before it starts, as the reference agent does: swap (refused
// unless --fail-swap-on=false), the kernel settings it relies on (changed, or with
// --protect-kernel-defaults refused when different), its own OOM score (--oom-score-adj) and how many
// files it may open (--max-open-files).

import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** the kernel settings the reference agent expects */
export const kernelDefaults: Record<string, number> = {
  'vm/overcommit_memory': 1,
  'vm/panic_on_oom': 0,
  'kernel/panic': 10,
  'kernel/panic_on_oops': 1,
  'kernel/keys/root_maxkeys': 1_000_000,
  'kernel/keys/root_maxbytes': 25_000_000,
};

/** Brings the kernel settings to the defaults, or (protect) lists the ones that differ. */
export function checkKernelDefaults(protect: boolean, sysRoot = '/proc/sys'): string[] {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(kernelDefaults)) {
    const file = join(sysRoot, key);
    let have: number;
    try {
      have = Number(readFileSync(file, 'utf8').trim());
    } catch {
      continue;
    }
    if (have === want) continue;
    const name = key.replaceAll('/', '.');
    if (protect) {
      problems.push(`${name} is ${have}, expected ${want}`);
      continue;
    }
    try {
      writeFileSync(file, String(want));
    } catch (e) {
      problems.push(`setting ${name} to ${want}: ${(e as Error).message}`);
    }
  }
  return problems;
}

export function swapOn(): boolean {
  return readFileSync('/proc/swaps', 'utf8').trim().split('\n').slice(1).some(Boolean);
}

export function setOomScoreAdj(value: number): void {
  writeFileSync('/proc/self/oom_score_adj', String(value));
}

/** raises the open-file limit of this process (soft and hard) */
export async function setMaxOpenFiles(n: number): Promise<void> {
  await run('prlimit', ['--pid', String(process.pid), `--nofile=${n}:${n}`], { timeout: 10_000 }).catch((e) => {
    throw new Error(`prlimit --nofile=${n}: ${((e as { stderr?: string }).stderr || (e as Error).message).trim()}`);
  });
}
