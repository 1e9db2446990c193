// version: this program's version and the server's (`/version`).

import { Command } from 'commander';
import { packageVersion } from '../../util/package.js';
import type { Cli } from '../cli.js';
import { parseOutput } from '../printers/output.js';
import { toJson, toYaml } from '../printers/objects.js';

export function versionCommand(cli: Cli): Command {
  return new Command('version')
    .description('Print the client and server versions')
    .option('--client', 'the client version only')
    .option('-o, --output <format>', 'json or yaml')
    .action(async (flags: { client?: boolean; output?: string }) => {
      const output = parseOutput(flags.output, ['default', 'json', 'yaml']);
      const v = packageVersion();
      const clientVersion = { major: v.split('.')[0], minor: v.split('.')[1], gitVersion: `v${v}`, platform: `${process.platform}/${process.arch}`, nodeVersion: process.versions.node };
      let serverVersion: any;
      let failure: unknown;
      if (!flags.client) {
        try { serverVersion = await (await cli.client()).request({ method: 'GET', path: '/version' }); } catch (e) { failure = e; }
      }
      if (output.kind === 'json' || output.kind === 'yaml') {
        const doc = { clientVersion, ...(serverVersion ? { serverVersion } : {}) };
        cli.out(output.kind === 'json' ? toJson(doc) : await toYaml(doc));
      } else {
        cli.out(`Client Version: ${clientVersion.gitVersion}\n`);
        if (serverVersion) cli.out(`Server Version: ${serverVersion.gitVersion}\n`);
      }
      if (failure) throw failure;
    });
}
