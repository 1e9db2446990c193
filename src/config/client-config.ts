// What a client needs to reach the server, resolved from one context of the merged client-configuration
// files (kubeconfig.ts) and the command line's overrides; and the admin file the server writes.

import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { apiDomains, naming } from '../api/naming.js';
import {
  ClientConfigError, kubeconfigLoading, loadKubeconfig, relativeTo,
  type ClusterEntry, type ExecEntry, type MergedKubeconfig, type UserEntry,
} from './kubeconfig.js';

export { ClientConfigError } from './kubeconfig.js';

export interface AdminClientConfig {
  server: string;
  caPem: string;
  certPem: string;
  keyPem: string;
  /** the name to verify the server's certificate for (SNI), when not the server's host */
  tlsServerName?: string;
  clusterName?: string;
  userName?: string;
  contextName?: string;
  namespace?: string;
}

export type InteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** An exec credential plugin (spec 5.6), checked and with its defaults applied. */
export interface ExecConfig {
  /** `client.authentication.<domain>/v1` or `/v1beta1`; the plugin must answer in the same */
  apiVersion: string;
  /** a path with a slash is resolved against the file that names it; a bare name is looked up on PATH */
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  installHint?: string;
  provideClusterInfo: boolean;
  interactiveMode: InteractiveMode;
}

/** The cluster as an exec plugin sees it (`spec.cluster` of its input). */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  /** the cluster's extension named `<exec apiVersion's group>/exec` */
  config?: unknown;
}

export interface Impersonation {
  user: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
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
  /** where `token` was read from: the client reads it again there (a token rotated on disk) */
  tokenFile?: string;
  username?: string;
  password?: string;
  insecureSkipTLSVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  namespace?: string;
  exec?: ExecConfig;
  /** what the exec plugin is told of the cluster when it asks for it */
  execCluster?: ExecClusterInfo;
  impersonate?: Impersonation;
}

/** Command-line settings that win over the file's. */
export interface ConfigOverrides {
  context?: string;
  cluster?: string;
  user?: string;
  namespace?: string;
  server?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  token?: string;
  username?: string;
  password?: string;
  insecureSkipTLSVerify?: boolean;
  tlsServerName?: string;
  as?: string;
  asGroups?: string[];
  asUid?: string;
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
    clusters: [{ name: cluster, cluster: { server: c.server, 'certificate-authority-data': b64(c.caPem), ...(c.tlsServerName ? { 'tls-server-name': c.tlsServerName } : {}) } }],
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

/** Reads one context of one file (the current one unless named). */
export async function loadClientConfig(path: string, opts: { context?: string } = {}): Promise<ClientConfig> {
  return resolveClientConfig(await loadKubeconfig(kubeconfigLoading({ explicit: path })), { context: opts.context });
}

/** The context chosen (override, else the current one) with its cluster and user, and the overrides applied. */
export async function resolveClientConfig(merged: MergedKubeconfig, o: ConfigOverrides = {}): Promise<ClientConfig> {
  const where = merged.loading.files.join(', ');
  const contextName = o.context ?? merged.currentContext ?? '';
  const context = merged.contexts.get(contextName);
  if (o.context && !context) throw new ClientConfigError(`context "${o.context}" not found in ${where}`);
  const clusterName = o.cluster ?? context?.entry.cluster ?? '';
  const userName = o.user ?? context?.entry.user ?? '';
  const cluster = merged.clusters.get(clusterName);
  const user = merged.users.get(userName);
  if (!context && !o.server && !o.cluster) {
    throw new ClientConfigError(contextName
      ? `context "${contextName}" not found in ${where}`
      : `no current context is set in ${where || 'any client configuration file'}; name one with --context, or give --server`);
  }
  if (clusterName && !cluster && !o.server) throw new ClientConfigError(`cluster "${clusterName}" not found in ${where}`);
  if (o.user && !user) throw new ClientConfigError(`user "${o.user}" not found in ${where}`);
  const c = cluster?.entry ?? {};
  const u = user?.entry ?? {};
  const server = o.server ?? str(c.server);
  if (!server) throw new ClientConfigError(`cluster "${clusterName}" has no server`);

  const fileOrData = async (origin: string | undefined, file: string | undefined, data: string | undefined, override?: string) => {
    if (override) return readFile(override, 'utf8');
    if (str(data)) return Buffer.from(data!, 'base64').toString('utf8');
    return str(file) && origin ? readFile(relativeTo(origin, file!), 'utf8') : undefined;
  };
  const caPem = await fileOrData(cluster?.file, c['certificate-authority'], c['certificate-authority-data'], o.certificateAuthority);
  const tokenFile = !o.token && !str(u.token) && str(u.tokenFile) && user ? relativeTo(user.file, u.tokenFile!) : undefined;
  const token = o.token ?? str(u.token) ?? (tokenFile ? (await readFile(tokenFile, 'utf8')).trim() : undefined);
  const insecure = o.insecureSkipTLSVerify ?? (c['insecure-skip-tls-verify'] === true ? true : undefined);
  const exec = !o.token && !o.clientCertificate && u.exec ? checkExec(u.exec, userName, user!.file) : undefined;
  if (!o.token && !o.clientCertificate && u['auth-provider']) refuseAuthProvider(u['auth-provider'], userName, user!.file);
  const asUser = o.as ?? str(u.as);

  return prune({
    contextName,
    clusterName,
    userName,
    server,
    caPem,
    certPem: await fileOrData(user?.file, u['client-certificate'], u['client-certificate-data'], o.clientCertificate),
    keyPem: await fileOrData(user?.file, u['client-key'], u['client-key-data'], o.clientKey),
    token,
    tokenFile,
    username: o.username ?? str(u.username),
    password: o.password ?? str(u.password),
    insecureSkipTLSVerify: insecure,
    tlsServerName: o.tlsServerName ?? str(c['tls-server-name']),
    proxyUrl: str(c['proxy-url']),
    namespace: o.namespace ?? str(context?.entry.namespace),
    exec,
    execCluster: exec?.provideClusterInfo ? execClusterInfo(server, c, caPem, exec, insecure) : undefined,
    impersonate: asUser ? prune({ user: asUser, uid: o.asUid ?? str(u['as-uid']), groups: o.asGroups ?? u['as-groups'], extra: u['as-user-extra'] }) : undefined,
  });
}

/** where the reference client sends the users of its removed in-tree providers */
const authProviderHints: Record<string, string> = {
  gcp: 'use the gke-gcloud-auth-plugin exec credential plugin',
  azure: 'use the kubelogin exec credential plugin (github.com/Azure/kubelogin)',
  oidc: 'use an OpenID Connect exec credential plugin, such as kubelogin (github.com/int128/kubelogin)',
};

/** A user whose credentials come from an auth-provider would reach the server as no one: the client says why instead. */
function refuseAuthProvider(p: NonNullable<UserEntry['auth-provider']>, userName: string, file: string): never {
  const name = typeof p?.name === 'string' ? p.name : '';
  throw new ClientConfigError(`user "${userName}" in ${file}: auth-provider "${name}" is not supported by this client; `
    + `${authProviderHints[name] ?? 'use an exec credential plugin'} (user.exec), a token or a client certificate instead`);
}

const execVersions = ['v1', 'v1beta1'];
const execGroups: string[] = apiDomains.map((d) => naming(d).group('client.authentication'));
const interactiveModes: InteractiveMode[] = ['Never', 'IfAvailable', 'Always'];

/** Spec 5.6: the fields an exec entry must have, and its defaults. */
function checkExec(e: ExecEntry, userName: string, file: string): ExecConfig {
  const where = `user "${userName}" in ${file}`;
  const [group, version, ...rest] = (e.apiVersion ?? '').split('/');
  if (!e.apiVersion) throw new ClientConfigError(`${where}: exec needs an apiVersion (client.authentication.<domain>/v1 or v1beta1)`);
  if (rest.length || !execGroups.includes(group ?? '') || !execVersions.includes(version ?? ''))
    throw new ClientConfigError(`${where}: exec apiVersion "${e.apiVersion}" is not supported; use one of ${execGroups.flatMap((g) => execVersions.map((v) => `${g}/${v}`)).join(', ')}`);
  if (!str(e.command)) throw new ClientConfigError(`${where}: exec needs a command`);
  let interactiveMode = e.interactiveMode as InteractiveMode | undefined;
  if (interactiveMode === undefined || (interactiveMode as string) === '') {
    if (version === 'v1') throw new ClientConfigError(`${where}: exec with ${e.apiVersion} needs interactiveMode (Never, IfAvailable or Always)`);
    interactiveMode = 'IfAvailable';
  }
  if (!interactiveModes.includes(interactiveMode))
    throw new ClientConfigError(`${where}: exec interactiveMode "${interactiveMode}" is not one of ${interactiveModes.join(', ')}`);
  for (const v of e.env ?? []) if (!v || typeof v.name !== 'string' || typeof v.value !== 'string')
    throw new ClientConfigError(`${where}: every exec env entry needs a name and a value`);
  const command = e.command!.includes('/') ? relativeTo(file, e.command!) : e.command!;
  return prune({
    apiVersion: e.apiVersion, command, args: (e.args ?? []).map(String), env: e.env ?? [],
    installHint: str(e.installHint), provideClusterInfo: e.provideClusterInfo === true, interactiveMode,
  });
}

function execClusterInfo(server: string, c: ClusterEntry, caPem: string | undefined, exec: ExecConfig, insecure?: boolean): ExecClusterInfo {
  const extensionName = `${exec.apiVersion.split('/')[0]}/exec`;
  return prune({
    server,
    'tls-server-name': str(c['tls-server-name']),
    'insecure-skip-tls-verify': insecure,
    'certificate-authority-data': caPem ? b64(caPem) : undefined,
    'proxy-url': str(c['proxy-url']),
    'disable-compression': c['disable-compression'],
    config: c.extensions?.find((x) => x?.name === extensionName)?.extension,
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function prune<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
