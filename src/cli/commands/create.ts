// create: the objects of -f, or one object built by a generator (`create configmap`, `create deployment`, ...);
// `--dry-run=client` only prints, `--dry-run=server` has the server check without storing.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions, writeFlags, writeOptions, type WriteFlags } from '../flags.js';
import { failIf, resourceFor } from '../objects.js';
import { outputHelp, parseOutput, printResult, showManagedFieldsOption } from '../printers/output.js';
import { resolveTargets } from '../resources.js';
import { generators, type Generator } from './create-generators.js';
import { lastAppliedFor } from './apply.js';
import { createTokenCommand } from './create-token.js';

interface CreateFlags extends WriteFlags { filename?: string[]; recursive?: boolean; output?: string; showManagedFields?: boolean; saveConfig?: boolean }

export function createCommand(cli: Cli): Command {
  const c = writeOptions(fileOptions(new Command('create'), 'the objects to create'), 'clusterctl-create')
    .description('Create objects from files or standard input, or one object from a generator')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .option('--save-config', 'record the object in the last-applied annotation, for later client-side apply')
    .action(async (flags: CreateFlags) => {
      if (!flags.filename?.length) throw new CliError('name the objects to create with -f, or use one of the generators: clusterctl create --help');
      const output = parseOutput(flags.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], flags.showManagedFields);
      const { dryRun, write } = writeFlags(flags);
      const { targets } = await resolveTargets(cli, [], { filenames: flags.filename, recursive: flags.recursive });
      let failed = false;
      for (const t of targets) {
        let obj = t.object!;
        if (flags.saveConfig) obj = await lastAppliedFor(cli, obj);
        try {
          const created = dryRun === 'client' ? obj : await (await resourceFor(cli, t)).create(obj, write);
          await printResult(cli, created, 'created', output, dryRun);
        } catch (e) {
          cli.err(`${errorText(e).replace(/^Error from server( \(\w+\))?: /, (m) => `${m}error when creating "${t.source}": `)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
  // `secret generic`, `service clusterip`: generators with two words sit under a parent command
  for (const g of generators) {
    const words = g.name.split(' ');
    let parent = c;
    for (const w of words.slice(0, -1)) {
      parent = parent.commands.find((x) => x.name() === w) ?? parent.command(w).description(`Create a ${w} of one of these kinds`);
    }
    parent.addCommand(generatorCommand(cli, { ...g, name: words[words.length - 1]! }));
  }
  c.addCommand(createTokenCommand(cli));
  return c;
}

/** A generator: its own flags, and those every creation has (-o, --dry-run, --field-manager, --validate, --save-config). */
function generatorCommand(cli: Cli, g: Generator): Command {
  const c = writeOptions(new Command(g.name), 'clusterctl-create').description(g.description);
  if (g.aliases) c.aliases(g.aliases);
  g.define(c);
  c.option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .option('--save-config', 'record the object in the last-applied annotation');
  c.action(async (...args: unknown[]) => {
      const command = args[args.length - 1] as Command;
      const flags = command.opts() as CreateFlags & Record<string, unknown>;
      const output = parseOutput(flags.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], flags.showManagedFields);
      const { dryRun, write } = writeFlags(flags);
      const d = await cli.discovery();
      const { namespace } = await cli.namespace();
      const positional = command.args;
      const built = await g.build({ args: positional, flags, d, names: d.names, namespace, cli });
      const info = d.forKind(built.apiVersion!, built.kind!);
      if (!info) throw new CliError(`the server does not serve ${built.kind} in ${built.apiVersion}`);
      let obj: ApiObject = info.namespaced ? { ...built, metadata: { ...built.metadata, namespace: built.metadata.namespace ?? namespace } } : built;
      if (flags.saveConfig) obj = await lastAppliedFor(cli, obj);
      const created = dryRun === 'client' ? obj : await (await cli.client()).resource<ApiObject>(info, info.namespaced ? obj.metadata.namespace : undefined).create(obj, write);
      await printResult(cli, created, 'created', output, dryRun);
  });
  return c;
}
