// edit: the objects in an editor ($CLUSTERCTL_EDITOR, $KUBE_EDITOR, $EDITOR, else vi) as YAML or JSON; what was
// changed is written back as an update at the resourceVersion that was read (a conflict is reported).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { loadYaml } from '../../util/yaml.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions, writeFlags, writeOptions, type WriteFlags } from '../flags.js';
import { failIf, fetchTargets, resourceFor } from '../objects.js';
import { parseOutput, printResult } from '../printers/output.js';
import { toJson, toYaml } from '../printers/objects.js';
import { resolveTargets } from '../resources.js';

interface EditFlags extends WriteFlags { filename?: string[]; recursive?: boolean; output?: string; subresource?: string }

export function editorCommand(): string[] {
  const editor = process.env.CLUSTERCTL_EDITOR || process.env.KUBE_EDITOR || process.env.EDITOR || 'vi';
  return ['sh', '-c', `${editor} "$1"`, 'editor'];
}

export function editCommand(cli: Cli): Command {
  return writeOptions(fileOptions(new Command('edit'), 'the objects to edit'), 'clusterctl-edit')
    .description('Edit objects in your editor and write the changes back')
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .option('-o, --output <format>', 'yaml (default) or json for editing')
    .option('--subresource <name>', 'edit this subresource (status)')
    .action(async (args: string[], f: EditFlags) => {
      const format = f.output ?? 'yaml';
      if (format !== 'yaml' && format !== 'json') throw new CliError('--output for edit must be yaml or json');
      const { dryRun, write } = writeFlags(f);
      const { targets } = await resolveTargets(cli, args, { filenames: f.filename, recursive: f.recursive, verb: 'edit', requireNames: false });
      const { found, failed: readFailed } = await fetchTargets(cli, targets);
      let failed = readFailed;
      const dir = mkdtempSync(join(tmpdir(), 'clusterctl-edit-'));
      try {
        for (const { info, namespace, object } of found) {
          const r = await resourceFor(cli, { info, namespace });
          const original = f.subresource ? { ...(await r.subresource(f.subresource).get(object.metadata.name!)), apiVersion: object.apiVersion, kind: object.kind } : object;
          const header = '# Edit the object below. Lines starting with # are ignored; an unchanged file cancels the edit.\n#\n';
          const text = format === 'json' ? toJson(original) : await toYaml(original);
          const file = join(dir, `${info.resource}-${object.metadata.name}.${format}`);
          writeFileSync(file, format === 'json' ? text : header + text);
          const [cmd, ...cmdArgs] = editorCommand();
          const run = spawnSync(cmd!, [...cmdArgs, file], { stdio: 'inherit' });
          if (run.status !== 0) throw new CliError(`the editor exited with ${run.status ?? run.signal}; nothing was changed`);
          const edited = readFileSync(file, 'utf8');
          const body = edited.split('\n').filter((l) => !l.startsWith('#')).join('\n');
          let changed: ApiObject;
          try {
            changed = (await loadYaml()).parse(body);
          } catch (e) {
            throw new CliError(`the edited file is not valid ${format.toUpperCase()}: ${(e as Error).message}; your changes are in ${file}`);
          }
          if (!changed || JSON.stringify(changed) === JSON.stringify((await loadYaml()).parse(text))) {
            cli.out('Edit cancelled, no changes made.\n');
            continue;
          }
          try {
            const sub = f.subresource ? r.subresource(f.subresource) : r;
            const result = dryRun === 'client' ? changed : await sub.update(changed, write);
            await printResult(cli, { ...result, apiVersion: object.apiVersion, kind: object.kind }, 'edited', parseOutput(undefined), dryRun);
          } catch (e) {
            cli.err(`${errorText(e)}\n`);
            failed = true;
          }
        }
      } finally {
        if (!failed) rmSync(dir, { recursive: true, force: true });
      }
      failIf(failed);
    });
}
