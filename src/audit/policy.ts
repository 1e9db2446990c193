// The audit policy (--audit-policy-file, kind Policy of audit.<domain>/v1): an ordered list of rules, the first
// that matches a request deciding how much of it is recorded (None, Metadata, Request, RequestResponse) and
// which stages are left out. Rules match on users, groups, verbs, namespaces and resources (groups, resources
// with `*`, `pods/*` and `*/status` forms, resource names) or non-resource URLs (a trailing `*` is a prefix).
import { readFileSync } from 'node:fs';
import type { AuditLevel } from '../api/audit.js';
import { auditLevels } from '../api/audit.js';
import type { Naming } from '../api/naming.js';
import type { UserInfo } from '../api/auth.js';
import { yaml } from '../util/yaml.js';

export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';
export const stages: readonly Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

interface GroupResources { group?: string; resources?: string[]; resourceNames?: string[] }

export interface PolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy { rules: PolicyRule[]; omitStages: Stage[]; omitManagedFields: boolean }

/** what a rule is matched against */
export interface RequestAttributes {
  user?: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface Decision { level: AuditLevel; omitStages: readonly Stage[]; omitManagedFields: boolean }

const none: Decision = { level: 'None', omitStages: [], omitManagedFields: false };

function checkList(at: string, v: unknown, allowed?: readonly string[]): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every(x => typeof x === 'string')) throw new Error(`${at} must be a list of strings`);
  const bad = allowed && v.find(x => !allowed.includes(x));
  if (bad !== undefined) throw new Error(`${at}: unknown value ${JSON.stringify(bad)}: use ${allowed!.join(', ')}`);
  return v;
}

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** a group is '' (core) or a DNS subdomain (not group/version); resource names narrow named resources */
function checkGroupResources(at: string, g: GroupResources) {
  checkList(`${at}.resources`, g.resources);
  checkList(`${at}.resourceNames`, g.resourceNames);
  if (g.group !== undefined && typeof g.group !== 'string') throw new Error(`${at}.group must be a string`);
  if (g.group && (g.group.length > 253 || !dnsSubdomain.test(g.group)))
    throw new Error(`${at}.group: invalid value ${JSON.stringify(g.group)}: must be a lowercase DNS subdomain, the group without its version`);
  if (g.resourceNames?.length && !g.resources?.length)
    throw new Error(`${at}.resourceNames: invalid value ${JSON.stringify(g.resourceNames)}: using resourceNames requires at least one resource`);
}

/** `*`, or a path from `/` with at most a trailing `*` */
function checkUrls(at: string, v: unknown): string[] | undefined {
  const urls = checkList(at, v);
  urls?.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) throw new Error(`${at}[${i}]: invalid value ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
    if (url.slice(0, -1).includes('*')) throw new Error(`${at}[${i}]: invalid value ${JSON.stringify(url)}: non-resource URL wildcards '*' must be the final character of the rule`);
  });
  return urls;
}

/** reads and checks a policy document; problems name the rule and field */
export function parsePolicy(text: string, names: Naming): AuditPolicy {
  let doc: Record<string, unknown>;
  try { doc = JSON.parse(text); } catch { doc = yaml().parse(text) as Record<string, unknown>; }
  const group = names.group('audit');
  if (!doc || typeof doc !== 'object' || doc.kind !== 'Policy' || !['v1', 'v1beta1'].map(v => `${group}/${v}`).includes(String(doc.apiVersion)))
    throw new Error(`expected kind Policy of ${group}/v1, got ${doc?.kind ?? 'nothing'} ${doc?.apiVersion ?? ''}`);
  const rawRules = doc.rules;
  if (!Array.isArray(rawRules) || !rawRules.length) throw new Error('the policy has no rules: every request would go unrecorded');
  const rules = rawRules.map((r: Record<string, unknown>, i): PolicyRule => {
    const at = `rules[${i}]`;
    if (!r || typeof r !== 'object') throw new Error(`${at} must be an object`);
    if (!auditLevels.includes(r.level as AuditLevel)) throw new Error(`${at}.level: unknown level ${JSON.stringify(r.level)}: use ${auditLevels.join(', ')}`);
    const resources = r.resources;
    if (resources !== undefined && !(Array.isArray(resources) && resources.every(g => g && typeof g === 'object')))
      throw new Error(`${at}.resources must be a list of {group, resources, resourceNames}`);
    (resources as GroupResources[] | undefined)?.forEach((g, j) => checkGroupResources(`${at}.resources[${j}]`, g));
    const rule: PolicyRule = {
      level: r.level as AuditLevel,
      users: checkList(`${at}.users`, r.users), userGroups: checkList(`${at}.userGroups`, r.userGroups),
      verbs: checkList(`${at}.verbs`, r.verbs), namespaces: checkList(`${at}.namespaces`, r.namespaces),
      nonResourceURLs: checkUrls(`${at}.nonResourceURLs`, r.nonResourceURLs), resources: resources as GroupResources[] | undefined,
      omitStages: checkList(`${at}.omitStages`, r.omitStages, stages) as Stage[] | undefined,
      omitManagedFields: typeof r.omitManagedFields === 'boolean' ? r.omitManagedFields : undefined,
    };
    if (rule.nonResourceURLs?.length && (rule.resources?.length || rule.namespaces?.length))
      throw new Error(`${at}: a rule cannot apply to both resources (resources, namespaces) and nonResourceURLs`);
    return rule;
  });
  return {
    rules,
    omitStages: (checkList('omitStages', doc.omitStages, stages) ?? []) as Stage[],
    omitManagedFields: doc.omitManagedFields === true,
  };
}

export const loadPolicy = (path: string, names: Naming): AuditPolicy => {
  try {
    return parsePolicy(readFileSync(path, 'utf8'), names);
  } catch (e) {
    throw new Error(`--audit-policy-file ${path}: ${(e as Error).message}`);
  }
};

const has = (list: string[] | undefined, v: string) => !list?.length || list.includes(v);

function resourceMatches(r: PolicyRule, a: RequestAttributes): boolean {
  if (!a.isResourceRequest) return false;
  if (r.namespaces?.length && !r.namespaces.includes(a.namespace)) return false;
  if (!r.resources?.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return r.resources.some(g => {
    if ((g.group ?? '') !== a.apiGroup) return false;
    if (!g.resources?.length) return true;
    if (g.resourceNames?.length && !g.resourceNames.includes(a.name)) return false;
    return g.resources.some(res => res === combined || res === '*'
      || (a.subresource !== '' && res.startsWith('*/') && res.slice(2) === a.subresource)
      || (res.endsWith('/*') && res.slice(0, -2) === a.resource));
  });
}

const urlMatches = (spec: string, path: string) => spec === '*' || (spec.endsWith('*') ? path.startsWith(spec.slice(0, -1)) : spec === path);

function ruleMatches(r: PolicyRule, a: RequestAttributes): boolean {
  const user = a.user;
  if (r.users?.length && !(user && r.users.includes(user.username))) return false;
  if (r.userGroups?.length && !(user && user.groups.some(g => r.userGroups!.includes(g)))) return false;
  if (!has(r.verbs, a.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return resourceMatches(r, a);
  if (r.nonResourceURLs?.length) return !a.isResourceRequest && r.nonResourceURLs.some(spec => urlMatches(spec, a.path));
  return true;
}

/** the first matching rule's decision; no match records nothing */
export function decide(policy: AuditPolicy, a: RequestAttributes): Decision {
  const rule = policy.rules.find(r => ruleMatches(r, a));
  if (!rule || rule.level === 'None') return none;
  return {
    level: rule.level,
    omitStages: [...new Set([...policy.omitStages, ...(rule.omitStages ?? [])])],
    omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
  };
}
