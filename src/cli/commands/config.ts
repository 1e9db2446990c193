// config: the client-configuration files (the merged view of KUBECONFIG's files, or --kubeconfig): view,
// contexts, clusters and users, each change written to the file its entry came from (new entries and the current
// context as the reference writes them).

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import {
  deleteEntry, loadKubeconfig, kubeconfigLoading, mergedDocument, renameContext, setCurrentContext, setEntry,
  type ClusterEntry, type ContextEntry, type ExecEntry, type KubeconfigDoc, type MergedKubeconfig, type UserEntry,
} from '../../config/kubeconfig.js';
import { CliError, type Cli } from '../cli.js';
import { booleanOption, collect } from '../flags.js';
import { parseOutput, printObjects } from '../printers/output.js';
import { alignColumns } from '../printers/table.js';

const load = (cli: Cli) => loadKubeconfig(kubeconfigLoading({ explicit: cli.flags().kubeconfig }));

const secretKeys = new Set(['client-certificate-data', 'client-key-data', 'certificate-authority-data']);

/** what `view` shows without --raw: embedded keys and certificates as DATA+OMITTED, tokens and passwords REDACTED */
function redact(doc: KubeconfigDoc): KubeconfigDoc {
  const hide = (entry: Record<string, unknown>) => Object.fromEntries(Object.entries(entry).map(([k, v]) =>
    [k, secretKeys.has(k) ? 'DATA+OMITTED' : k === 'token' || k === 'password' ? 'REDACTED' : v]));
  return {
    ...doc,
    clusters: doc.clusters?.map((c) => ({ ...c, cluster: hide(c.cluster as Record<string, unknown>) as ClusterEntry })),
    users: doc.users?.map((u) => ({ ...u, user: hide(u.user as Record<string, unknown>) as UserEntry })),
  };
}

/** file references replaced by the files' content, as `--flatten` does */
function flatten(doc: KubeconfigDoc): KubeconfigDoc {
  const embed = (entry: Record<string, unknown>, fileKey: string, dataKey: string) => {
    if (typeof entry[fileKey] === 'string' && entry[fileKey]) {
      entry[dataKey] = readFileSync(entry[fileKey] as string).toString('base64');
      delete entry[fileKey];
    }
  };
  for (const c of doc.clusters ?? []) embed(c.cluster as Record<string, unknown>, 'certificate-authority', 'certificate-authority-data');
  for (const u of doc.users ?? []) {
    embed(u.user as Record<string, unknown>, 'client-certificate', 'client-certificate-data');
    embed(u.user as Record<string, unknown>, 'client-key', 'client-key-data');
  }
  return doc;
}

function viewCommand(cli: Cli): Command {
  return new Command('view')
    .description('Show the merged configuration (or the file of --kubeconfig)')
    .option('--minify', 'only what the current context uses')
    .option('--raw', 'show keys, certificates and tokens')
    .option('--flatten', 'embed the files it refers to')
    .option('-o, --output <format>', 'yaml (default), json or jsonpath=...', 'yaml')
    .action(async (f: { minify?: boolean; raw?: boolean; flatten?: boolean; output: string }) => {
      const merged = await load(cli);
      const context = cli.flags().context ?? merged.currentContext;
      if (f.minify && (!context || !merged.contexts.has(context))) throw new CliError(context ? `context "${context}" does not exist` : 'current-context must exist in order to minify');
      let doc = mergedDocument(merged, f.minify ? { context: context! } : undefined);
      if (f.flatten) doc = flatten(structuredClone(doc));
      if (!f.raw) doc = redact(doc);
      await printObjects(cli, [doc as never], parseOutput(f.output, ['json', 'yaml', 'jsonpath']), { single: true });
    });
}

function getContextsCommand(cli: Cli): Command {
  return new Command('get-contexts')
    .description('List the contexts')
    .argument('[names...]')
    .option('-o, --output <format>', 'name: names only')
    .option('--no-headers', 'leave out the header line')
    .action(async (names: string[], f: { output?: string; headers: boolean }) => {
      const merged = await load(cli);
      const missing = names.filter((n) => !merged.contexts.has(n));
      if (missing.length) throw new CliError(`context ${missing.map((m) => `"${m}"`).join(', ')} not found`);
      const shown = [...merged.contexts].filter(([n]) => !names.length || names.includes(n)).sort(([a], [b]) => a.localeCompare(b));
      if (f.output === 'name') return cli.out(shown.map(([n]) => `${n}\n`).join(''));
      if (f.output) throw new CliError('--output for get-contexts must be name');
      const rows = shown.map(([name, { entry }]) => [name === merged.currentContext ? '*' : '', name, entry.cluster ?? '', entry.user ?? '', entry.namespace ?? '']);
      cli.out(alignColumns(f.headers ? [['CURRENT', 'NAME', 'CLUSTER', 'AUTHINFO', 'NAMESPACE'], ...rows] : rows));
    });
}

const listNames = (cli: Cli, name: string, section: 'clusters' | 'users', header: string) => new Command(name)
  .description(`List the ${section}`)
  .action(async () => {
    const merged = await load(cli);
    cli.out(`${header}\n${[...merged[section].keys()].sort().map((n) => `${n}\n`).join('')}`);
  });

function setContextCommand(cli: Cli): Command {
  return new Command('set-context')
    .description('Add a context, or change one (--current: the current one)')
    .argument('[name]')
    .option('--current', 'change the current context')
    .addHelpText('after', '\nThe global flags --cluster, --user and --namespace give the context\'s fields.')
    .action(async (name: string | undefined, f: { current?: boolean }) => {
      const merged = await load(cli);
      const target = f.current ? merged.currentContext : name;
      if (!target) throw new CliError(f.current ? 'there is no current context' : 'name the context, or give --current');
      // the global flags --cluster, --user and -n give this command's fields
      const g = cli.flags();
      const existing = merged.contexts.get(target);
      const entry: ContextEntry = { ...(existing?.entry ?? {}) };
      if (g.cluster !== undefined) entry.cluster = g.cluster;
      if (g.user !== undefined) entry.user = g.user;
      if (g.namespace !== undefined) entry.namespace = g.namespace;
      await setEntry(merged, 'contexts', target, entry);
      cli.out(`Context "${target}" ${existing ? 'modified' : 'created'}.\n`);
    });
}

function setClusterCommand(cli: Cli): Command {
  return new Command('set-cluster')
    .description('Add or change a cluster')
    .argument('<name>')
    .addOption(booleanOption('--embed-certs [bool]', 'write the files into the configuration', false))
    .option('--proxy-url <url>', 'a proxy to reach the server through')
    .addHelpText('after', '\nThe cluster\'s fields come from the global flags --server, --certificate-authority, --insecure-skip-tls-verify and --tls-server-name.')
    .action(async (name: string, f: { embedCerts: boolean; proxyUrl?: string }) => {
      const g = cli.flags();
      const merged = await load(cli);
      const existing = merged.clusters.get(name);
      const entry: ClusterEntry = { ...(existing?.entry ?? {}) };
      if (g.server) entry.server = g.server;
      if (g.certificateAuthority) {
        if (f.embedCerts) { entry['certificate-authority-data'] = readFileSync(g.certificateAuthority).toString('base64'); delete entry['certificate-authority']; }
        else { entry['certificate-authority'] = resolve(g.certificateAuthority); delete entry['certificate-authority-data']; }
      }
      if (g.insecureSkipTlsVerify) entry['insecure-skip-tls-verify'] = true;
      if (g.tlsServerName) entry['tls-server-name'] = g.tlsServerName;
      if (f.proxyUrl) entry['proxy-url'] = f.proxyUrl;
      await setEntry(merged, 'clusters', name, prune(entry));
      cli.out(`Cluster "${name}" set.\n`);
    });
}

function setCredentialsCommand(cli: Cli): Command {
  return new Command('set-credentials')
    .description('Add or change a user')
    .argument('<name>')
    .option('--username <name>', 'basic authentication user')
    .option('--password <password>', 'basic authentication password')
    .addOption(booleanOption('--embed-certs [bool]', 'write the files into the configuration', false))
    .option('--exec-command <command>', 'an exec credential plugin')
    .option('--exec-api-version <version>', 'the plugin\'s ExecCredential version')
    .option('--exec-arg <arg>', 'an argument of the plugin; repeatable', collect)
    .option('--exec-env <key=value>', 'an environment variable of the plugin (key- removes); repeatable', collect)
    .option('--exec-interactive-mode <mode>', 'Never, IfAvailable or Always')
    .addOption(booleanOption('--exec-provide-cluster-info [bool]', 'give the plugin the cluster\'s details', false))
    .addHelpText('after', '\nThe global flags --client-certificate, --client-key and --token set those fields.')
    .action(async (name: string, _f: unknown, command: Command) => {
      const g = { ...command.opts(), ...cli.flags() } as Record<string, any>;
      const merged = await load(cli);
      const existing = merged.users.get(name);
      const entry: UserEntry = { ...(existing?.entry ?? {}) };
      const file = (flag: string, fileKey: 'client-certificate' | 'client-key', dataKey: 'client-certificate-data' | 'client-key-data') => {
        if (!g[flag]) return;
        if (g.embedCerts) { entry[dataKey] = readFileSync(g[flag]).toString('base64'); delete entry[fileKey]; }
        else { entry[fileKey] = resolve(g[flag]); delete entry[dataKey]; }
      };
      file('clientCertificate', 'client-certificate', 'client-certificate-data');
      file('clientKey', 'client-key', 'client-key-data');
      if (g.token) entry.token = g.token;
      if (g.username) entry.username = g.username;
      if (g.password) entry.password = g.password;
      if (g.execCommand || g.execApiVersion || g.execArg || g.execEnv || g.execInteractiveMode || command.getOptionValueSource('execProvideClusterInfo') === 'cli') {
        const exec: ExecEntry = { ...(entry.exec ?? {}) };
        if (g.execCommand) exec.command = g.execCommand;
        if (g.execApiVersion) exec.apiVersion = g.execApiVersion;
        if (g.execArg) exec.args = g.execArg;
        if (g.execInteractiveMode) exec.interactiveMode = g.execInteractiveMode;
        if (command.getOptionValueSource('execProvideClusterInfo') === 'cli') exec.provideClusterInfo = !!g.execProvideClusterInfo;
        for (const kv of (g.execEnv ?? []) as string[]) {
          const env = (exec.env ?? []).filter((e) => e.name !== kv.replace(/[=-].*$/, '').replace(/-$/, ''));
          if (kv.endsWith('-') && !kv.includes('=')) exec.env = env.filter((e) => e.name !== kv.slice(0, -1));
          else exec.env = [...env, { name: kv.slice(0, kv.indexOf('=')), value: kv.slice(kv.indexOf('=') + 1) }];
        }
        entry.exec = exec;
      }
      await setEntry(merged, 'users', name, prune(entry));
      cli.out(`User "${name}" set.\n`);
    });
}

function deleteCommand(cli: Cli, name: string, section: 'contexts' | 'clusters' | 'users', what: string): Command {
  return new Command(name).description(`Remove a ${what}`).argument('<name>').action(async (entry: string) => {
    const merged = await load(cli);
    if (!(await deleteEntry(merged, section, entry))) throw new CliError(`cannot delete ${what} ${entry}, not in ${merged.loading.files.join(', ')}`);
    if (section === 'contexts' && merged.currentContext === entry) cli.err(`warning: this removed your active context, use "clusterctl config use-context" to select a different one\n`);
    cli.out(`deleted ${what} ${entry} from ${merged[section].get(entry)!.file}\n`);
  });
}

const prune = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function useContext(cli: Cli, merged: MergedKubeconfig, name: string) {
  if (!merged.contexts.has(name)) throw new CliError(`no context exists with the name: "${name}"`);
  return setCurrentContext(merged, name);
}

export function configCommand(cli: Cli): Command {
  return new Command('config')
    .description('Read and change client-configuration files (KUBECONFIG, --kubeconfig)')
    .addCommand(viewCommand(cli))
    .addCommand(new Command('current-context').description('Print the current context').action(async () => {
      const merged = await load(cli);
      if (!merged.currentContext) throw new CliError('current-context is not set');
      cli.out(`${merged.currentContext}\n`);
    }))
    .addCommand(new Command('use-context').alias('use').description('Make a context the current one').argument('<name>').action(async (name: string) => {
      await useContext(cli, await load(cli), name);
      cli.out(`Switched to context "${name}".\n`);
    }))
    .addCommand(getContextsCommand(cli))
    .addCommand(listNames(cli, 'get-clusters', 'clusters', 'NAME'))
    .addCommand(listNames(cli, 'get-users', 'users', 'NAME'))
    .addCommand(setContextCommand(cli))
    .addCommand(setClusterCommand(cli))
    .addCommand(setCredentialsCommand(cli))
    .addCommand(deleteCommand(cli, 'delete-context', 'contexts', 'context'))
    .addCommand(deleteCommand(cli, 'delete-cluster', 'clusters', 'cluster'))
    .addCommand(deleteCommand(cli, 'delete-user', 'users', 'user'))
    .addCommand(new Command('rename-context').description('Rename a context').argument('<old>').argument('<new>').action(async (from: string, to: string) => {
      await renameContext(await load(cli), from, to);
      cli.out(`Context "${from}" renamed to "${to}".\n`);
    }));
}
