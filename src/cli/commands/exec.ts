// exec and attach: a command in a container (or the container's main process), its output here, standard
// input with -i, a terminal with -t; the exit code is the process's.

import { Command } from 'commander';
import { CliError, ExitCode, type Cli } from '../cli.js';
import { containerOf, podFor } from '../pods.js';

interface ExecFlags { container?: string; stdin?: boolean; tty?: boolean; quiet?: boolean }

async function run(cli: Cli, arg: string, command: string[], f: ExecFlags, subresource: 'exec' | 'attach') {
  if (subresource === 'exec' && !command.length) throw new CliError('you must give a command to run after --, e.g. clusterctl exec POD -- date');
  const { namespace, pod } = await podFor(cli, arg);
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') throw new CliError(`cannot exec into a container in a completed pod; current phase is ${pod.status.phase}`);
  const container = await containerOf(cli, pod, f.container);
  if (f.stdin) cli.markStdinUsed();
  const tty = !!f.tty && cli.streams.stdin.isTTY === true;
  if (f.tty && !tty && !f.quiet) cli.err('Unable to use a TTY - input is not a terminal or the right kind of file\n');
  const stdout = cli.streams.stdout as NodeJS.WriteStream;
  const { execInPod } = await import('../../client/streams.js');
  const { exitCode } = await execInPod(await cli.client(), await cli.names(), {
    namespace, pod: pod.metadata.name, container, command, subresource, tty,
    stdin: f.stdin ? cli.streams.stdin : undefined, stdout: cli.streams.stdout, stderr: cli.streams.stderr,
    size: tty && stdout.columns ? { width: stdout.columns, height: stdout.rows } : undefined,
  });
  if (exitCode !== 0) throw new ExitCode(exitCode);
}

export function execCommand(cli: Cli): Command {
  return new Command('exec')
    .description('Run a command in a container')
    .argument('<pod>', 'POD or TYPE/NAME')
    .argument('[command...]', 'the command and its arguments, after --')
    .option('-c, --container <name>', 'the container (default: the only or the default one)')
    .option('-i, --stdin', 'pass standard input to the command')
    .option('-t, --tty', 'run the command in a terminal')
    .option('-q, --quiet', 'print only what the command prints')
    .action((arg: string, command: string[], f: ExecFlags) => run(cli, arg, command, f, 'exec'));
}

export function attachCommand(cli: Cli): Command {
  return new Command('attach')
    .description("Attach to a container's running process")
    .argument('<pod>', 'POD or TYPE/NAME')
    .option('-c, --container <name>', 'the container')
    .option('-i, --stdin', 'pass standard input to the process')
    .option('-t, --tty', 'the process runs in a terminal')
    .option('-q, --quiet', 'print only what the process prints')
    .action((arg: string, f: ExecFlags) => run(cli, arg, [], f, 'attach'));
}
