// apply: server-side apply by default (the server merges and records field ownership; `--force-conflicts`
// takes fields over); `--server-side=false` is the client-side form: a three-way merge of the last applied
// configuration (kept in an annotation), the new one and the live object, sent as a merge patch.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { booleanOption, fileOptions, writeFlags, writeOptions, type WriteFlags } from '../flags.js';
import { failIf, liveObject, resourceFor } from '../objects.js';
import { outputHelp, parseOutput, printResult, showManagedFieldsOption } from '../printers/output.js';
import { resolveTargets, targetObject, type Target } from '../resources.js';

interface ApplyFlags extends WriteFlags { filename?: string[]; recursive?: boolean; output?: string; showManagedFields?: boolean; serverSide: boolean; forceConflicts?: boolean }

export function applyCommand(cli: Cli): Command {
  return writeOptions(fileOptions(new Command('apply'), 'the objects to apply'), 'clusterctl')
    .description('Apply a configuration to objects: create them, or change them to match')
    .addOption(booleanOption('--server-side [bool]', 'merge on the server (default); --server-side=false merges here with the last-applied annotation', true))
    .option('--force-conflicts', 'server-side: take over fields other managers own')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (flags: ApplyFlags) => {
      const output = parseOutput(flags.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], flags.showManagedFields);
      if (!flags.filename?.length) throw new CliError('name the objects to apply with -f');
      const { targets } = await resolveTargets(cli, [], { filenames: flags.filename, recursive: flags.recursive });
      let failed = false;
      for (const t of targets) {
        try {
          const { result, verb } = flags.serverSide ? await serverSide(cli, t, flags) : await clientSide(cli, t, { ...flags, fieldManager: flags.fieldManager === 'clusterctl' ? 'clusterctl-client-side-apply' : flags.fieldManager });
          await printResult(cli, result, verb, output, writeFlags(flags).dryRun);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

async function serverSide(cli: Cli, t: Target, flags: ApplyFlags): Promise<{ result: ApiObject; verb: string }> {
  const { dryRun, write } = writeFlags(flags);
  const obj = targetObject(t);
  if (dryRun === 'client') return { result: obj, verb: 'serverside-applied' };
  const result = await (await resourceFor(cli, t)).apply(obj, { ...write, fieldManager: write.fieldManager!, force: !!flags.forceConflicts });
  return { result, verb: 'serverside-applied' };
}

/** the object with its own configuration recorded in the domain's last-applied annotation */
export async function lastAppliedFor(cli: Cli, obj: ApiObject): Promise<ApiObject> {
  const [key] = (await cli.names()).lastAppliedAnnotations;
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  delete annotations[key!];
  const bare = { ...obj, metadata: { ...obj.metadata, annotations } };
  if (!Object.keys(annotations).length) delete (bare.metadata as { annotations?: unknown }).annotations;
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...annotations, [key!]: `${JSON.stringify(bare)}\n` } } };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A merge patch taking `current` to `modified`: fields the new configuration sets and the live object lacks or
 * has otherwise, and `null` for fields the last applied configuration set and the new one no longer does.
 */
export function threeWayMergePatch(original: unknown, modified: Record<string, unknown>, current: unknown): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const live = isObject(current) ? current : {};
  const before = isObject(original) ? original : {};
  for (const [k, v] of Object.entries(modified)) {
    if (equal(v, live[k])) continue;
    if (isObject(v) && isObject(live[k])) {
      const sub = threeWayMergePatch(before[k], v, live[k]);
      if (Object.keys(sub).length) patch[k] = sub;
    } else {
      patch[k] = v;
    }
  }
  for (const k of Object.keys(before)) if (!(k in modified) && k in live) patch[k] = null;
  return patch;
}

/**
 * What client-side apply sends: the object with its last-applied annotation to create, or the merge patch that
 * takes the live object there (empty when nothing changes). The last applied configuration is read from the
 * domain's annotation, else from the one unmodified kubectl writes.
 */
export async function clientSidePlan(cli: Cli, obj: ApiObject, live: ApiObject | undefined): Promise<{ modified: ApiObject; patch?: Record<string, unknown> }> {
  const modified = await lastAppliedFor(cli, obj);
  if (!live) return { modified };
  const recorded = (await cli.names()).lastAppliedAnnotations.map((k) => live.metadata.annotations?.[k]).find(Boolean);
  return { modified, patch: threeWayMergePatch(recorded ? JSON.parse(recorded) : undefined, modified as Record<string, unknown>, live) };
}

async function clientSide(cli: Cli, t: Target, flags: ApplyFlags): Promise<{ result: ApiObject; verb: string }> {
  const { dryRun, write } = writeFlags(flags);
  const r = await resourceFor(cli, t);
  const current = await liveObject(r, t.name!);
  const { modified, patch } = await clientSidePlan(cli, targetObject(t), current);
  if (!current || !patch) {
    const result = dryRun === 'client' ? modified : await r.create(modified, write);
    return { result, verb: 'created' };
  }
  if (!Object.keys(patch).length) return { result: current, verb: 'unchanged' };
  const result = dryRun === 'client' ? { ...current, ...modified } : await r.patch(t.name!, patch, 'merge', write);
  return { result, verb: 'configured' };
}
