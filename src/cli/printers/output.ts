// `-o FORMAT` for commands that print objects: json, yaml, name, jsonpath=, jsonpath-file=, custom-columns=,
// custom-columns-file=; the table forms (`wide`, the default) belong to `get`, which asks the server for them.

import { readFileSync } from 'node:fs';
import type { ApiObject } from '../../api/meta.js';
import { CliError, type Cli } from '../cli.js';
import { customColumnsText, parseCustomColumns, parseCustomColumnsFile } from './custom-columns.js';
import { jsonPathPrinter, loadJsonPath } from './jsonpath.js';
import { asList, nameOf, toJson, toYaml } from './objects.js';

export type OutputKind = 'default' | 'wide' | 'json' | 'yaml' | 'name' | 'jsonpath' | 'custom-columns';
export interface Output { kind: OutputKind; arg?: string; showManagedFields?: boolean }

export const outputHelp = 'output format: json, yaml, name, wide, jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC, custom-columns-file=FILE';
export const showManagedFieldsOption = ['--show-managed-fields', 'keep metadata.managedFields in JSON and YAML output'] as const;

export function parseOutput(flag: string | undefined, allowed: OutputKind[] = ['default', 'wide', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'],
  showManagedFields = false): Output {
  if (!flag) return { kind: 'default' };
  const eq = flag.indexOf('=');
  const format = eq < 0 ? flag : flag.slice(0, eq);
  const arg = eq < 0 ? undefined : flag.slice(eq + 1);
  const kinds: Record<string, () => Output> = {
    json: () => ({ kind: 'json' }), yaml: () => ({ kind: 'yaml' }), name: () => ({ kind: 'name' }), wide: () => ({ kind: 'wide' }),
    jsonpath: () => ({ kind: 'jsonpath', arg }), 'jsonpath-as-json': () => ({ kind: 'jsonpath', arg }),
    'jsonpath-file': () => ({ kind: 'jsonpath', arg: arg === undefined ? undefined : readFileSync(arg, 'utf8') }),
    'custom-columns': () => ({ kind: 'custom-columns', arg }),
    'custom-columns-file': () => ({ kind: 'custom-columns', arg: arg === undefined ? undefined : `file:${arg}` }),
  };
  const out = Object.hasOwn(kinds, format) ? kinds[format]!() : undefined;
  if (!out || !allowed.includes(out.kind)) {
    throw new CliError(`unable to match a printer suitable for the output format "${flag}", the allowed formats are: ${allowed.filter((k) => k !== 'default').join(',')}`);
  }
  if ((out.kind === 'jsonpath' || out.kind === 'custom-columns') && !out.arg) throw new CliError(`${format} needs a template: -o ${format}=...`);
  return { ...out, showManagedFields };
}

/** what JSON and YAML print of an object or a List: without its managed fields unless asked for (as kubectl prints;
 *  JSONPath and custom columns still see them) */
export function printable(value: unknown, output: Output): unknown {
  if (output.showManagedFields || (output.kind !== 'json' && output.kind !== 'yaml')) return value;
  const strip = (o: unknown) => {
    const meta = (o as ApiObject | null)?.metadata;
    if (!meta || typeof meta !== 'object' || !('managedFields' in meta)) return o;
    const { managedFields: _, ...rest } = meta;
    return { ...(o as ApiObject), metadata: rest };
  };
  const list = value as { items?: unknown };
  return Array.isArray(list?.items) ? { ...list, items: list.items.map(strip) } : strip(value);
}

/** Prints objects in a machine format; `single` prints one object as itself rather than as a List. */
export async function printObjects(cli: Cli, objects: ApiObject[], output: Output, o: { single?: boolean; noHeaders?: boolean } = {}): Promise<void> {
  const data = o.single && objects.length === 1 ? objects[0] : asList(objects);
  if (output.kind === 'jsonpath' || output.kind === 'custom-columns') await loadJsonPath();
  switch (output.kind) {
    case 'json': return cli.out(toJson(printable(data, output)));
    case 'yaml': return cli.out(await toYaml(printable(data, output)));
    case 'name': return cli.out(objects.map((obj) => `${nameOf(obj)}\n`).join(''));
    case 'jsonpath': return cli.out(jsonPathPrinter(output.arg!)(data));
    case 'custom-columns': {
      const columns = output.arg!.startsWith('file:') ? parseCustomColumnsFile(output.arg!.slice(5)) : parseCustomColumns(output.arg!);
      return cli.out(customColumnsText(columns, objects, o.noHeaders));
    }
    default:
      throw new CliError(`the output format ${output.kind} cannot print these objects`);
  }
}

/** `configmap/x created`, or the object in the asked format */
export async function printResult(cli: Cli, obj: ApiObject, verb: string, output: Output, dryRun?: 'client' | 'server' | 'none'): Promise<void> {
  if (output.kind === 'default' || output.kind === 'wide') {
    const suffix = dryRun === 'server' ? ' (server dry run)' : dryRun === 'client' ? ' (dry run)' : '';
    cli.out(`${nameOf(obj)} ${verb}${suffix}\n`);
    return;
  }
  await printObjects(cli, [obj], output, { single: true });
}
