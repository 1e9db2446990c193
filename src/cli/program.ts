// clusterctl's command tree: global flags as the reference CLI has them, one module per command under
// commands/, errors printed as the reference prints them, and the exit code returned rather than exiting,
// so the program runs in-process as well as from its bin file.
//
// Each command parses the flags that follow it, and every command also knows the global flags, so they may come
// anywhere (`clusterctl -n x get pods`, `clusterctl get pods -n x`) while a command's own flag of the same name
// (`create rolebinding --user`) is its own.

import { Command, CommanderError, Option } from 'commander';
import { packageVersion } from '../util/package.js';
import { CliError, createCli, errorText, ExitCode, type Cli, type GlobalFlags, type Streams } from './cli.js';
import { commands } from './commands/index.js';
import { collect } from './flags.js';

export const programName = 'clusterctl';

function globalOptions(): Option[] {
  return [
    new Option('--kubeconfig <file>', 'the client-configuration file to use (default: the files of KUBECONFIG, else ~/.kube/config)'),
    new Option('--context <name>', 'the context of the configuration to use'),
    new Option('--cluster <name>', 'the cluster of the configuration to use'),
    new Option('--user <name>', 'the user of the configuration to use'),
    new Option('-n, --namespace <namespace>', 'the namespace of this request'),
    new Option('-s, --server <url>', 'the API server address'),
    new Option('--token <token>', 'a bearer token for the API server'),
    new Option('--certificate-authority <file>', 'a CA certificate file to verify the server'),
    new Option('--client-certificate <file>', 'a client certificate file for TLS'),
    new Option('--client-key <file>', 'a client key file for TLS'),
    new Option('--insecure-skip-tls-verify', 'do not verify the server certificate (insecure)'),
    new Option('--tls-server-name <name>', 'the server name to verify the server certificate against'),
    new Option('--as <user>', 'act as this user (impersonation)'),
    new Option('--as-group <group>', 'act as a member of this group; repeatable').argParser(collect),
    new Option('--as-uid <uid>', 'act with this UID'),
    new Option('--request-timeout <duration>', 'give up a request after this long (0: never)'),
    new Option('-v, --v <level>', 'log level (accepted for compatibility)').hideHelp(),
  ];
}

const globalNames = new Set(globalOptions().map((o) => o.attributeName()));

export function buildProgram(streams: Streams): { program: Command; cli: Cli } {
  const program = new Command(programName);
  let active: Command = program;
  /** the global flags, from the root down to the command that runs: the nearest one that was given wins */
  const flags = (): GlobalFlags => {
    const chain: Command[] = [];
    for (let c: Command | null = active; c; c = c.parent) chain.unshift(c);
    const merged: Record<string, unknown> = {};
    for (const c of chain) {
      for (const [k, v] of Object.entries(c.opts())) {
        if (!globalNames.has(k) || v === undefined) continue;
        // a command's own flag of the same name (create rolebinding --user) is not the global one
        if (c !== program && !c.options.some((o) => o.attributeName() === k && (o as Option & { global?: boolean }).global)) continue;
        merged[k] = v;
      }
    }
    return merged as GlobalFlags;
  };
  const cli = createCli(streams, flags, `${programName}/v${packageVersion()} (${process.platform}/${process.arch})`);
  program
    .description('clusterctl controls a cluster: it reads and changes the objects of its API server')
    .usage('[command] [flags]')
    .configureOutput({
      writeOut: (s) => cli.out(s),
      writeErr: (s) => cli.err(s),
      outputError: (s, write) => write(s.startsWith('error') ? s : `error: ${s.replace(/^error: /, '')}`),
    })
    .addHelpText('after', '\nGlobal flags may also follow any command.');
  for (const o of globalOptions()) program.addOption(o);
  for (const register of commands) program.addCommand(register(cli));
  program.hook('preAction', (_root, actionCommand) => { active = actionCommand; });
  setUp(program, program);
  return { program, cli };
}

/** every command: flags after it are its own, it knows the global flags (unless it has its own of the name), same errors */
function setUp(c: Command, root: Command) {
  c.enablePositionalOptions().exitOverride().showHelpAfterError('(run with --help for usage)');
  if (c !== root) {
    c.configureOutput(root.configureOutput());
    const own = new Set(c.options.map((o) => o.attributeName()));
    for (const o of globalOptions()) {
      if (own.has(o.attributeName()) || c.options.some((x) => (o.short && x.short === o.short) || x.long === o.long)) continue;
      c.addOption(Object.assign(o.hideHelp(), { global: true }));
    }
  }
  for (const sub of c.commands) setUp(sub, root);
}

/** Runs one command line; resolves with the process exit code. */
export async function runCli(argv: string[], streams: Streams = process): Promise<number> {
  const { program, cli } = buildProgram(streams);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help' ? 0 : e.exitCode || 1;
    if (e instanceof ExitCode) return e.code;
    cli.err(`${errorText(e)}\n`);
    return e instanceof CliError ? e.exitCode : 1;
  } finally {
    cli.close();
  }
}
