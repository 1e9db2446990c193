// The client-configuration file, in the reference's kubeconfig format (YAML with named
// clusters, users and contexts), so that the reference CLI can use what the server writes.

import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { loadYaml } from '../util/yaml.js';

export interface AdminClientConfig {
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  clusterName?: string;
  userName?: string;
  contextName?: string;
  namespace?: string;
}

/** An exec credential plugin, as named in a user entry. */
export interface ExecConfig {
  apiVersion?: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

/** What a client needs to reach the server, resolved from one context of a file. */
export interface ClientConfig {
  contextName: string;
  clusterName: string;
  userName: string;
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  username?: string;
  password?: string;
  insecureSkipTLSVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  namespace?: string;
  exec?: ExecConfig;
}

export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}

const b64 = (pem: string) => Buffer.from(pem).toString('base64');

export async function writeAdminClientConfig(path: string, c: AdminClientConfig): Promise<void> {
  const cluster = c.clusterName ?? 'local';
  const user = c.userName ?? 'admin';
  const context = c.contextName ?? `${user}@${cluster}`;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: c.server, 'certificate-authority-data': b64(c.caPem) } }],
    users: [{ name: user, user: { 'client-certificate-data': b64(c.certPem), 'client-key-data': b64(c.keyPem) } }],
    contexts: [{ name: context, context: { cluster, user, ...(c.namespace ? { namespace: c.namespace } : {}) } }],
    'current-context': context,
  };
  // JSON is YAML too, and writing it needs no YAML library at start-up.
  // The file holds a private key: written privately, then moved into place.
  await writeFile(`${path}.tmp`, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
  await chmod(`${path}.tmp`, 0o600);
  await rename(`${path}.tmp`, path);
}

type Entry = Record<string, unknown>;

/** Reads one context (the current one unless named); file references are relative to the file. */
export async function loadClientConfig(path: string, opts: { context?: string } = {}): Promise<ClientConfig> {
  const text = await readFile(path, 'utf8');
  let doc: Entry;
  try {
    doc = ((await loadYaml()).parse(text) ?? {}) as Entry;
  } catch (e) {
    throw new ClientConfigError(`${path}: not valid YAML: ${(e as Error).message}`);
  }
  const base = dirname(resolve(path));
  const contextName = opts.context ?? str(doc['current-context']);
  if (!contextName) throw new ClientConfigError(`${path}: no context given and no current-context set`);
  const context = named(doc, 'contexts', 'context', contextName, path);
  const clusterName = str(context.cluster) ?? '';
  const userName = str(context.user) ?? '';
  const cluster = named(doc, 'clusters', 'cluster', clusterName, path);
  const user = userName ? named(doc, 'users', 'user', userName, path) : {};
  const server = str(cluster.server);
  if (!server) throw new ClientConfigError(`${path}: cluster "${clusterName}" has no server`);

  const relative = (file: string) => (isAbsolute(file) ? file : resolve(base, file));
  const fileOrData = async (fileKey: string, dataKey: string, entry: Entry): Promise<string | undefined> => {
    const data = str(entry[dataKey]);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const file = str(entry[fileKey]);
    return file ? readFile(relative(file), 'utf8') : undefined;
  };
  const tokenFile = str(user.tokenFile);
  const token = str(user.token) ?? (tokenFile ? (await readFile(relative(tokenFile), 'utf8')).trim() : undefined);

  return prune({
    contextName,
    clusterName,
    userName,
    server,
    caPem: await fileOrData('certificate-authority', 'certificate-authority-data', cluster),
    certPem: await fileOrData('client-certificate', 'client-certificate-data', user),
    keyPem: await fileOrData('client-key', 'client-key-data', user),
    token,
    username: str(user.username),
    password: str(user.password),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true ? true : undefined,
    tlsServerName: str(cluster['tls-server-name']),
    proxyUrl: str(cluster['proxy-url']),
    namespace: str(context.namespace),
    exec: user.exec ? resolveExec(user.exec as ExecConfig, base) : undefined,
  });
}

function named(doc: Entry, listKey: string, itemKey: string, name: string, path: string): Entry {
  const list = Array.isArray(doc[listKey]) ? (doc[listKey] as Entry[]) : [];
  const found = list.find((e) => e?.name === name);
  if (!found) throw new ClientConfigError(`${path}: ${itemKey} "${name}" not found in ${listKey}`);
  return (found[itemKey] ?? {}) as Entry;
}

/** A command given as a relative path (containing a slash) is relative to the file, as in the reference. */
function resolveExec(exec: ExecConfig, base: string): ExecConfig {
  const command = exec.command.includes('/') && !isAbsolute(exec.command) ? resolve(base, exec.command) : exec.command;
  return { ...exec, command };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function prune<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
