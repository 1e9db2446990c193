// Client-configuration files in the reference's kubeconfig format: which files are read (`--kubeconfig`,
// else every file of `KUBECONFIG`, else ~/.kube/config), how they merge (the first file to name an entry or to
// set the current context wins; each entry keeps the file it came from, so relative paths resolve against that
// file and a change is written back there), and the changes `config` commands make.

import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { loadYaml } from '../util/yaml.js';

export interface ClusterEntry {
  server?: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  extensions?: { name: string; extension: unknown }[];
}

export interface ExecEntry {
  apiVersion?: string;
  command?: string;
  args?: string[];
  env?: { name: string; value: string }[] | null;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

export interface UserEntry {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  as?: string;
  'as-uid'?: string;
  'as-groups'?: string[];
  'as-user-extra'?: Record<string, string[]>;
  username?: string;
  password?: string;
  exec?: ExecEntry;
  /** the reference client's in-tree providers (gcp, azure, oidc): not supported here, refused with a hint */
  'auth-provider'?: { name?: string; config?: Record<string, string> };
}

export interface ContextEntry {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** one file as written */
export interface KubeconfigDoc {
  apiVersion?: string;
  kind?: string;
  preferences?: Record<string, unknown>;
  clusters?: { name: string; cluster: ClusterEntry }[] | null;
  users?: { name: string; user: UserEntry }[] | null;
  contexts?: { name: string; context: ContextEntry }[] | null;
  'current-context'?: string;
  extensions?: unknown[];
}

export type Section = 'clusters' | 'users' | 'contexts';
export interface SectionEntry { clusters: ClusterEntry; users: UserEntry; contexts: ContextEntry }
const itemKey = { clusters: 'cluster', users: 'user', contexts: 'context' } as const;

/** where entries come from and where changes go */
export interface KubeconfigLoading {
  /** files in precedence order */
  files: string[];
  /** a single file named on the command line: it must exist, and every change goes to it */
  explicit: boolean;
}

export interface Origin<T> { entry: T; file: string }

/** the files merged */
export interface MergedKubeconfig {
  loading: KubeconfigLoading;
  currentContext?: string;
  /** the file that set the current context */
  currentContextFile?: string;
  preferences: Record<string, unknown>;
  clusters: Map<string, Origin<ClusterEntry>>;
  users: Map<string, Origin<UserEntry>>;
  contexts: Map<string, Origin<ContextEntry>>;
}

export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}

/** `--kubeconfig` (explicit), else the files of the environment variable, else the file in the home folder */
export function kubeconfigLoading(opts: { explicit?: string; env?: string; home?: string } = {}): KubeconfigLoading {
  if (opts.explicit) return { files: [resolve(opts.explicit)], explicit: true };
  const fromEnv = (opts.env ?? process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean).map((f) => resolve(f));
  if (fromEnv.length) return { files: [...new Set(fromEnv)], explicit: false };
  return { files: [join(opts.home ?? homedir(), '.kube', 'config')], explicit: false };
}

/** the file new entries go to: the explicit one, else the first existing file of the list, else its last */
export function defaultFile(loading: KubeconfigLoading): string {
  if (loading.explicit || loading.files.length === 1) return loading.files[0]!;
  return loading.files.find((f) => existsSync(f)) ?? loading.files[loading.files.length - 1]!;
}

const maxFileBytes = 16 << 20;

export async function readKubeconfigFile(file: string): Promise<KubeconfigDoc | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClientConfigError(`${file}: ${(e as Error).message}`);
  }
  if (text.length > maxFileBytes) throw new ClientConfigError(`${file}: larger than ${maxFileBytes} bytes`);
  let doc: unknown;
  try {
    doc = (await loadYaml()).parse(text) ?? {};
  } catch (e) {
    throw new ClientConfigError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new ClientConfigError(`${file}: not a client configuration (expected a mapping)`);
  return doc as KubeconfigDoc;
}

export async function loadKubeconfig(loading: KubeconfigLoading): Promise<MergedKubeconfig> {
  const merged: MergedKubeconfig = { loading, preferences: {}, clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const file of loading.files) {
    const doc = await readKubeconfigFile(file);
    if (!doc) {
      if (loading.explicit) throw new ClientConfigError(`${file}: no such file`);
      continue;
    }
    if (!merged.currentContext && doc['current-context']) {
      merged.currentContext = doc['current-context'];
      merged.currentContextFile = file;
    }
    merged.preferences = { ...(doc.preferences ?? {}), ...merged.preferences };
    for (const section of ['clusters', 'users', 'contexts'] as const) {
      const list = doc[section];
      if (list != null && !Array.isArray(list)) throw new ClientConfigError(`${file}: ${section} must be a list`);
      for (const item of list ?? []) {
        const name = (item as { name?: unknown })?.name;
        if (typeof name !== 'string' || !name) throw new ClientConfigError(`${file}: an entry of ${section} has no name`);
        const map = merged[section] as Map<string, Origin<unknown>>;
        if (!map.has(name)) map.set(name, { entry: (item as Record<string, unknown>)[itemKey[section]] ?? {}, file });
      }
    }
  }
  return merged;
}

/** a path named in a file is relative to that file */
export const relativeTo = (file: string, path: string) => (isAbsolute(path) ? path : resolve(dirname(file), path));

/** The merged configuration as one document; file references made absolute, as `config view` shows it. */
export function mergedDocument(merged: MergedKubeconfig, only?: { context: string }): KubeconfigDoc {
  const entries = <S extends Section>(section: S, keep: (name: string) => boolean, absolute: (e: SectionEntry[S], file: string) => SectionEntry[S]) =>
    [...(merged[section] as Map<string, Origin<SectionEntry[S]>>)].filter(([name]) => keep(name))
      .map(([name, { entry, file }]) => ({ name, [itemKey[section]]: absolute(entry, file) }));
  const context = only ? merged.contexts.get(only.context)?.entry : undefined;
  const keep = (section: Section) => (name: string) => !only || (section === 'contexts' ? name === only.context
    : section === 'clusters' ? name === context?.cluster : name === context?.user);
  const fileKeys = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile'] as const;
  const absolute = <T extends object>(e: T, file: string): T => {
    const out = { ...e } as Record<string, unknown>;
    for (const k of fileKeys) if (typeof out[k] === 'string' && out[k]) out[k] = relativeTo(file, out[k] as string);
    return out as T;
  };
  return {
    apiVersion: 'v1', kind: 'Config', preferences: merged.preferences,
    clusters: entries('clusters', keep('clusters'), absolute) as KubeconfigDoc['clusters'],
    users: entries('users', keep('users'), absolute) as KubeconfigDoc['users'],
    contexts: entries('contexts', keep('contexts'), (e) => e) as KubeconfigDoc['contexts'],
    'current-context': only ? only.context : merged.currentContext ?? '',
  };
}

async function writeKubeconfigFile(file: string, doc: KubeconfigDoc): Promise<void> {
  const text = (await loadYaml()).stringify({ apiVersion: 'v1', kind: 'Config', ...doc });
  await mkdir(dirname(file), { recursive: true });
  // the file may hold private keys and tokens: written privately, then moved into place
  await writeFile(`${file}.tmp`, text, { mode: 0o600 });
  await chmod(`${file}.tmp`, 0o600);
  await rename(`${file}.tmp`, file);
}

async function editFile(file: string, change: (doc: KubeconfigDoc) => void): Promise<void> {
  const doc = (await readKubeconfigFile(file)) ?? { apiVersion: 'v1', kind: 'Config', preferences: {}, clusters: [], users: [], contexts: [] };
  change(doc);
  await writeKubeconfigFile(file, doc);
}

/** Sets the current context in the file that already sets one (or the default file). */
export async function setCurrentContext(merged: MergedKubeconfig, name: string): Promise<string> {
  const file = merged.loading.explicit ? merged.loading.files[0]! : merged.currentContextFile ?? defaultFile(merged.loading);
  await editFile(file, (doc) => { doc['current-context'] = name; });
  return file;
}

/** Adds or replaces a named entry: in the file it came from, or a new one in the default file. */
export async function setEntry<S extends Section>(merged: MergedKubeconfig, section: S, name: string, entry: SectionEntry[S]): Promise<string> {
  const file = (merged[section] as Map<string, Origin<unknown>>).get(name)?.file ?? defaultFile(merged.loading);
  await editFile(file, (doc) => {
    const list = ((doc[section] ?? []) as { name: string }[]).filter((e) => e.name !== name);
    const at = (doc[section] ?? []).findIndex((e) => e.name === name);
    list.splice(at < 0 ? list.length : at, 0, { name, [itemKey[section]]: entry } as { name: string });
    (doc as Record<string, unknown>)[section] = list;
  });
  return file;
}

/** Removes a named entry from the file it came from; false when no file has it. */
export async function deleteEntry(merged: MergedKubeconfig, section: Section, name: string): Promise<boolean> {
  const origin = (merged[section] as Map<string, Origin<unknown>>).get(name);
  if (!origin) return false;
  await editFile(origin.file, (doc) => {
    (doc as Record<string, unknown>)[section] = (doc[section] ?? []).filter((e) => e.name !== name);
    if (section === 'contexts' && doc['current-context'] === name) doc['current-context'] = '';
  });
  return true;
}

/** Renames a context where it is defined, and the current context with it. */
export async function renameContext(merged: MergedKubeconfig, from: string, to: string): Promise<void> {
  const origin = merged.contexts.get(from);
  if (!origin) throw new ClientConfigError(`cannot rename the context "${from}": it is not in ${merged.loading.files.join(', ')}`);
  if (merged.contexts.has(to)) throw new ClientConfigError(`cannot rename the context "${from}": the context "${to}" already exists`);
  await editFile(origin.file, (doc) => {
    for (const c of doc.contexts ?? []) if (c.name === from) c.name = to;
    if (doc['current-context'] === from) doc['current-context'] = to;
  });
  if (merged.currentContext === from && merged.currentContextFile !== origin.file) await setCurrentContext(merged, to);
}

export { writeKubeconfigFile };
