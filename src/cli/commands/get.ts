// get: the server's tables (`-o wide` adds the wide columns), or the objects as JSON, YAML, names, JSONPath
// or custom columns; lists in chunks, across namespaces, by selectors; `-w` follows changes after the list.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { readAll, resourcePath, watchEvents, type Response } from '../../client/rest-client.js';
import { CliError, errorText, type Cli } from '../cli.js';
import { fetchTargets, failIf, tableAccept, withKind } from '../objects.js';
import { outputHelp, parseOutput, printable, printObjects, showManagedFieldsOption, type Output } from '../printers/output.js';
import { alignColumns, tableCells, type Table, type TableOptions } from '../printers/table.js';
import { loadJsonPath, query } from '../printers/jsonpath.js';
import { qualifiedName, resolveTargets, type Target } from '../resources.js';
import { collect } from '../flags.js';
import { since } from '../../api/duration.js';
import { toJson, toYaml } from '../printers/objects.js';

interface GetFlags {
  output?: string; selector?: string; fieldSelector?: string; allNamespaces?: boolean; filename?: string[]; recursive?: boolean;
  watch?: boolean; watchOnly?: boolean; chunkSize: string; showLabels?: boolean; labelColumns?: string[]; headers: boolean;
  sortBy?: string; ignoreNotFound?: boolean; showManagedFields?: boolean; showKind?: boolean; raw?: string; subresource?: string;
}

export function getCommand(cli: Cli): Command {
  return new Command('get')
    .description('Display one or many resources')
    .argument('[args...]', 'TYPE[.VERSION][.GROUP] [NAME...], TYPE/NAME ..., or TYPE1,TYPE2')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .option('-l, --selector <selector>', 'label selector, e.g. app=web,tier!=db')
    .option('--field-selector <selector>', 'field selector, e.g. metadata.name=x')
    .option('-A, --all-namespaces', 'list across all namespaces')
    .option('-f, --filename <file>', 'objects named in files, folders or URLs; repeatable', collect)
    .option('-R, --recursive', 'read folders of -f recursively')
    .option('-w, --watch', 'after listing, print changes as they happen')
    .option('--watch-only', 'print changes only, without the list first')
    .option('--chunk-size <n>', 'list in pages of this many objects (0: one request)', '500')
    .option('--show-labels', 'add a LABELS column')
    .option('-L, --label-columns <key>', 'add a column with the value of this label; repeatable', collect)
    .option('--no-headers', 'leave out the header line')
    .option('--sort-by <jsonpath>', 'sort the rows by this field, e.g. .metadata.name')
    .option('--ignore-not-found', 'say nothing about objects that do not exist')
    .option('--show-kind', 'print the type with each name')
    .option('--raw <path>', 'GET this path of the server and print the answer as it is')
    .option('--subresource <name>', 'read this subresource (status, scale) of the named objects')
    .action(async (args: string[], flags: GetFlags) => {
      if (flags.raw) return rawGet(cli, flags.raw);
      const output = parseOutput(flags.output, undefined, flags.showManagedFields);
      const chunkSize = Number(flags.chunkSize);
      if (!Number.isInteger(chunkSize) || chunkSize < 0) throw new CliError(`--chunk-size must be a whole number, not "${flags.chunkSize}"`);
      const { targets, multipleTypes } = await resolveTargets(cli, args, { filenames: flags.filename, recursive: flags.recursive, allNamespaces: flags.allNamespaces });
      if ((flags.watch || flags.watchOnly) && new Set(targets.map((t) => t.info)).size > 1) throw new CliError('watch is only supported on one resource type at a time');
      const human = output.kind === 'default' || output.kind === 'wide';
      if (flags.sortBy) await loadJsonPath();
      let resourceVersion: string | undefined;
      if (!flags.watchOnly) {
        resourceVersion = human
          ? await printTables(cli, targets, flags, output, multipleTypes, chunkSize)
          : await printMachine(cli, targets, flags, output, chunkSize);
      }
      if (flags.watch || flags.watchOnly) await watch(cli, targets[0]!, flags, output, resourceVersion);
    });
}

async function rawGet(cli: Cli, path: string) {
  const client = await cli.client();
  const [p, q] = path.split('?');
  const query = Object.fromEntries(new URLSearchParams(q ?? ''));
  const res = await client.stream({ method: 'GET', path: p!, query, accept: 'application/json, */*' });
  for await (const chunk of res) cli.out(chunk.toString('utf8'));
}

/** a Table (or plain objects, when the server answers without one) for one target */
async function readTable(cli: Cli, t: Target, flags: GetFlags, chunkSize: number, onPage: (table: Table) => void): Promise<string | undefined> {
  const client = await cli.client();
  const names = await cli.names();
  const accept = tableAccept(names);
  const includeObject = flags.sortBy ? 'Object' : undefined;
  const asTable = (body: any): Table => body?.kind === 'Table' ? body : objectsTable(body?.items ? body.items : [body]);
  if (t.name !== undefined) {
    const path = resourcePath(t.info, t.namespace, t.name, flags.subresource);
    onPage(asTable(await client.request({ method: 'GET', path, accept, query: { includeObject } })));
    return undefined;
  }
  let cont: string | undefined;
  let rv: string | undefined;
  do {
    const body = await client.request<any>({
      method: 'GET', path: resourcePath(t.info, t.namespace), accept,
      query: { labelSelector: flags.selector, fieldSelector: flags.fieldSelector, limit: chunkSize || undefined, continue: cont, includeObject },
    });
    rv ??= body?.metadata?.resourceVersion;
    cont = body?.metadata?.continue || undefined;
    onPage(asTable(body));
  } while (cont);
  return rv;
}

/** NAME and AGE, as the reference shows objects of a server that sends no table */
function objectsTable(items: ApiObject[]): Table {
  return {
    columnDefinitions: [{ name: 'Name', type: 'string', format: 'name' }, { name: 'Age', type: 'string' }],
    rows: items.map((o) => ({ cells: [o.metadata?.name, since(o.metadata?.creationTimestamp)], object: o })),
  };
}

async function printTables(cli: Cli, targets: Target[], flags: GetFlags, output: Output, multipleTypes: boolean, chunkSize: number): Promise<string | undefined> {
  // one table per resource type, in the order the types were named
  const groups = new Map<string, { target: Target; table: Table }>();
  let failed = false;
  let listed = false;
  let rv: string | undefined;
  for (const t of targets) {
    const key = `${t.info.group}/${t.info.resource}`;
    try {
      if (t.name === undefined) listed = true;
      const got = await readTable(cli, t, flags, chunkSize, (page) => {
        const g = groups.get(key);
        if (!g) groups.set(key, { target: t, table: { ...page, rows: [...(page.rows ?? [])] } });
        else g.table.rows!.push(...(page.rows ?? []));
      });
      rv ??= got;
    } catch (e) {
      if (flags.ignoreNotFound && (e as { code?: number }).code === 404) continue;
      cli.err(`${errorText(e)}\n`);
      failed = true;
    }
  }
  const shown = [...groups.values()].filter((g) => g.table.rows?.length);
  shown.forEach(({ target, table }, i) => {
    if (flags.sortBy) table.rows = sortRows(table.rows ?? [], flags.sortBy);
    const o: TableOptions = {
      wide: output.kind === 'wide', noHeaders: !flags.headers, showLabels: flags.showLabels, labelColumns: flags.labelColumns,
      withNamespace: flags.allNamespaces && target.info.namespaced,
      namePrefix: multipleTypes || flags.showKind ? qualifiedName(target.info, '').slice(0, -1) : undefined,
    };
    cli.out(`${i > 0 ? '\n' : ''}${alignColumns(tableCells(table, o))}`);
  });
  if (!shown.length && listed && !failed && !flags.watch) await noResources(cli, targets, flags);
  failIf(failed);
  return rv;
}

/** the reference's note on standard error when a list found nothing */
async function noResources(cli: Cli, targets: Target[], flags: GetFlags) {
  const { namespace } = await cli.namespace();
  const namespaced = targets.some((t) => t.info.namespaced) && !flags.allNamespaces;
  cli.err(namespaced ? `No resources found in ${namespace} namespace.\n` : 'No resources found\n');
}

function sortRows(rows: NonNullable<Table['rows']>, sortBy: string) {
  const path = sortBy.replace(/^\{(.*)\}$/s, '$1');
  const key = (row: (typeof rows)[number]) => query(path, row.object ?? {})[0];
  const compare = (a: unknown, b: unknown) => {
    if (a === undefined) return b === undefined ? 0 : -1;
    if (b === undefined) return 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    const qa = quantity(a), qb = quantity(b);
    if (qa !== undefined && qb !== undefined) return qa - qb;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  };
  return [...rows].sort((x, y) => compare(key(x), key(y)));
}

/** numbers and timestamps sort by value */
function quantity(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  if (/^\d{4}-\d\d-\d\dT/.test(v)) return Date.parse(v);
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

async function printMachine(cli: Cli, targets: Target[], flags: GetFlags, output: Output, chunkSize: number): Promise<string | undefined> {
  const single = targets.length === 1 && targets[0]!.name !== undefined;
  let objects: ApiObject[];
  let failed = false;
  let rv: string | undefined;
  if (flags.subresource) {
    objects = [];
    for (const t of targets) {
      if (t.name === undefined) throw new CliError('--subresource needs the names of the objects');
      try { objects.push(await (await cli.client()).request({ method: 'GET', path: resourcePath(t.info, t.namespace, t.name, flags.subresource) })); }
      catch (e) { cli.err(`${errorText(e)}\n`); failed = true; }
    }
  } else {
    const got = await fetchTargets(cli, targets, { selector: flags.selector, fieldSelector: flags.fieldSelector, chunkSize, ignoreNotFound: flags.ignoreNotFound });
    objects = got.found.map((f) => f.object);
    failed = got.failed;
    if (targets.some((t) => t.name === undefined)) {
      const t = targets[0]!;
      rv = (await (await cli.client()).resource(t.info, t.namespace).list({ limit: 1, labelSelector: flags.selector, fieldSelector: flags.fieldSelector })).metadata.resourceVersion;
    }
  }
  if (flags.sortBy) {
    const rows = sortRows(objects.map((o) => ({ cells: [], object: o })), flags.sortBy);
    objects = rows.map((r) => r.object as ApiObject);
  }
  if (objects.length || single || output.kind === 'json' || output.kind === 'yaml') {
    if (!(single && failed)) await printObjects(cli, objects, output, { single, noHeaders: !flags.headers });
  } else if (!failed && !flags.watch && !flags.watchOnly) {
    await noResources(cli, targets, flags);
  }
  failIf(failed);
  return rv;
}

async function watch(cli: Cli, t: Target, flags: GetFlags, output: Output, resourceVersion?: string): Promise<void> {
  const client = await cli.client();
  const names = await cli.names();
  const human = output.kind === 'default' || output.kind === 'wide';
  if (resourceVersion === undefined) {
    const list = await client.resource(t.info, t.namespace).list({ limit: 1, labelSelector: flags.selector, fieldSelector: flags.fieldSelector });
    resourceVersion = list.metadata.resourceVersion;
  }
  const fieldSelector = [flags.fieldSelector, t.name !== undefined ? `metadata.name=${t.name}` : undefined].filter(Boolean).join(',') || undefined;
  const res: Response = await client.stream({
    method: 'GET', path: resourcePath(t.info, t.namespace), accept: human ? tableAccept(names) : 'application/json',
    query: { watch: 'true', resourceVersion, labelSelector: flags.selector, fieldSelector },
  });
  if (res.statusCode >= 300) throw new CliError(await readAll(res));
  let first = true;
  // the server gives a Table watch's column definitions with its first event only, as the reference does
  let columns: Table['columnDefinitions'];
  for await (const event of watchEvents<any>(res)) {
    if (event.type === 'BOOKMARK') continue;
    if (human) {
      const o: TableOptions = {
        wide: output.kind === 'wide', noHeaders: !flags.headers || !first || !flags.watchOnly, showLabels: flags.showLabels,
        labelColumns: flags.labelColumns, withNamespace: flags.allNamespaces && t.info.namespaced,
        namePrefix: flags.showKind ? qualifiedName(t.info, '').slice(0, -1) : undefined,
      };
      let table: Table = event.object?.kind === 'Table' ? event.object : objectsTable([event.object]);
      if (table.columnDefinitions?.length) columns = table.columnDefinitions;
      else table = { ...table, columnDefinitions: columns };
      cli.out(alignColumns(tableCells(table, o)));
    } else {
      const obj = withKind(event.object, t.info);
      if (output.kind === 'json') cli.out(toJson(printable(obj, output)));
      else if (output.kind === 'yaml') cli.out(`${first ? '' : '---\n'}${await toYaml(printable(obj, output))}`);
      else await printObjects(cli, [obj], output, { single: true, noHeaders: true });
    }
    first = false;
  }
}
