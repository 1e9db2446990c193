// patch: a strategic merge patch (default), JSON merge patch, JSON patch or apply patch to named objects,
// from -p or --patch-file; says "patched (no change)" when the object stayed the same.

import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import type { PatchType } from '../../client/rest-client.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions, writeFlags, writeOptions, type WriteFlags } from '../flags.js';
import { failIf, fetchTargets, resourceFor } from '../objects.js';
import { outputHelp, parseOutput, printResult, showManagedFieldsOption } from '../printers/output.js';
import { resolveTargets } from '../resources.js';
import { loadYaml } from '../../util/yaml.js';

interface PatchFlags extends WriteFlags { patch?: string; patchFile?: string; type: string; filename?: string[]; recursive?: boolean; output?: string; showManagedFields?: boolean; subresource?: string; local?: boolean }

const types: Record<string, PatchType> = { strategic: 'strategic', merge: 'merge', json: 'json', apply: 'apply' };

export function patchCommand(cli: Cli): Command {
  return writeOptions(fileOptions(new Command('patch'), 'the objects to patch'), 'clusterctl-patch')
    .description('Change fields of objects with a strategic merge, JSON merge or JSON patch')
    .argument('[args...]', 'TYPE NAME or TYPE/NAME')
    .option('-p, --patch <patch>', 'the patch, as JSON or YAML')
    .option('--patch-file <file>', 'a file holding the patch')
    .option('--type <type>', 'strategic, merge or json', 'strategic')
    .option('--subresource <name>', 'patch this subresource (status, scale)')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (args: string[], f: PatchFlags) => {
      const type = types[f.type];
      if (!type) throw new CliError(`--type must be json, merge or strategic, not "${f.type}"`);
      if (!!f.patch === !!f.patchFile) throw new CliError('give the patch with exactly one of -p or --patch-file');
      const text = f.patch ?? readFileSync(f.patchFile!, 'utf8');
      let body: unknown;
      try {
        body = (await loadYaml()).parse(text);
      } catch (e) {
        throw new CliError(`the patch is not JSON or YAML: ${(e as Error).message}`);
      }
      if (type === 'json' ? !Array.isArray(body) : (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new CliError(type === 'json' ? 'a JSON patch must be a list of operations' : 'the patch must be an object');
      }
      const output = parseOutput(f.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], f.showManagedFields);
      const { dryRun, write } = writeFlags(f);
      const { targets } = await resolveTargets(cli, args, { filenames: f.filename, recursive: f.recursive, verb: 'patch', requireNames: true });
      const { found, failed: readFailed } = await fetchTargets(cli, targets);
      let failed = readFailed;
      for (const { info, namespace, object } of found) {
        try {
          const r = await resourceFor(cli, { info, namespace });
          const name = object.metadata.name!;
          const sub = f.subresource ? r.subresource(f.subresource) : r;
          const patched = dryRun === 'client' ? object : await sub.patch(name, type === 'apply' ? text : body, type, write);
          const changed = patched.metadata?.resourceVersion !== object.metadata.resourceVersion || dryRun === 'server';
          await printResult(cli, { ...patched, apiVersion: object.apiVersion, kind: object.kind }, changed ? 'patched' : 'patched (no change)', output, dryRun === 'client' ? 'client' : 'none');
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}
