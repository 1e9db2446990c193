// scale: sets spec.replicas through the scale subresource, optionally only if the current count (or
// resourceVersion) is what the caller expects.

import { Command } from 'commander';
import { CliError, errorText, type Cli } from '../cli.js';
import { dryRunMode, fileOptions } from '../flags.js';
import { failIf, fetchTargets, resourceFor } from '../objects.js';
import { outputHelp, parseOutput, printResult, showManagedFieldsOption } from '../printers/output.js';
import { resolveTargets } from '../resources.js';
import { Option } from 'commander';

interface ScaleFlags { replicas: string; currentReplicas?: string; resourceVersion?: string; filename?: string[]; recursive?: boolean; selector?: string; all?: boolean; output?: string; showManagedFields?: boolean; dryRun?: string | boolean }

export function scaleCommand(cli: Cli): Command {
  return fileOptions(new Command('scale'), 'the objects to scale')
    .description('Set the number of replicas of a Deployment, ReplicaSet, StatefulSet or replication controller')
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .requiredOption('--replicas <n>', 'the new number of replicas')
    .option('--current-replicas <n>', 'only if the current number is this')
    .option('--resource-version <rv>', 'only if the object is still at this resourceVersion')
    .option('-l, --selector <selector>', 'scale the objects these labels select')
    .option('--all', 'every object of the type in the namespace')
    .addOption(new Option('--dry-run [mode]', 'none, client or server').preset('client'))
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (args: string[], f: ScaleFlags) => {
      const replicas = Number(f.replicas);
      if (!Number.isInteger(replicas) || replicas < 0) throw new CliError(`--replicas must be a whole number of at least 0, not "${f.replicas}"`);
      const output = parseOutput(f.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], f.showManagedFields);
      const dryRun = dryRunMode(f.dryRun);
      const { targets } = await resolveTargets(cli, args, { filenames: f.filename, recursive: f.recursive, verb: 'scale' });
      if (targets.some((t) => t.name === undefined) && !f.selector && !f.all && !f.filename?.length) throw new CliError('name the objects to scale, or select them with -l or --all');
      const { found, failed: readFailed } = await fetchTargets(cli, targets, { selector: f.selector });
      let failed = readFailed;
      for (const { info, namespace, object } of found) {
        try {
          if (!info.subresources.includes('scale')) throw new CliError(`${info.resource} cannot be scaled: it has no scale subresource`);
          const scale = (await resourceFor(cli, { info, namespace })).subresource('scale');
          const current = await scale.get(object.metadata.name!);
          if (f.currentReplicas !== undefined && current.spec?.replicas !== Number(f.currentReplicas)) {
            throw new CliError(`expected the current replicas to be ${f.currentReplicas}, but they are ${current.spec?.replicas ?? 0}`);
          }
          const patch = { spec: { replicas }, ...(f.resourceVersion ? { metadata: { resourceVersion: f.resourceVersion } } : {}) };
          if (dryRun !== 'client') await scale.patch(object.metadata.name!, patch, 'merge', { dryRun: dryRun === 'server' });
          await printResult(cli, object, 'scaled', output, dryRun);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}
