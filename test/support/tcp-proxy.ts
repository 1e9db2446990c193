// A TCP proxy on a free loopback port in front of a server, which a test can cut (open connections are destroyed
// and new ones refused at once, as when the network between two hosts fails) and restore.
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** the proxy's own URL, for clients: http://127.0.0.1:<port> */
  endpoint: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  const server = createServer(client => {
    if (down) { client.destroy(); return; }
    const upstream = connect(target.port, target.host);
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
      open.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => { open.delete(a); b.destroy(); });
      a.pipe(b);
    }
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    cut() {
      down = true;
      for (const s of open) s.destroy();
    },
    restore() { down = false; },
    async close() {
      down = true;
      for (const s of open) s.destroy();
      await new Promise(resolve => server.close(resolve));
    },
  };
}
