// wait: until objects are deleted, have a condition (`condition=Ready`, `condition=Ready=false`), or a field
// holds a value (`jsonpath={.status.phase}=Running`); watches each object from the revision it was read at.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { parseDuration } from '../../config/flags.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions } from '../flags.js';
import { failIf, fetchTargets, resourceFor, type Found } from '../objects.js';
import { loadJsonPath, query } from '../printers/jsonpath.js';
import { nameOf } from '../printers/objects.js';
import { resolveTargets } from '../resources.js';

interface WaitFlags { for: string; timeout: string; filename?: string[]; recursive?: boolean; selector?: string; fieldSelector?: string; all?: boolean; allNamespaces?: boolean }

type Predicate = (obj: ApiObject | undefined) => boolean;

export function parseCondition(spec: string): { predicate: Predicate; deletion: boolean } {
  if (spec === 'delete') return { deletion: true, predicate: (o) => o === undefined };
  const cond = /^condition=([^=]+)(?:=(.*))?$/i.exec(spec);
  if (cond) {
    const type = cond[1]!.toLowerCase();
    const want = (cond[2] ?? 'true').toLowerCase();
    return {
      deletion: false,
      predicate: (o) => !!(o?.status as any)?.conditions?.some((c: any) => String(c.type).toLowerCase() === type && String(c.status).toLowerCase() === want
        && (c.observedGeneration === undefined || o!.metadata.generation === undefined || c.observedGeneration >= o!.metadata.generation)),
    };
  }
  const jp = /^jsonpath=(.+?)(?:=([^=}]*))?$/.exec(spec);
  if (jp) {
    const expr = jp[1]!.replace(/^'(.*)'$/, '$1').replace(/^\{(.*)\}$/s, '$1');
    const want = jp[2];
    return {
      deletion: false,
      predicate: (o) => {
        if (!o) return false;
        const values = query(expr, o);
        if (want === undefined) return values.length > 0;
        return values.length > 0 && values.every((v) => (typeof v === 'string' ? v : JSON.stringify(v)) === want);
      },
    };
  }
  throw new CliError(`unrecognized condition "${spec}": use delete, condition=NAME[=VALUE] or jsonpath={PATH}=VALUE`);
}

export function waitCommand(cli: Cli): Command {
  return fileOptions(new Command('wait'), 'the objects to wait for')
    .description('Wait until objects are deleted, have a condition, or a field holds a value')
    .argument('[args...]', 'TYPE NAME..., TYPE/NAME..., or TYPE with -l or --all')
    .requiredOption('--for <condition>', 'delete, condition=NAME[=VALUE] or jsonpath={PATH}=VALUE')
    .option('--timeout <duration>', 'give up after this long (0: check once; negative: a week)', '30s')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .option('--field-selector <selector>', 'the objects these fields select')
    .option('--all', 'every object of the type in the namespace')
    .option('-A, --all-namespaces', 'in every namespace')
    .action(async (args: string[], f: WaitFlags) => {
      await loadJsonPath();
      const { predicate, deletion } = parseCondition(f.for);
      const ms = parseDuration(f.timeout);
      const deadline = Date.now() + (ms < 0 ? 7 * 24 * 3600 * 1000 : ms);
      const { targets } = await resolveTargets(cli, args, { filenames: f.filename, recursive: f.recursive, allNamespaces: f.allNamespaces, verb: 'wait for' });
      const { found, failed } = await fetchTargets(cli, targets, { selector: f.selector, fieldSelector: f.fieldSelector, ignoreNotFound: deletion });
      if (deletion) {
        for (const t of targets.filter((x) => x.name !== undefined && !found.some((y) => y.object.metadata.name === x.name))) {
          cli.out(`${nameOf({ apiVersion: t.info.group ? `${t.info.group}/${t.info.version}` : t.info.version, kind: t.info.kind, metadata: { name: t.name } })} condition met\n`);
        }
      } else if (!found.length && !failed) {
        throw new CliError('no matching resources found');
      }
      let timedOut = false;
      for (const item of found) {
        try {
          if (await waitFor(cli, item, predicate, deadline)) cli.out(`${nameOf(item.object)} condition met\n`);
          else {
            cli.err(`error: timed out waiting for the condition on ${item.info.resource}/${item.object.metadata.name}\n`);
            timedOut = true;
          }
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          timedOut = true;
        }
      }
      failIf(failed || timedOut);
    });
}

/** true once the predicate holds for the object (undefined once it is gone), false at the deadline */
async function waitFor(cli: Cli, item: Found, predicate: Predicate, deadline: number): Promise<boolean> {
  const r = await resourceFor(cli, item);
  const name = item.object.metadata.name!;
  const uid = item.object.metadata.uid;
  for (;;) {
    const list = await r.list({ fieldSelector: `metadata.name=${name}` });
    const current = list.items.find((o) => !uid || o.metadata.uid === uid);
    if (predicate(current)) return true;
    const remaining = Math.ceil((deadline - Date.now()) / 1000);
    if (remaining <= 0) return false;
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), deadline - Date.now());
    try {
      for await (const e of r.watch({ fieldSelector: `metadata.name=${name}`, resourceVersion: list.metadata.resourceVersion, timeoutSeconds: remaining, signal: stop.signal })) {
        if (e.type === 'BOOKMARK') continue;
        if (uid && e.object.metadata?.uid !== uid) continue;
        if (predicate(e.type === 'DELETED' ? undefined : e.object)) return true;
      }
    } catch (e) {
      if ((e as { code?: number }).code !== 410) throw e;
    } finally {
      clearTimeout(timer);
    }
    if (Date.now() >= deadline) return false;
  }
}
