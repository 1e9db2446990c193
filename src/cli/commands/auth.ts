// auth can-i (SelfSubjectAccessReview; `--list`: SelfSubjectRulesReview) and auth whoami (SelfSubjectReview,
// the newest version the server serves first), in the server's authorization and authentication groups.

import { Command } from 'commander';
import { ApiError } from '../../client/rest-client.js';
import { CliError, ExitCode, type Cli } from '../cli.js';
import { outputHelp, parseOutput, printObjects, showManagedFieldsOption } from '../printers/output.js';
import { alignColumns } from '../printers/table.js';

function canICommand(cli: Cli): Command {
  return new Command('can-i')
    .description('Check whether an action is allowed')
    .argument('[verb]', 'get, list, create, ... or * ')
    .argument('[resource]', 'TYPE, TYPE/NAME or a non-resource URL such as /logs')
    .argument('[name]')
    .option('-A, --all-namespaces', 'in every namespace')
    .option('--subresource <name>', 'a subresource, e.g. log')
    .option('--list', 'list every action allowed in the namespace')
    .option('-q, --quiet', 'print nothing; the exit code answers')
    .option('--no-headers', 'leave out the header line of --list')
    .action(async (verb: string | undefined, resource: string | undefined, name: string | undefined, f: { allNamespaces?: boolean; subresource?: string; list?: boolean; quiet?: boolean; headers: boolean }) => {
      const client = await cli.client();
      const names = await cli.names();
      const group = names.group('authorization');
      const { namespace } = await cli.namespace();
      if (f.list) {
        const review = await client.request({ method: 'POST', path: `/apis/${group}/v1/selfsubjectrulesreviews`, body: { apiVersion: `${group}/v1`, kind: 'SelfSubjectRulesReview', spec: { namespace } } });
        const rows = [
          ...(review.status?.resourceRules ?? []).map((r: any) => [
            (r.resources ?? []).flatMap((res: string) => (r.apiGroups ?? ['']).map((g: string) => (g ? `${res}.${g}` : res))).join(' ') || '', '[]', `[${(r.resourceNames ?? []).join(' ')}]`, `[${(r.verbs ?? []).join(' ')}]`]),
          ...(review.status?.nonResourceRules ?? []).map((r: any) => ['', `[${(r.nonResourceURLs ?? []).join(' ')}]`, '[]', `[${(r.verbs ?? []).join(' ')}]`]),
        ];
        cli.out(alignColumns(f.headers ? [['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'], ...rows] : rows));
        return;
      }
      if (!verb || !resource) throw new CliError('you must give a verb and a resource (or a non-resource URL), e.g. clusterctl auth can-i create pods');
      let attributes: Record<string, unknown>;
      if (resource.startsWith('/')) attributes = { nonResourceAttributes: { verb, path: resource } };
      else {
        const [type, slashName] = resource.split('/');
        const d = await cli.discovery();
        const info = type === '*' ? undefined : d.find(type!);
        if (!info && type !== '*') cli.err(`Warning: the server doesn't have a resource type '${type}'\n`);
        attributes = {
          resourceAttributes: {
            namespace: f.allNamespaces ? '' : namespace, verb, group: info?.group ?? '', resource: info?.resource ?? type,
            ...(f.subresource ? { subresource: f.subresource } : {}), ...((slashName ?? name) ? { name: slashName ?? name } : {}),
          },
        };
      }
      const review = await client.request({ method: 'POST', path: `/apis/${group}/v1/selfsubjectaccessreviews`, body: { apiVersion: `${group}/v1`, kind: 'SelfSubjectAccessReview', spec: attributes } });
      const allowed = review.status?.allowed === true;
      if (!f.quiet) cli.out(`${allowed ? 'yes' : 'no'}${!allowed && review.status?.reason ? ` - ${review.status.reason}` : ''}\n`);
      if (!allowed) throw new ExitCode(1);
    });
}

function whoamiCommand(cli: Cli): Command {
  return new Command('whoami')
    .description('Show who the server takes you for')
    .option('-o, --output <format>', outputHelp)
    .option(...showManagedFieldsOption)
    .action(async (f: { output?: string; showManagedFields?: boolean }) => {
      const output = parseOutput(f.output, ['default', 'json', 'yaml', 'name', 'jsonpath', 'custom-columns'], f.showManagedFields);
      const client = await cli.client();
      const group = (await cli.names()).group('authentication');
      let review: any;
      for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
        try {
          review = await client.request({ method: 'POST', path: `/apis/${group}/${version}/selfsubjectreviews`, body: { apiVersion: `${group}/${version}`, kind: 'SelfSubjectReview' } });
          break;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        }
      }
      if (!review) throw new CliError('the server does not serve SelfSubjectReview (the APISelfSubjectReview feature may be off)');
      if (output.kind !== 'default') return printObjects(cli, [review], output, { single: true });
      const u = review.status?.userInfo ?? {};
      const rows = [['Username', u.username ?? ''], ...(u.uid ? [['UID', u.uid]] : []), ...(u.groups ? [['Groups', `[${u.groups.join(' ')}]`]] : []),
        ...Object.entries(u.extra ?? {}).map(([k, v]) => [`Extra: ${k}`, `[${(v as string[]).join(' ')}]`])];
      cli.out(alignColumns([['ATTRIBUTE', 'VALUE'], ...rows]));
    });
}

export function authCommand(cli: Cli): Command {
  return new Command('auth').description('Inspect authorization and authentication').addCommand(canICommand(cli)).addCommand(whoamiCommand(cli));
}
