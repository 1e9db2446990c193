// label and annotate: `key=value` sets, `key-` removes; an existing key changes only with --overwrite.
// Sent as a merge patch of metadata.labels or metadata.annotations.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions, writeFlags, writeOptions, type WriteFlags } from '../flags.js';
import { failIf, fetchTargets, resourceFor } from '../objects.js';
import { outputHelp, parseOutput, printResult, showManagedFieldsOption } from '../printers/output.js';
import { resolveTargets } from '../resources.js';

interface MetaFlags extends WriteFlags {
  filename?: string[]; recursive?: boolean; selector?: string; fieldSelector?: string; all?: boolean; allNamespaces?: boolean;
  overwrite?: boolean; resourceVersion?: string; list?: boolean; output?: string; showManagedFields?: boolean;
}

type Field = 'labels' | 'annotations';

function metadataCommand(cli: Cli, name: 'label' | 'annotate', field: Field, pastOf: (removalsOnly: boolean) => string): Command {
  return writeOptions(fileOptions(new Command(name), `the objects to ${name}`), `clusterctl-${name}`)
    .description(`Update the ${field} of objects: KEY=VALUE sets one, KEY- removes it`)
    .argument('[args...]', 'TYPE NAME... KEY=VALUE... KEY-...')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .option('--field-selector <selector>', 'the objects these fields select')
    .option('--all', 'every object of the type in the namespace')
    .option('-A, --all-namespaces', 'in every namespace')
    .option('--overwrite', `change ${field} that already have a value`)
    .option('--resource-version <rv>', 'only if the object is still at this resourceVersion')
    .option('--list', `print the ${field} of the objects`)
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (args: string[], f: MetaFlags) => {
      const changes = args.filter((a) => a.includes('=') || (a.endsWith('-') && !a.includes('/')));
      const rest = args.filter((a) => !changes.includes(a));
      // a bare word ending in '-' is a removal only after the type (and names)
      const set: Record<string, string> = {};
      const remove: string[] = [];
      for (const c of changes) {
        if (c.includes('=')) {
          const key = c.slice(0, c.indexOf('='));
          if (!key) throw new CliError(`invalid ${field === 'labels' ? 'label' : 'annotation'} "${c}"`);
          set[key] = c.slice(c.indexOf('=') + 1);
        } else remove.push(c.slice(0, -1));
      }
      if (!f.list && !Object.keys(set).length && !remove.length) throw new CliError(`at least one ${field === 'labels' ? 'label' : 'annotation'} update is required`);
      const output = parseOutput(f.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], f.showManagedFields);
      const { dryRun, write } = writeFlags(f);
      const bySelector = !!(f.selector || f.fieldSelector || f.all);
      const { targets } = await resolveTargets(cli, rest, { filenames: f.filename, recursive: f.recursive, allNamespaces: f.allNamespaces, verb: name });
      if (!f.filename?.length && targets.some((t) => t.name === undefined) && !bySelector) throw new CliError('name the objects, or select them with -l, --field-selector or --all');
      const { found, failed: readFailed } = await fetchTargets(cli, targets, { selector: f.selector, fieldSelector: f.fieldSelector });
      let failed = readFailed;
      for (const { info, namespace, object } of found) {
        try {
          const current: Record<string, string> = (object.metadata as Record<string, any>)[field] ?? {};
          if (f.list) {
            cli.out(`Listing ${field} for ${info.kind}.${info.group}/${object.metadata.name}:\n`);
            for (const [k, v] of Object.entries(current)) cli.out(` ${k}=${v}\n`);
            continue;
          }
          for (const [k, v] of Object.entries(set)) {
            if (k in current && current[k] !== v && !f.overwrite) throw new CliError(`'${k}' already has a value (${current[k]}), and --overwrite is false`);
          }
          const patchValue: Record<string, string | null> = { ...set };
          for (const k of remove) patchValue[k] = null;
          const changed = Object.entries(set).some(([k, v]) => current[k] !== v) || remove.some((k) => k in current);
          const patch = { metadata: { [field]: patchValue, ...(f.resourceVersion ? { resourceVersion: f.resourceVersion } : {}) } };
          const r = await resourceFor(cli, { info, namespace });
          const past = pastOf(!Object.keys(set).length);
          const result: ApiObject = dryRun === 'client' || !changed ? object : await r.patch(object.metadata.name!, patch, 'merge', write);
          await printResult(cli, { ...result, apiVersion: object.apiVersion, kind: object.kind }, changed ? past : `not ${past}`, output, dryRun);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

export const labelCommand = (cli: Cli) => metadataCommand(cli, 'label', 'labels', (removalsOnly) => (removalsOnly ? 'unlabeled' : 'labeled'));
export const annotateCommand = (cli: Cli) => metadataCommand(cli, 'annotate', 'annotations', () => 'annotated');
