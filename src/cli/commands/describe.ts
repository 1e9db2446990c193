// describe: an object laid out for reading (name, namespace, labels, annotations, then its fields as an
// indented outline, ConfigMap and Secret data in their own sections, Secret values shown by size only) and
// the events that concern it.

import { Command } from 'commander';
import type { ApiObject } from '../../api/meta.js';
import { since } from '../../api/duration.js';
import { errorText, type Cli } from '../cli.js';
import { fileOptions } from '../flags.js';
import { failIf, fetchTargets, resourceFor } from '../objects.js';
import { alignColumns } from '../printers/table.js';
import { resolveTargets } from '../resources.js';
import { lookup } from '../resources.js';

interface DescribeFlags { filename?: string[]; recursive?: boolean; selector?: string; allNamespaces?: boolean; showEvents: boolean }

export function describeCommand(cli: Cli): Command {
  return fileOptions(new Command('describe'), 'the objects to describe')
    .description('Show the details of objects, with their events')
    .argument('[args...]', 'TYPE [NAME_PREFIX], TYPE/NAME...')
    .option('-l, --selector <selector>', 'the objects these labels select')
    .option('-A, --all-namespaces', 'in every namespace')
    .option('--show-events <bool>', 'show the events of each object', (v) => v !== 'false', true)
    .action(async (args: string[], f: DescribeFlags) => {
      const { targets } = await resolveTargets(cli, args.length > 2 ? args : args.slice(0, 1), { filenames: f.filename, recursive: f.recursive, allNamespaces: f.allNamespaces });
      // `describe TYPE PREFIX` describes every object whose name starts with PREFIX
      const prefix = args.length === 2 && !args[0]!.includes('/') ? args[1] : undefined;
      let { found, failed } = await fetchTargets(cli, targets, { selector: f.selector });
      if (prefix !== undefined) {
        const matching = found.filter((x) => x.object.metadata.name?.startsWith(prefix));
        if (!matching.length) {
          cli.err(`Error from server (NotFound): ${targets[0]!.info.resource} "${prefix}" not found\n`);
          failed = true;
        }
        found = matching;
      }
      for (let i = 0; i < found.length; i++) {
        const { info, object } = found[i]!;
        try {
          if (i > 0) cli.out('\n\n');
          cli.out(describeObject(object));
          if (f.showEvents) cli.out(await eventsSection(cli, object, info.namespaced));
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

const title = (key: string) => key.replace(/^[a-z]/, (c) => c.toUpperCase()).replace(/([a-z0-9])([A-Z])/g, '$1 $2');

function mapLines(label: string, map: Record<string, string> | undefined): string {
  const entries = Object.entries(map ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const pad = (s: string) => s.padEnd(14);
  if (!entries.length) return `${pad(`${label}:`)}<none>\n`;
  return entries.map(([k, v], i) => `${pad(i === 0 ? `${label}:` : '')}${k}=${v}\n`).join('');
}

/** the outline of a value: maps as `Key:` lines, lists as items, scalars after their key */
function outline(value: unknown, indent: number): string {
  const sp = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return value.map((item) => {
      if (item && typeof item === 'object') return `${sp}-\n${outline(item, indent + 2)}`;
      return `${sp}${String(item)}\n`;
    }).join('');
  }
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => {
      if (v && typeof v === 'object') return Object.keys(v).length ? `${sp}${title(k)}:\n${outline(v, indent + 2)}` : `${sp}${title(k)}:\n`;
      return `${sp}${title(k)}:${' '.repeat(Math.max(1, 2))}${String(v)}\n`;
    }).join('');
  }
  return `${sp}${String(value)}\n`;
}

export function describeObject(obj: ApiObject): string {
  const m = obj.metadata;
  let out = `${'Name:'.padEnd(14)}${m.name}\n`;
  if (m.namespace) out += `${'Namespace:'.padEnd(14)}${m.namespace}\n`;
  out += mapLines('Labels', m.labels);
  out += mapLines('Annotations', m.annotations);
  const { apiVersion, kind, metadata: _, ...fields } = obj;
  if (kind === 'ConfigMap') {
    out += '\nData\n====\n';
    for (const [k, v] of Object.entries((fields.data ?? {}) as Record<string, string>)) out += `${k}:\n----\n${v}\n\n`;
    out += '\nBinaryData\n====\n';
    for (const [k, v] of Object.entries((fields.binaryData ?? {}) as Record<string, string>)) out += `${k}: ${Buffer.from(v, 'base64').length} bytes\n`;
    return `${out}\n`;
  }
  if (kind === 'Secret') {
    out += `\nType:  ${fields.type ?? 'Opaque'}\n\nData\n====\n`;
    for (const [k, v] of Object.entries((fields.data ?? {}) as Record<string, string>)) out += `${k}:  ${Buffer.from(v, 'base64').length} bytes\n`;
    return out;
  }
  out += `${'API Version:'.padEnd(14)}${apiVersion}\n${'Kind:'.padEnd(14)}${kind}\n`;
  out += `Metadata:\n${outline({ creationTimestamp: m.creationTimestamp, ...(m.deletionTimestamp ? { deletionTimestamp: m.deletionTimestamp } : {}), ...(m.finalizers ? { finalizers: m.finalizers } : {}), ...(m.ownerReferences ? { ownerReferences: m.ownerReferences } : {}), resourceVersion: m.resourceVersion, uid: m.uid }, 2)}`;
  out += outline(fields, 0);
  return out;
}

async function eventsSection(cli: Cli, obj: ApiObject, namespaced: boolean): Promise<string> {
  const d = await cli.discovery();
  const events = lookup(d, 'events');
  const selector = [`involvedObject.name=${obj.metadata.name}`, ...(obj.metadata.namespace ? [`involvedObject.namespace=${obj.metadata.namespace}`] : []), ...(obj.metadata.uid ? [`involvedObject.uid=${obj.metadata.uid}`] : [])].join(',');
  const list = await (await resourceFor(cli, { info: events, namespace: namespaced ? obj.metadata.namespace : undefined })).list({ fieldSelector: selector }).catch(() => ({ items: [] as any[] }));
  if (!list.items.length) return 'Events:       <none>\n';
  const rows = list.items
    .sort((a: any, b: any) => String(a.lastTimestamp ?? a.eventTime ?? '').localeCompare(String(b.lastTimestamp ?? b.eventTime ?? '')))
    .map((e: any) => {
      const age = since(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp);
      const count = (e.count ?? 1) > 1 ? ` (x${e.count} over ${since(e.firstTimestamp)})` : '';
      return ['  ' + (e.type ?? ''), e.reason ?? '', `${age}${count}`, e.source?.component ?? e.reportingComponent ?? '', e.message ?? ''];
    });
  return `Events:\n${alignColumns([['  Type', 'Reason', 'Age', 'From', 'Message'], ['  ----', '------', '----', '----', '-------'], ...rows])}`;
}
