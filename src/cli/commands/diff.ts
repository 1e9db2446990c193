// diff: what apply would change, as a unified diff of the live objects and the objects the server would store
// (a server-side dry run of the apply); managed fields are left out and Secret values masked. Exit code 0:
// no differences; 1: differences; more: an error.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { CliError, ExitCode, errorText, type Cli } from '../cli.js';
import { booleanOption, fileOptions } from '../flags.js';
import { liveObject, resourceFor } from '../objects.js';
import { toYaml } from '../printers/objects.js';
import { resolveTargets, targetObject } from '../resources.js';
import { clientSidePlan } from './apply.js';

interface DiffFlags { filename?: string[]; recursive?: boolean; serverSide: boolean; forceConflicts?: boolean; fieldManager: string }

/** what is compared: no managed fields, no generation bump, Secret values as stars */
function comparable(obj: ApiObject | undefined): ApiObject | undefined {
  if (!obj) return undefined;
  const { managedFields: _, generation: __, ...metadata } = obj.metadata;
  const out: ApiObject = { ...obj, metadata };
  if (obj.kind === 'Secret' && obj.data && typeof obj.data === 'object') {
    out.data = Object.fromEntries(Object.keys(obj.data).map((k) => [k, '***']));
  }
  return out;
}

export function diffCommand(cli: Cli): Command {
  return fileOptions(new Command('diff'), 'the objects to compare')
    .description('Show what apply would change, as a unified diff of live and would-be objects')
    .addOption(booleanOption('--server-side [bool]', 'compare with a server-side apply (default) or a client-side one', true))
    .option('--force-conflicts', 'server-side: as apply --force-conflicts')
    .option('--field-manager <name>', 'the field manager of the dry-run apply', 'clusterctl')
    .action(async (f: DiffFlags) => {
      if (!f.filename?.length) throw new CliError('name the objects to compare with -f', 2);
      const { targets } = await resolveTargets(cli, [], { filenames: f.filename, recursive: f.recursive });
      const { createTwoFilesPatch } = await import('diff');
      let differs = false;
      for (const t of targets) {
        try {
          const r = await resourceFor(cli, t);
          const obj = targetObject(t);
          const live = await liveObject(r, t.name!);
          let merged: ApiObject;
          if (f.serverSide) {
            merged = await r.apply(obj, { fieldManager: f.fieldManager, force: !!f.forceConflicts, dryRun: true, fieldValidation: 'Strict' });
          } else {
            const { modified, patch } = await clientSidePlan(cli, obj, live);
            const write = { dryRun: true, fieldManager: 'clusterctl-client-side-apply' };
            merged = !live || !patch ? await r.create(modified, write) : Object.keys(patch).length ? await r.patch(t.name!, patch, 'merge', write) : live;
          }
          const kindVersion = `${t.info.group ? `${t.info.group}.` : ''}${t.info.version}.${t.info.kind}`;
          const file = [kindVersion, t.namespace, t.name].filter(Boolean).join('.');
          const before = live ? await toYaml(comparable({ ...live, apiVersion: obj.apiVersion, kind: obj.kind })) : '';
          const after = await toYaml(comparable({ ...merged, apiVersion: obj.apiVersion, kind: obj.kind }));
          if (before !== after) {
            differs = true;
            cli.out(`diff -u -N LIVE/${file} MERGED/${file}\n`);
            cli.out(createTwoFilesPatch(`LIVE/${file}`, `MERGED/${file}`, before, after, '', '', { context: 3 }).split('\n').slice(1).join('\n'));
          }
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          throw new ExitCode(2);
        }
      }
      if (differs) throw new ExitCode(1);
    });
}
