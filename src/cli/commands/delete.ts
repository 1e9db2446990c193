// delete: objects by name, by -f, by selector or all of a type; cascading in the background (or foreground,
// or orphaning dependents), with a grace period; waits until they are gone unless --wait=false.

import { Command, Option } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { ApiError } from '../../client/rest-client.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { booleanOption, dryRunMode, fileOptions } from '../flags.js';
import { parseDuration } from '../../config/flags.js';
import { fetchTargets, failIf, resourceFor } from '../objects.js';
import { nameOf } from '../printers/objects.js';
import { resolveTargets } from '../resources.js';

interface DeleteFlags {
  filename?: string[]; recursive?: boolean; selector?: string; fieldSelector?: string; all?: boolean; allNamespaces?: boolean;
  cascade: string; gracePeriod?: string; force?: boolean; now?: boolean; wait: boolean; timeout?: string; ignoreNotFound?: boolean;
  dryRun?: string | boolean; output?: string;
}

const policies: Record<string, 'Background' | 'Foreground' | 'Orphan'> = { background: 'Background', true: 'Background', foreground: 'Foreground', orphan: 'Orphan', false: 'Orphan' };

export function deleteCommand(cli: Cli): Command {
  return fileOptions(new Command('delete'), 'the objects to delete')
    .description('Delete objects by name, file, label selector or type')
    .argument('[args...]', 'TYPE NAME..., TYPE/NAME..., or TYPE with -l or --all')
    .option('-l, --selector <selector>', 'delete the objects these labels select')
    .option('--field-selector <selector>', 'delete the objects these fields select')
    .option('--all', 'delete every object of the types named')
    .option('-A, --all-namespaces', 'in every namespace')
    .addOption(new Option('--cascade [policy]', 'background, foreground or orphan').default('background').preset('background'))
    .option('--grace-period <seconds>', 'seconds the object gets to end gracefully (-1: its default)')
    .option('--force', 'delete at once, without waiting for confirmation that the workload ended (grace period 0)')
    .option('--now', 'signal the object to end now (grace period 1)')
    .addOption(booleanOption('--wait [bool]', 'wait until the objects are gone', true))
    .option('--timeout <duration>', 'give up waiting after this long (0: a week)')
    .option('--ignore-not-found', 'treat objects that do not exist as deleted')
    .addOption(new Option('--dry-run [mode]', 'none, client or server').preset('client'))
    .option('-o, --output <format>', 'name: print kind/name of each object deleted')
    .action(async (args: string[], f: DeleteFlags) => {
      const policy = policies[String(f.cascade).toLowerCase()];
      if (!policy) throw new CliError(`--cascade must be background, foreground or orphan, not "${f.cascade}"`);
      if (f.output && f.output !== 'name') throw new CliError('--output for delete must be name');
      const dryRun = dryRunMode(f.dryRun);
      let grace = f.gracePeriod === undefined ? undefined : Number(f.gracePeriod);
      if (grace !== undefined && !Number.isInteger(grace)) throw new CliError(`--grace-period must be a whole number, not "${f.gracePeriod}"`);
      if (f.now) grace = 1;
      if (f.force) {
        grace = grace === undefined || grace < 0 ? 0 : grace;
        if (grace === 0) cli.err('Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n');
      }
      if (grace !== undefined && grace < 0) grace = undefined;
      const bySelector = !!(f.selector || f.fieldSelector || f.all);
      const { targets } = await resolveTargets(cli, args, { filenames: f.filename, recursive: f.recursive, allNamespaces: f.allNamespaces, verb: 'delete' });
      if (!f.filename?.length && targets.some((t) => t.name === undefined) && !bySelector) {
        throw new CliError('resource(s) were provided, but no name was specified; name them, or select them with -l, --field-selector or --all');
      }
      const { found, failed: readFailed } = await fetchTargets(cli, targets, { selector: f.selector, fieldSelector: f.fieldSelector, ignoreNotFound: true });
      let failed = readFailed;
      const missing = targets.filter((t) => t.name !== undefined && !found.some((x) => x.info === t.info && x.object.metadata.name === t.name));
      if (missing.length && !f.ignoreNotFound) {
        for (const t of missing) cli.err(`Error from server (NotFound): ${t.info.resource}${t.info.group ? `.${t.info.group}` : ''} "${t.name}" not found\n`);
        failed = true;
      }
      if (!found.length && !missing.length) {
        const { namespace } = await cli.namespace();
        cli.out(f.allNamespaces ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`);
      }
      const deleted: Array<{ obj: ApiObject; uid?: string; r: Awaited<ReturnType<typeof resourceFor>> }> = [];
      for (const { info, namespace, object } of found) {
        const r = await resourceFor(cli, { info, namespace });
        const label = f.output === 'name' ? nameOf(object) : `${info.kind.toLowerCase()}${info.group ? `.${info.group}` : ''} "${object.metadata.name}"`;
        try {
          if (dryRun !== 'client') await r.delete(object.metadata.name!, { propagationPolicy: policy, gracePeriodSeconds: grace, dryRun: dryRun === 'server' });
          cli.out(f.output === 'name' ? `${label}\n` : `${label} deleted${dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : ''}\n`);
          if (dryRun === 'none') deleted.push({ obj: object, uid: object.metadata.uid, r });
        } catch (e) {
          if (f.ignoreNotFound && e instanceof ApiError && e.code === 404) continue;
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      if (f.wait && deleted.length) {
        const timeoutMs = f.timeout && f.timeout !== '0' ? parseDuration(f.timeout) : 7 * 24 * 3600 * 1000;
        await waitGone(deleted, Date.now() + timeoutMs);
      }
      failIf(failed);
    });
}

/** polls each object until it is gone or another object of the same name (another UID) stands there */
async function waitGone(items: Array<{ obj: ApiObject; uid?: string; r: { get(name: string): Promise<ApiObject> } }>, deadline: number): Promise<void> {
  for (const { obj, uid, r } of items) {
    for (let pause = 20; ; pause = Math.min(pause * 2, 1000)) {
      try {
        const now = await r.get(obj.metadata.name!);
        if (uid && now.metadata.uid !== uid) break;
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) break;
        throw e;
      }
      if (Date.now() > deadline) throw new CliError(`timed out waiting for ${nameOf(obj)} to be deleted`);
      await new Promise((res) => setTimeout(res, pause));
    }
  }
}
