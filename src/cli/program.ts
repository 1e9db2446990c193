// clusterctl's command tree: global flags as the reference CLI has them, one module per command under
// commands/, errors printed as the reference prints them, and the exit code returned rather than exiting,
// so the program runs in-process as well as from its bin file.

import { Command, CommanderError, Option } from 'commander';
import { packageVersion } from '../util/package.js';
import { CliError, createCli, errorText, ExitCode, type Cli, type GlobalFlags, type Streams } from './cli.js';
import { commands } from './commands/index.js';
import { collect } from './flags.js';

export const programName = 'clusterctl';


export function buildProgram(streams: Streams): { program: Command; cli: Cli } {
  const program = new Command(programName);
  const cli = createCli(streams, () => program.opts<GlobalFlags>(), `${programName}/v${packageVersion()} (${process.platform}/${process.arch})`);
  program
    .description('clusterctl controls a cluster: it reads and changes the objects of its API server')
    .usage('[command] [flags]')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (s) => cli.out(s),
      writeErr: (s) => cli.err(s),
      outputError: (s, write) => write(s.startsWith('error') ? s : `error: ${s.replace(/^error: /, '')}`),
    })
    .exitOverride()
    .option('--kubeconfig <file>', 'the client-configuration file to use (default: the files of KUBECONFIG, else ~/.kube/config)')
    .option('--context <name>', 'the context of the configuration to use')
    .option('--cluster <name>', 'the cluster of the configuration to use')
    .option('--user <name>', 'the user of the configuration to use')
    .option('-n, --namespace <namespace>', 'the namespace of this request')
    .option('-s, --server <url>', 'the API server address')
    .option('--token <token>', 'a bearer token for the API server')
    .option('--certificate-authority <file>', 'a CA certificate file to verify the server')
    .option('--client-certificate <file>', 'a client certificate file for TLS')
    .option('--client-key <file>', 'a client key file for TLS')
    .option('--insecure-skip-tls-verify', 'do not verify the server certificate (insecure)')
    .option('--tls-server-name <name>', 'the server name to verify the server certificate against')
    .option('--as <user>', 'act as this user (impersonation)')
    .option('--as-group <group>', 'act as a member of this group; repeatable', collect)
    .option('--as-uid <uid>', 'act with this UID')
    .option('--request-timeout <duration>', 'give up a request after this long (0: never)', '0')
    .addOption(new Option('-v, --v <level>', 'log level (accepted for compatibility)').hideHelp());
  for (const register of commands) program.addCommand(register(cli));
  // every command ends with the same error handling and exits with the same codes
  for (const c of program.commands) inherit(c);
  return { program, cli };
}

function inherit(c: Command) {
  c.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput(c.parent!.configureOutput());
  for (const sub of c.commands) inherit(sub);
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
