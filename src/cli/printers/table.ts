// The server's Table (`as=Table`) printed as the reference prints it: upper-case headers, the columns of
// priority 0 (all of them with `-o wide`), NAMESPACE first across namespaces, `kind/name` when several types
// show, label columns (`-L`, `--show-labels`), and cells aligned with three spaces of padding.

export interface ColumnDefinition { name: string; type?: string; format?: string; priority?: number; description?: string }
export interface TableRow { cells: unknown[]; object?: { metadata?: { name?: string; namespace?: string; labels?: Record<string, string> } } }
export interface Table {
  kind?: string;
  apiVersion?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  columnDefinitions?: ColumnDefinition[];
  rows?: TableRow[];
}

export interface TableOptions {
  wide?: boolean;
  noHeaders?: boolean;
  showLabels?: boolean;
  /** `-L key`: a column per label key */
  labelColumns?: string[];
  /** rows across namespaces: a NAMESPACE column first */
  withNamespace?: boolean;
  /** names printed as `<prefix>/<name>` when several types show */
  namePrefix?: string;
}

/** nil prints as <none>, as in the reference's printer */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '<none>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

const labelHeader = (key: string) => (key.split('/').pop() ?? key).toUpperCase();

/** Cells of the table, header first unless left out. */
export function tableCells(table: Table, o: TableOptions = {}): string[][] {
  const columns = (table.columnDefinitions ?? []).map((c, i) => ({ ...c, i })).filter((c) => o.wide || !c.priority);
  const nameColumn = (table.columnDefinitions ?? []).findIndex((c) => c.name.toLowerCase() === 'name' || c.format === 'name');
  const header = [
    ...(o.withNamespace ? ['NAMESPACE'] : []),
    ...columns.map((c) => c.name.toUpperCase()),
    ...(o.labelColumns ?? []).map(labelHeader),
    ...(o.showLabels ? ['LABELS'] : []),
  ];
  const rows = (table.rows ?? []).map((row) => {
    const labels = row.object?.metadata?.labels ?? {};
    return [
      ...(o.withNamespace ? [row.object?.metadata?.namespace ?? ''] : []),
      ...columns.map((c) => {
        const text = cellText(row.cells[c.i]);
        return c.i === nameColumn && o.namePrefix ? `${o.namePrefix}/${text}` : text;
      }),
      ...(o.labelColumns ?? []).map((k) => labels[k] ?? ''),
      ...(o.showLabels ? [Object.keys(labels).sort().map((k) => `${k}=${labels[k]}`).join(',') || '<none>'] : []),
    ];
  });
  return o.noHeaders ? rows : [header, ...rows];
}

/**
 * Aligned text: every column but the last padded to its widest cell plus three spaces, and at least six
 * wide, as the reference's tab writer (minimum width 6, padding 3) lays it out.
 */
export function alignColumns(rows: string[][]): string {
  if (!rows.length) return '';
  const count = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: count }, (_, i) => Math.max(6, ...rows.map((r) => [...(r[i] ?? '')].length + 3)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length))).join('').trimEnd() + '\n').join('');
}
