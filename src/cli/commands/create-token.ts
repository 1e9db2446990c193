// create token: a TokenRequest for a service account; prints the token.

import { Command } from 'commander';
import type { Cli } from '../cli.js';
import { CliError } from '../cli.js';
import { parseDuration } from '../../config/flags.js';
import { collect } from '../flags.js';
import { outputHelp, parseOutput, printObjects, showManagedFieldsOption } from '../printers/output.js';

interface Flags { audience?: string[]; duration?: string; boundObjectKind?: string; boundObjectName?: string; boundObjectUid?: string; output?: string; showManagedFields?: boolean }

export function createTokenCommand(cli: Cli): Command {
  return new Command('token')
    .description('Request a token for a service account')
    .argument('<serviceaccount>')
    .option('--audience <audience>', 'an audience of the token; repeatable', collect)
    .option('--duration <duration>', 'how long the token is valid, e.g. 10m or 1h (the server may shorten it)')
    .option('--bound-object-kind <kind>', 'Pod or Secret: the token ends with this object')
    .option('--bound-object-name <name>', 'the name of the bound object')
    .option('--bound-object-uid <uid>', 'the UID of the bound object (default: read from the server)')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (sa: string, f: Flags) => {
      const output = parseOutput(f.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], f.showManagedFields);
      const client = await cli.client();
      const names = await cli.names();
      const { namespace } = await cli.namespace();
      const spec: Record<string, unknown> = { audiences: f.audience ?? [] };
      if (f.duration) {
        const ms = parseDuration(f.duration);
        if (ms <= 0 || ms % 1000) throw new CliError('--duration must be a positive number of whole seconds');
        spec.expirationSeconds = ms / 1000;
      }
      if (f.boundObjectKind) {
        if (!['Pod', 'Secret'].includes(f.boundObjectKind)) throw new CliError('--bound-object-kind must be Pod or Secret');
        if (!f.boundObjectName) throw new CliError('--bound-object-name is required with --bound-object-kind');
        const uid = f.boundObjectUid ?? (await client.resource({ group: '', version: 'v1', resource: f.boundObjectKind === 'Pod' ? 'pods' : 'secrets' }, namespace).get(f.boundObjectName)).metadata.uid;
        spec.boundObjectRef = { kind: f.boundObjectKind, apiVersion: 'v1', name: f.boundObjectName, uid };
      } else if (f.boundObjectName || f.boundObjectUid) {
        throw new CliError('--bound-object-name and --bound-object-uid need --bound-object-kind');
      }
      const group = names.group('authentication');
      const review = await client.request({
        method: 'POST', path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(sa)}/token`,
        body: { apiVersion: `${group}/v1`, kind: 'TokenRequest', metadata: { creationTimestamp: null }, spec },
      });
      if (output.kind === 'default') cli.out(`${review.status.token}\n`);
      else await printObjects(cli, [review], output, { single: true });
    });
}
