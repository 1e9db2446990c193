// replace: puts the objects of -f in place of the stored ones (the stored resourceVersion unless the file has
// one); `--force` deletes and creates them again.

import { Command } from 'commander';
import { ApiError } from '../../client/rest-client.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions, writeFlags, writeOptions, type WriteFlags } from '../flags.js';
import { failIf, resourceFor } from '../objects.js';
import { outputHelp, parseOutput, printResult, showManagedFieldsOption } from '../printers/output.js';
import { resolveTargets, targetObject } from '../resources.js';

interface ReplaceFlags extends WriteFlags { filename?: string[]; recursive?: boolean; output?: string; showManagedFields?: boolean; force?: boolean; subresource?: string }

export function replaceCommand(cli: Cli): Command {
  return writeOptions(fileOptions(new Command('replace'), 'the objects to replace'), 'clusterctl-replace')
    .description('Replace objects with the ones of files or standard input')
    .option('--force', 'delete the objects and create them again')
    .option('--subresource <name>', 'replace this subresource (status, scale)')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (f: ReplaceFlags) => {
      if (!f.filename?.length) throw new CliError('name the objects to replace with -f');
      const output = parseOutput(f.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], f.showManagedFields);
      const { dryRun, write } = writeFlags(f);
      const { targets } = await resolveTargets(cli, [], { filenames: f.filename, recursive: f.recursive });
      let failed = false;
      for (const t of targets) {
        const r = await resourceFor(cli, t);
        const obj = targetObject(t);
        try {
          if (f.force) {
            if (dryRun === 'none') {
              await r.delete(t.name!, { propagationPolicy: 'Background' }).catch((e) => { if (!(e instanceof ApiError && e.code === 404)) throw e; });
              const { resourceVersion: _, uid: __, ...metadata } = obj.metadata;
              await printResult(cli, await createWhenGone(r, { ...obj, metadata }), 'replaced', output);
            } else {
              await printResult(cli, obj, 'replaced', output, dryRun);
            }
            continue;
          }
          if (!obj.metadata.resourceVersion) {
            const live = await r.get(t.name!);
            obj.metadata = { ...obj.metadata, resourceVersion: live.metadata.resourceVersion };
          }
          const sub = f.subresource ? r.subresource(f.subresource) : r;
          const replaced = dryRun === 'client' ? obj : await sub.update(obj, write);
          await printResult(cli, replaced, 'replaced', output, dryRun);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

/** a delete with finalizers or a grace period takes a while: create once the name is free */
async function createWhenGone(r: Awaited<ReturnType<typeof resourceFor>>, obj: Parameters<Awaited<ReturnType<typeof resourceFor>>['create']>[0]) {
  for (let pause = 20; ; pause = Math.min(pause * 2, 1000)) {
    try {
      return await r.create(obj);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
      await new Promise((res) => setTimeout(res, pause));
    }
  }
}
