// The credentials this server presents to admission webhooks, from the webhook plugins' configuration (kind
// WebhookAdmissionConfiguration, or WebhookAdmission): a client configuration file whose `users` are named after the
// webhooks they are for. A webhook behind a Service is `<service>.<namespace>.svc`, with `:<port>` when its port is not
// 443; one called by URL is the URL's `host` or `host:port`. An entry named `*.<suffix>` stands for any leading
// labels, and `*` for every webhook no other entry names. Read once, at start-up.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { configError, typedConfig } from '../config.js';
import { yaml } from '../../util/yaml.js';
import type { Naming } from '../../api/naming.js';

/** what a call presents: a client certificate and key for the TLS handshake, an Authorization header */
export interface WebhookCredentials { cert?: string; key?: string; authorization?: string }

/** the credentials for a webhook named as its `users` entry would be; undefined for none */
export type CredentialsFor = (target: string) => WebhookCredentials | undefined;

interface WebhookAdmissionConfig { kubeConfigFile?: unknown }

/** the fields of a client configuration's user that a webhook call can use */
interface UserEntry {
  'client-certificate'?: string; 'client-certificate-data'?: string; 'client-key'?: string; 'client-key-data'?: string;
  token?: string; tokenFile?: string; username?: string; password?: string; exec?: unknown;
}

/** the credentials of a webhook plugin's configuration; undefined when it has none */
export function webhookCredentials(plugin: string, config: unknown, configPath: string | undefined, names: Naming): CredentialsFor | undefined {
  // both kinds are the same type, at either version, as in the reference
  const kind = (config as { kind?: unknown } | null)?.kind === 'WebhookAdmission' ? 'WebhookAdmission' : 'WebhookAdmissionConfiguration';
  const c = typedConfig<WebhookAdmissionConfig>(plugin, config, names, { kind, group: 'apiserver.config', versions: ['v1', 'v1alpha1'] });
  if (c?.kubeConfigFile === undefined || c.kubeConfigFile === '') return undefined;
  if (typeof c.kubeConfigFile !== 'string') throw configError(plugin, 'kubeConfigFile must be a file name');
  const file = configPath ? resolve(dirname(configPath), c.kubeConfigFile) : c.kubeConfigFile;
  let users: Map<string, WebhookCredentials>;
  try { users = readUsers(file); } catch (e) { throw configError(plugin, `kubeConfigFile ${file}: ${(e as Error).message}`); }
  return target => lookup(users, target);
}

function readUsers(file: string): Map<string, WebhookCredentials> {
  const doc = yaml().parse(readFileSync(file, 'utf8')) as { users?: Array<{ name?: unknown; user?: UserEntry } | null> } | null;
  const users = new Map<string, WebhookCredentials>();
  for (const entry of doc?.users ?? []) {
    if (typeof entry?.name !== 'string') throw new Error('a users entry has no name');
    users.set(entry.name, credentialsOf(entry.user ?? {}, dirname(file), entry.name));
  }
  return users;
}

function credentialsOf(u: UserEntry, base: string, name: string): WebhookCredentials {
  if (u.exec) throw new Error(`user ${name}: exec credential plugins are not supported for webhooks; give a token, a client certificate or a user name and password`);
  const fileOrData = (path: string | undefined, data: string | undefined) =>
    data ? Buffer.from(data, 'base64').toString('utf8') : path ? readFileSync(resolve(base, path), 'utf8') : undefined;
  const cert = fileOrData(u['client-certificate'], u['client-certificate-data']);
  const key = fileOrData(u['client-key'], u['client-key-data']);
  if (!cert !== !key) throw new Error(`user ${name}: a client certificate needs its key, and a key its certificate`);
  const token = u.token || (u.tokenFile ? readFileSync(resolve(base, u.tokenFile), 'utf8').trim() : undefined);
  const authorization = token ? `Bearer ${token}`
    : u.username ? `Basic ${Buffer.from(`${u.username}:${u.password ?? ''}`).toString('base64')}` : undefined;
  return { ...(cert ? { cert, key } : {}), ...(authorization ? { authorization } : {}) };
}

/** the entry for `target`: its own, the closest `*.` entry, the same two without a port of 443, then `*` */
function lookup(users: Map<string, WebhookCredentials>, target: string): WebhookCredentials | undefined {
  const named = (name: string) => {
    if (users.has(name)) return users.get(name);
    const labels = name.split('.');
    for (let i = 1; i < labels.length; i++) {
      const wildcard = users.get(`*.${labels.slice(i).join('.')}`);
      if (wildcard) return wildcard;
    }
    return undefined;
  };
  return named(target) ?? (target.endsWith(':443') ? named(target.slice(0, -4)) : undefined) ?? users.get('*');
}
