// api-resources: the resources the server serves (preferred versions), with short names, group version,
// scope and kind; filters by group, scope, verbs and category; `-o wide` adds verbs and categories.

import { Command } from 'commander';
import type { Cli } from '../cli.js';
import { CliError } from '../cli.js';
import { alignColumns } from '../printers/table.js';
import { collect } from '../flags.js';

interface Flags { apiGroup?: string; namespaced?: string; verbs?: string[]; output?: string; headers: boolean; sortBy?: string; categories?: string[]; cached?: boolean }

export function apiResourcesCommand(cli: Cli): Command {
  return new Command('api-resources')
    .description('Print the resources the server supports')
    .option('--api-group <group>', 'only this group ("" for core)')
    .option('--namespaced <bool>', 'true: namespaced resources only; false: cluster-scoped only')
    .option('--verbs <verb>', 'only resources that support this verb; repeatable', collect)
    .option('--categories <category>', 'only resources of this category; repeatable', collect)
    .option('-o, --output <format>', 'wide or name')
    .option('--sort-by <field>', 'name or kind')
    .option('--no-headers', 'leave out the header line')
    .option('--cached', 'accepted for compatibility; discovery is read fresh')
    .action(async (f: Flags) => {
      const d = await cli.discovery();
      if (f.output && f.output !== 'wide' && f.output !== 'name') throw new CliError(`--output must be wide or name, not "${f.output}"`);
      // each resource once: from its group's preferred version, else from the first version that serves it
      const seen = new Set<string>();
      let list = d.resources.filter((r) => {
        const key = `${r.group}/${r.resource}`;
        if (!r.verbs.length || seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      if (f.apiGroup !== undefined) list = list.filter((r) => r.group === f.apiGroup);
      if (f.namespaced !== undefined) list = list.filter((r) => r.namespaced === (f.namespaced === 'true'));
      if (f.verbs?.length) list = list.filter((r) => f.verbs!.flatMap((v) => v.split(',')).every((v) => r.verbs.includes(v)));
      if (f.categories?.length) list = list.filter((r) => f.categories!.flatMap((v) => v.split(',')).every((c) => r.categories.includes(c)));
      if (f.sortBy === 'kind') list = [...list].sort((a, b) => a.kind.localeCompare(b.kind));
      else if (f.sortBy === 'name') list = [...list].sort((a, b) => a.resource.localeCompare(b.resource));
      else list = [...list].sort((a, b) => (a.group === b.group ? a.resource.localeCompare(b.resource) : a.group === '' ? -1 : b.group === '' ? 1 : a.group.localeCompare(b.group)));
      if (f.output === 'name') {
        cli.out(list.map((r) => `${r.resource}${r.group ? `.${r.group}` : ''}\n`).join(''));
        return;
      }
      const wide = f.output === 'wide';
      const header = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', ...(wide ? ['VERBS', 'CATEGORIES'] : [])];
      const rows = list.map((r) => [
        r.resource, r.shortNames.join(','), r.group ? `${r.group}/${r.version}` : r.version, String(r.namespaced), r.kind,
        ...(wide ? [`[${r.verbs.join(' ')}]`, r.categories.join(',')] : []),
      ]);
      cli.out(alignColumns(f.headers ? [header, ...rows] : rows));
    });
}
