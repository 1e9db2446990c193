// --use-service-account-credentials: each controller acts as a service account of its own in the system
// namespace (`deployment-controller`, ...), holding the roles the default policy grants it. The controller
// manager creates the accounts with its own identity and asks TokenRequest for their tokens, renewed before
// they expire. All accounts share one connection that carries no client certificate.

import type { Naming } from '../api/naming.js';
import { createClient, isAlreadyExists, type Client, type ClientOptions } from '../client/rest-client.js';
import type { Refs } from './types.js';

const tokenSeconds = 3600;

export async function serviceAccountClients(root: Client, names: Naming, refs: Refs, namespace: string, opts: ClientOptions,
  log: { warn(m: string): void }, signal: AbortSignal): Promise<(serviceAccount: string) => Client> {
  const { certPem: _cert, keyPem: _key, token: _token, exec: _exec, ...server } = root.config;
  const shared = createClient(server, opts);
  signal.addEventListener('abort', () => shared.close(), { once: true });
  const accounts = root.resource(refs.serviceAccounts, namespace);

  const tokenSource = (name: string) => {
    let cached: { token: string; renewAt: number } | undefined;
    let pending: Promise<string> | undefined;
    const fetchToken = async () => {
      await accounts.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } })
        .catch((e) => { if (!isAlreadyExists(e)) throw e; });
      const review = await root.request<{ status: { token: string; expirationTimestamp: string } }>({
        method: 'POST', path: `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
        body: { apiVersion: `${names.group('authentication')}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: tokenSeconds } },
      });
      const expires = Date.parse(review.status.expirationTimestamp) || Date.now() + tokenSeconds * 1000;
      // renewed when 80% of its life has passed, as the reference's token files are
      cached = { token: review.status.token, renewAt: Date.now() + (expires - Date.now()) * 0.8 };
      return cached.token;
    };
    return async (refresh: boolean) => {
      if (refresh || !cached || cached.renewAt <= Date.now()) {
        pending ??= fetchToken().finally(() => { pending = undefined; });
        try {
          await pending;
        } catch (e) {
          log.warn(`service account ${namespace}/${name}: no token: ${(e as Error).message}`);
          if (!cached) throw e;
        }
      }
      return `Bearer ${cached!.token}`;
    };
  };
  return (serviceAccount) => shared.withCredentials(tokenSource(serviceAccount), opts);
}
