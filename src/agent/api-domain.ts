// The API domain of the server the agent joins, when neither a flag nor the configuration file names it: the server's
// discovery tells it, as it tells the controller manager and the scheduler. The agent also runs static pods with no
// server at all (even the server's own pod), so a server that does not answer soon leaves the default in place.
import { access } from 'node:fs/promises';
import { naming, type Naming } from '../api/naming.js';
import { discoverNaming } from '../client/discovery.js';
import { createClient } from '../client/rest-client.js';
import { loadClientConfig } from '../config/client-config.js';
import type { AgentOptions } from './options.js';

const attempts = 4;
const firstPauseMs = 500;

/** the naming of the server's domain, read with the agent's credentials (or its bootstrap ones before it has any) */
export async function namingFromServer(o: Pick<AgentOptions, 'clusterconfig' | 'bootstrapClusterconfig' | 'nodeName'>,
  warn: (message: string) => void, pauseMs = firstPauseMs): Promise<Naming | undefined> {
  const path = o.clusterconfig && await access(o.clusterconfig).then(() => o.clusterconfig, () => undefined) || o.bootstrapClusterconfig;
  if (!path) return undefined;
  const client = createClient(await loadClientConfig(path), { userAgent: `cluster-agent/${o.nodeName}` });
  let last: unknown;
  try {
    for (let i = 0; i < attempts; i++) {
      try {
        return await discoverNaming(client);
      } catch (e) {
        last = e;
        if (i < attempts - 1) await new Promise((resolve) => setTimeout(resolve, pauseMs * 2 ** i));
      }
    }
  } finally {
    client.close();
  }
  warn(`could not learn the API domain from the server (${(last as Error).message}); using ${naming().domain} (set --api-domain to choose)`);
  return undefined;
}
