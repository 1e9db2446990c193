// The EncryptionConfiguration file (--encryption-provider-config): which resources are encrypted at rest and by which
// providers. Checked as the reference checks it (1.27, wildcards included) and turned into the rule the transforming
// store asks for a resource's providers.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Naming } from '../../api/naming.js';
import { loadYaml } from '../../util/yaml.js';
import { provider, type NamedKey, type Provider, type ProviderKind } from './providers.js';

/** group and resource; '*' in either is a wildcard */
interface GroupResource { group: string; resource: string }

/** the providers of each configured resource, looked up as the reference does: exact, then `*.<group>`, then `*.*` */
export interface EncryptionRules {
  providersFor(group: string, resource: string): readonly Provider[] | undefined;
  /** a digest of the file's text, to tell a changed file from one only touched */
  digest: string;
}

const keySizes: Record<Exclude<ProviderKind, 'identity'>, number[]> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };
const providerNames = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const;

/** `deployments.apps` → {deployments, apps}; `secrets` → core; `*.` → every core resource */
const parseGroupResource = (s: string): GroupResource => {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
};
const grString = (gr: GroupResource) => (gr.group === '' && gr.resource === '*' ? '*.' : gr.group ? `${gr.resource}.${gr.group}` : gr.resource);
const grKey = (gr: GroupResource) => `${gr.resource}.${gr.group}`;
const show = (v: unknown) => JSON.stringify(v);

/** the field errors of a configuration, in the reference's words */
function validate(doc: Record<string, unknown>, names: Naming): string[] {
  const errs: string[] = [];
  const resources = doc.resources;
  if (!Array.isArray(resources) || !resources.length) return ['resources: Required value: at least one resources is required'];
  resources.forEach((entry: unknown, i) => {
    const at = `resources[${i}]`;
    const e = (entry ?? {}) as { resources?: unknown; providers?: unknown };
    const list = Array.isArray(e.resources) ? e.resources : [];
    if (!list.length) errs.push(`${at}.resources: Required value: at least one ${at}.resources is required`);
    if (list.some(r => typeof r !== 'string')) errs.push(`${at}.resources: Invalid value: ${show(list)}: resource names must be strings`);
    const strings = list.filter((r): r is string => typeof r === 'string');
    errs.push(...overlapErrors(strings, `${at}.resources`), ...nameErrors(strings, `${at}.resources`, names));
    const providers = Array.isArray(e.providers) ? e.providers : [];
    if (!providers.length) errs.push(`${at}.providers: Required value: at least one ${at}.providers is required`);
    providers.forEach((p: unknown, j) => errs.push(...providerErrors((p ?? {}) as Record<string, unknown>, `${at}.providers[${j}]`)));
  });
  return errs;
}

function overlapErrors(list: string[], at: string): string[] {
  const grs = list.map(parseGroupResource);
  let duplicate = false, overlap = false;
  grs.forEach((a, i) => grs.forEach((b, j) => {
    if (i === j) return;
    if (a.group === b.group && a.resource === b.resource) { duplicate = true; return; }
    if ((a.group === '*' && a.resource === '*') || (a.group === b.group && (a.resource === '*' || b.resource === '*'))) overlap = true;
  }));
  return [
    ...(duplicate ? [`${at}: Invalid value: ${show(list)}: the same resource cannot be specified multiple times`] : []),
    ...(overlap ? [`${at}: Invalid value: ${show(list)}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`] : []),
  ];
}

function nameErrors(list: string[], at: string, names: Naming): string[] {
  const errs: string[] = [];
  const eventsGroup = names.group('events');
  list.forEach((r, j) => {
    const bad = (why: string) => errs.push(`${at}[${j}]: Invalid value: ${show(r)}: ${why}`);
    const gr = parseGroupResource(r);
    if (r.toLowerCase() !== r) bad('resource name should not contain capital letters');
    else if (r === '*') bad("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(r)) bad('resources which do not have REST API/s cannot be encrypted');
    else if (gr.group === eventsGroup) bad(`'*.${eventsGroup}' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`);
    else if (gr.group === 'extensions') bad("'extensions' group has been removed and cannot be used for encryption");
    else if (gr.group === '*' && gr.resource !== '*') bad('encrypting the same resource across groups is not supported');
  });
  return errs;
}

function providerErrors(p: Record<string, unknown>, at: string): string[] {
  const present = providerNames.filter(n => p[n] !== undefined && p[n] !== null);
  if (!present.length) return [`${at}: Invalid value: ${show(p)}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity`];
  if (present.length > 1) return [`${at}: Invalid value: ${show(p)}: more than one provider specified in a single element, should split into different list elements`];
  const kind = present[0];
  if (kind === 'identity' || kind === 'kms') return [];
  const keys = (p[kind] as { keys?: unknown }).keys;
  const keysAt = `${at}.${kind}.keys`;
  if (!Array.isArray(keys) || !keys.length) return [`${keysAt}: Required value: at least one keys is required`];
  return keys.flatMap((k: unknown, i) => {
    const { name, secret } = (k ?? {}) as { name?: unknown; secret?: unknown };
    const kat = `${keysAt}[${i}]`;
    const errs: string[] = [];
    if (typeof name !== 'string' || !name) errs.push(`${kat}.name: Required value: name is a mandatory field for a key`);
    if (typeof secret !== 'string' || !secret) return [...errs, `${kat}.secret: Required value: secret is a mandatory field for a key`];
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(secret)) return [...errs, `${kat}.secret: Invalid value: "REDACTED": secrets must be base64 encoded`];
    const length = Buffer.from(secret, 'base64').length;
    const sizes = keySizes[kind];
    if (!sizes.includes(length)) errs.push(`${kat}.secret: Invalid value: "REDACTED": secret is not of the expected length, got ${length}, expected one of [${sizes.join(' ')}]`);
    return errs;
  });
}

const providerOf = (p: Record<string, unknown>, names: Naming): Provider => {
  const kind = providerNames.find(n => p[n] !== undefined && p[n] !== null)!;
  if (kind === 'kms') {
    const kms = p.kms as { name?: string; apiVersion?: string };
    throw new Error(`KMS provider ${show(kms.name ?? '')} (apiVersion ${kms.apiVersion || 'v1'}): KMS plugins are not supported by this server; use aescbc, aesgcm or secretbox`);
  }
  if (kind === 'identity') return provider('identity', [], names.encryptionPrefix);
  const keys = ((p[kind] as { keys: Array<{ name: string; secret: string }> }).keys)
    .map((k): NamedKey => ({ name: k.name, secret: Buffer.from(k.secret, 'base64') }));
  return provider(kind, keys, names.encryptionPrefix);
};

/** the rules of a configuration's text; throws an error naming what is wrong */
export async function parseEncryptionConfig(text: string, names: Naming): Promise<EncryptionRules> {
  if (!text.trim()) throw new Error('the encryption provider configuration file is empty');
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { doc = (await loadYaml()).parse(text); }
  const group = names.group('apiserver.config');
  const { apiVersion, kind } = (doc ?? {}) as { apiVersion?: unknown; kind?: unknown };
  // the reference also reads the kind EncryptionConfig of apiVersion v1, which its early documentation showed
  const known = (kind === 'EncryptionConfiguration' && apiVersion === `${group}/v1`) || (kind === 'EncryptionConfig' && apiVersion === 'v1');
  if (typeof doc !== 'object' || !doc || !known)
    throw new Error(`expected kind EncryptionConfiguration of apiVersion ${group}/v1, got ${show(kind ?? null)} of ${show(apiVersion ?? null)}`);
  const errs = validate(doc as Record<string, unknown>, names);
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);

  // each resource gets the providers of every entry naming it, in order; a resource after a wildcard covering it
  // would never be reached, which the reference refuses
  const byResource = new Map<string, Provider[]>();
  for (const entry of (doc as { resources: Array<{ resources: string[]; providers: Array<Record<string, unknown>> }> }).resources) {
    const providers = entry.providers.map(p => providerOf(p, names));
    for (const r of entry.resources) {
      const gr = parseGroupResource(r);
      for (const mask of [{ group: gr.group, resource: '*' }, { group: '*', resource: '*' }]) {
        if (byResource.has(grKey(mask)))
          throw new Error(`resource ${show(grString(gr))} is masked by earlier rule ${show(grString(mask))}`);
      }
      byResource.set(grKey(gr), [...(byResource.get(grKey(gr)) ?? []), ...providers]);
    }
  }
  return {
    digest: createHash('sha256').update(text).digest('hex'),
    providersFor: (g, r) => byResource.get(`${r}.${g}`) ?? byResource.get(`*.${g}`) ?? byResource.get('*.*'),
  };
}

/** the rules of the configuration file at path; errors name the file */
export async function loadEncryptionConfig(path: string, names: Naming): Promise<EncryptionRules> {
  let text: string;
  try { text = await readFile(path, 'utf8'); } catch (e) {
    throw new Error(`error opening encryption provider configuration file ${show(path)}: ${(e as Error).message}`);
  }
  try { return await parseEncryptionConfig(text, names); } catch (e) {
    throw new Error(`error while parsing encryption provider configuration file ${show(path)}: ${(e as Error).message}`);
  }
}

/**
 * The rules of the file at path, read again whenever its text changes (read every intervalMs, as the reference polls
 * its file): a changed file that parses replaces the rules for the next operation; one that does not is reported and
 * the rules in use stay. Returns the current rules and the stop of the watching.
 */
export function reloadingEncryptionConfig(path: string, names: Naming, initial: EncryptionRules,
  opts: { intervalMs: number; onReload(error?: Error): void }): { current(): EncryptionRules; stop(): void } {
  let rules = initial;
  let reading: Promise<void> | undefined;
  const check = () => {
    reading ??= (async () => {
      try {
        const text = await readFile(path, 'utf8');
        if (createHash('sha256').update(text).digest('hex') === rules.digest) return;
        rules = await parseEncryptionConfig(text, names);
        opts.onReload();
      } catch (e) {
        opts.onReload(new Error(`error while reloading encryption provider configuration file ${show(path)}: ${(e as Error).message}`));
      }
    })().finally(() => { reading = undefined; });
  };
  // the text is compared, not the file's times: a change within the clock's granularity is not missed
  const timer = setInterval(check, opts.intervalMs);
  timer.unref();
  return { current: () => rules, stop: () => clearInterval(timer) };
}
