// api-versions: every group/version the server serves, one a line, sorted.

import { Command } from 'commander';
import type { Cli } from '../cli.js';

export function apiVersionsCommand(cli: Cli): Command {
  return new Command('api-versions')
    .description('Print the API versions the server supports, as "group/version"')
    .action(async () => {
      const d = await cli.discovery();
      const versions = d.groups.flatMap((g) => g.versions.map((v) => (g.name ? `${g.name}/${v}` : v)));
      cli.out(versions.sort().map((v) => `${v}\n`).join(''));
    });
}
