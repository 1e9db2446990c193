// port-forward: local ports to a pod's ports (`LOCAL:REMOTE`, `:REMOTE` for a free local port, `PORT` for
// both); each local connection gets its own stream through the API server.

import { createServer, type Server } from 'node:net';
import { Command } from 'commander';
import { CliError, errorText, type Cli } from '../cli.js';
import { collect } from '../flags.js';
import { podFor } from '../pods.js';

export function portForwardCommand(cli: Cli): Command {
  return new Command('port-forward')
    .description('Forward local ports to a pod')
    .argument('<pod>', 'POD or TYPE/NAME')
    .argument('<ports...>', '[LOCAL:]REMOTE, e.g. 8080:80, :80 or 80')
    .option('--address <address>', 'local addresses to listen on; repeatable', collect)
    .action(async (arg: string, ports: string[], f: { address?: string[] }) => {
      const { namespace, pod } = await podFor(cli, arg);
      if (pod.status?.phase !== 'Running') throw new CliError(`unable to forward port because pod is not running. Current status=${pod.status?.phase ?? 'Unknown'}`);
      const client = await cli.client();
      const names = await cli.names();
      const { forwardPort } = await import('../../client/streams.js');
      const pairs = ports.map((p) => {
        const [local, remote] = p.includes(':') ? p.split(':') : [p, p];
        const r = Number(remote);
        const l = local === '' ? 0 : Number(local);
        if (!Number.isInteger(r) || r <= 0 || r > 65535 || !Number.isInteger(l) || l < 0 || l > 65535) throw new CliError(`invalid port "${p}": use [LOCAL:]REMOTE`);
        return { local: l, remote: r };
      });
      const addresses = (f.address ?? ['127.0.0.1']).flatMap((a) => a.split(',')).map((a) => (a === 'localhost' ? '127.0.0.1' : a));
      const servers: Server[] = [];
      let failure: (e: unknown) => void;
      const failed = new Promise<never>((_, reject) => { failure = reject; });
      for (const { local, remote } of pairs) {
        for (const address of addresses) {
          const server = createServer((socket) => {
            cli.out(`Handling connection for ${(server.address() as { port: number }).port}\n`);
            forwardPort(client, names, namespace, pod.metadata.name, remote).then((tunnel) => {
              socket.pipe(tunnel).pipe(socket);
              tunnel.on('error', (e) => { cli.err(`${errorText(e)}\n`); socket.destroy(); });
              socket.on('error', () => tunnel.destroy());
            }, (e) => {
              socket.destroy();
              failure(e);
            });
          });
          await new Promise<void>((resolve, reject) => server.once('error', reject).listen(local, address, () => resolve()));
          servers.push(server);
          cli.out(`Forwarding from ${address}:${(server.address() as { port: number }).port} -> ${remote}\n`);
        }
      }
      const stop = new Promise<void>((resolve) => { process.once('SIGINT', resolve); process.once('SIGTERM', resolve); });
      try {
        await Promise.race([stop, failed]);
      } finally {
        for (const s of servers) s.close();
      }
    });
}
