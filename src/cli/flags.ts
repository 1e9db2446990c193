// Flags several commands share, declared once: files (-f, -R), dry run, field manager and validation.

import { Command, Option } from 'commander';
import type { WriteOptions } from '../client/rest-client.js';
import { CliError } from './cli.js';

/** a repeatable option: every value kept */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export function fileOptions(c: Command, what = 'the objects'): Command {
  return c
    .option('-f, --filename <file>', `files, folders or URLs with ${what}; repeatable; - reads standard input`, collect)
    .option('-R, --recursive', 'read folders of -f recursively');
}

export type DryRun = 'none' | 'client' | 'server';

export function writeOptions(c: Command, fieldManager: string): Command {
  return c
    .addOption(new Option('--dry-run [mode]', 'none, client (print only) or server (the server checks, nothing is stored)').preset('client'))
    .option('--field-manager <name>', 'the name of the manager of the fields written', fieldManager)
    .option('--validate [mode]', 'strict, warn or ignore unknown and duplicate fields (true: strict, false: ignore)', 'strict');
}

export function dryRunMode(flag: string | boolean | undefined): DryRun {
  if (flag === undefined || flag === false || flag === 'none' || flag === 'false') return 'none';
  if (flag === true || flag === 'client' || flag === 'true') return 'client';
  if (flag === 'server') return 'server';
  throw new CliError(`invalid --dry-run "${flag}": use none, client or server`);
}

export function fieldValidation(flag: string | boolean | undefined): WriteOptions['fieldValidation'] {
  const v = String(flag ?? 'strict').toLowerCase();
  if (v === 'strict' || v === 'true') return 'Strict';
  if (v === 'warn') return 'Warn';
  if (v === 'ignore' || v === 'false') return 'Ignore';
  throw new CliError(`invalid --validate "${flag}": use strict, warn or ignore`);
}

export interface WriteFlags { dryRun?: string | boolean; fieldManager: string; validate?: string | boolean }

export function writeFlags(f: WriteFlags): { dryRun: DryRun; write: WriteOptions } {
  const dryRun = dryRunMode(f.dryRun);
  return { dryRun, write: { fieldManager: f.fieldManager, dryRun: dryRun === 'server', fieldValidation: fieldValidation(f.validate) } };
}

/** `--flag`, `--flag=true` and `--flag=false` for a flag that is on by default */
export function booleanOption(flags: string, description: string, defaultValue: boolean): Option {
  return new Option(flags, description).default(defaultValue).preset('true').argParser((v: string) => {
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw new CliError(`${flags.split(' ')[0]}: "${v}" is not true or false`);
  });
}
