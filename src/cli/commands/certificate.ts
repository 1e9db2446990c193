// certificate approve and deny: a condition on a CertificateSigningRequest through its approval subresource.

import { Command } from 'commander';
import { CliError, errorText, type Cli } from '../cli.js';
import { fileOptions } from '../flags.js';
import { failIf, fetchTargets, resourceFor } from '../objects.js';
import { nameOf } from '../printers/objects.js';
import { resolveTargets } from '../resources.js';

function decide(cli: Cli, verb: 'approve' | 'deny'): Command {
  const type = verb === 'approve' ? 'Approved' : 'Denied';
  const past = verb === 'approve' ? 'approved' : 'denied';
  return fileOptions(new Command(verb), 'CertificateSigningRequests')
    .description(`${verb === 'approve' ? 'Approve' : 'Deny'} certificate signing requests`)
    .argument('[names...]')
    .option('--force', 'update the request even if it already has a decision')
    .action(async (names: string[], f: { filename?: string[]; recursive?: boolean; force?: boolean }) => {
      const d = await cli.discovery();
      const csr = d.resources.find((r) => r.preferred && r.kind === 'CertificateSigningRequest');
      if (!csr) throw new CliError('the server does not serve CertificateSigningRequests');
      if (!names.length && !f.filename?.length) throw new CliError('name the requests, or give -f');
      const { targets } = await resolveTargets(cli, names.length ? [`${csr.resource}.${csr.group}`, ...names] : [], { filenames: f.filename, recursive: f.recursive });
      const { found, failed: readFailed } = await fetchTargets(cli, targets);
      let failed = readFailed;
      for (const { info, object } of found) {
        try {
          const conditions: any[] = (object.status as any)?.conditions ?? [];
          if (conditions.some((c) => c.type === type) && !f.force) {
            cli.out(`${nameOf(object)} ${past}\n`);
            continue;
          }
          const other = verb === 'approve' ? 'Denied' : 'Approved';
          if (conditions.some((c) => c.type === other)) throw new CliError(`certificate signing request "${object.metadata.name}" is already ${other.toLowerCase()}`);
          const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
          const reason = verb === 'approve' ? 'ClusterctlApprove' : 'ClusterctlDeny';
          const updated = {
            ...object,
            status: { ...(object.status as object), conditions: [...conditions.filter((c) => c.type !== type), { type, status: 'True', reason, message: `This CSR was ${past} by clusterctl certificate ${verb}.`, lastUpdateTime: now, lastTransitionTime: now }] },
          };
          await (await resourceFor(cli, { info })).subresource('approval').update(updated);
          cli.out(`${nameOf(object)} ${past}\n`);
        } catch (e) {
          cli.err(`${errorText(e)}\n`);
          failed = true;
        }
      }
      failIf(failed);
    });
}

export function certificateCommand(cli: Cli): Command {
  return new Command('certificate').description('Approve or deny certificate signing requests').addCommand(decide(cli, 'approve')).addCommand(decide(cli, 'deny'));
}
