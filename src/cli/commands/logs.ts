// logs: a container's log (`-f` follows it, `-p` the previous instance), for a pod or a pod of TYPE/NAME.

import { Command } from 'commander';
import { parseDuration } from '../../config/flags.js';
import { resourcePath } from '../../client/rest-client.js';
import { CliError, type Cli } from '../cli.js';
import { containerOf, podFor } from '../pods.js';

interface LogsFlags { container?: string; follow?: boolean; previous?: boolean; tail: string; since?: string; sinceTime?: string; timestamps?: boolean; limitBytes?: string; allContainers?: boolean; prefix?: boolean }

export function logsCommand(cli: Cli): Command {
  return new Command('logs')
    .description("Print the log of a pod's container")
    .argument('<pod>', 'POD or TYPE/NAME')
    .argument('[container]')
    .option('-c, --container <name>', 'the container (default: the only or the default one)')
    .option('-f, --follow', 'keep printing new lines')
    .option('-p, --previous', "the log of the container's previous instance")
    .option('--tail <lines>', 'the last lines only (-1: all)', '-1')
    .option('--since <duration>', 'lines newer than this, e.g. 5s, 2m, 3h')
    .option('--since-time <rfc3339>', 'lines after this time')
    .option('--timestamps', 'start each line with its time')
    .option('--limit-bytes <n>', 'at most this many bytes')
    .option('--all-containers', 'every container of the pod')
    .option('--prefix', 'start each line with its pod and container')
    .action(async (arg: string, containerArg: string | undefined, f: LogsFlags) => {
      if (f.since && f.sinceTime) throw new CliError('at most one of --since or --since-time may be given');
      const { namespace, pod } = await podFor(cli, arg);
      const containers = f.allContainers ? (pod.spec?.containers ?? []).map((c: any) => c.name) : [await containerOf(cli, pod, f.container ?? containerArg)];
      const client = await cli.client();
      const tail = Number(f.tail);
      for (const container of containers) {
        const res = await client.stream({
          method: 'GET', path: resourcePath({ group: '', version: 'v1', resource: 'pods' }, namespace, pod.metadata.name, 'log'), accept: 'application/json, */*',
          query: {
            container, follow: f.follow || undefined, previous: f.previous || undefined, tailLines: tail >= 0 ? tail : undefined,
            sinceSeconds: f.since ? Math.ceil(parseDuration(f.since) / 1000) : undefined, sinceTime: f.sinceTime, timestamps: f.timestamps || undefined,
            limitBytes: f.limitBytes,
          },
        });
        const prefix = f.prefix ? `[pod/${pod.metadata.name}/${container}] ` : '';
        let partial = '';
        for await (const chunk of res) {
          if (!prefix) { cli.out(chunk.toString('utf8')); continue; }
          const lines = (partial + chunk.toString('utf8')).split('\n');
          partial = lines.pop()!;
          for (const l of lines) cli.out(`${prefix}${l}\n`);
        }
        if (partial) cli.out(`${prefix}${partial}`);
      }
    });
}
