// diff: what apply would change, as a unified diff of the live objects and the objects the server would store
// (a server-side dry run of the apply); managed fields are left out and Secret values masked. Exit code 0:
// no differences; 1: differences; more: an error.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { ApiError } from '../../client/rest-client.js';
import { CliError, ExitCode, errorText, type Cli } from '../cli.js';
import { booleanOption, fileOptions } from '../flags.js';
import { resourceFor } from '../objects.js';
import { toYaml } from '../printers/objects.js';
import { resolveTargets } from '../resources.js';
import { lastAppliedFor, threeWayMergePatch } from './apply.js';

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
          const obj = t.info.namespaced ? { ...t.object!, metadata: { ...t.object!.metadata, namespace: t.namespace } } : t.object!;
          let live: ApiObject | undefined;
          try { live = await r.get(t.name!); } catch (e) { if (!(e instanceof ApiError && e.code === 404)) throw e; }
          let merged: ApiObject;
          if (f.serverSide) {
            merged = await r.apply(obj, { fieldManager: f.fieldManager, force: !!f.forceConflicts, dryRun: true, fieldValidation: 'Strict' });
          } else {
            const modified = await lastAppliedFor(cli, obj);
            if (!live) merged = await r.create(modified, { dryRun: true, fieldManager: 'clusterctl-client-side-apply' });
            else {
              const [key] = (await cli.names()).lastAppliedAnnotations;
              const recorded = live.metadata.annotations?.[key!];
              const patch = threeWayMergePatch(recorded ? JSON.parse(recorded) : undefined, modified as Record<string, unknown>, live);
              merged = Object.keys(patch).length ? await r.patch(t.name!, patch, 'merge', { dryRun: true, fieldManager: 'clusterctl-client-side-apply' }) : live;
            }
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
