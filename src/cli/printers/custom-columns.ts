// `-o custom-columns=HEADER:expression,...` and `-o custom-columns-file=FILE` (a line of headers above a line
// of expressions): a column per expression, several results joined by commas, nothing found as <none>.

import { readFileSync } from 'node:fs';
import { CliError } from '../cli.js';
import { parseTemplate, query, renderTemplate } from './jsonpath.js';
import { alignColumns } from './table.js';

export interface CustomColumn { header: string; expr: string }

export function parseCustomColumns(spec: string): CustomColumn[] {
  if (!spec.trim()) throw new CliError('custom-columns needs at least one HEADER:expression pair');
  return spec.split(',').map((part) => {
    const colon = part.indexOf(':');
    if (colon <= 0) throw new CliError(`custom-columns: "${part}" is not HEADER:expression`);
    return { header: part.slice(0, colon), expr: part.slice(colon + 1) };
  });
}

export function parseCustomColumnsFile(path: string): CustomColumn[] {
  const lines = readFileSync(path, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length !== 2) throw new CliError(`${path}: expected a line of headers and a line of expressions`);
  const headers = lines[0]!.split(/\s+/);
  const exprs = lines[1]!.split(/\s+/);
  if (headers.length !== exprs.length) throw new CliError(`${path}: ${headers.length} headers but ${exprs.length} expressions`);
  return headers.map((header, i) => ({ header, expr: exprs[i]! }));
}

function cell(expr: string, obj: unknown): string {
  const bare = expr.replace(/^\{(.*)\}$/s, '$1');
  if (/\{|range/.test(bare)) return renderTemplate(parseTemplate(expr), obj) || '<none>';
  const values = query(bare, obj);
  if (!values.length || values.every((v) => v === undefined || v === null)) return '<none>';
  return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
}

export function customColumnsText(columns: CustomColumn[], objects: unknown[], noHeaders = false): string {
  const rows = objects.map((o) => columns.map((c) => cell(c.expr, o)));
  return alignColumns(noHeaders ? rows : [columns.map((c) => c.header), ...rows]);
}
