// Matching a request against RBAC policy rules, and whether one set of rules covers another
import type { AuthzAttributes, PolicyRule } from '../../api/auth.js';
// (the escalation check: nobody grants what they do not hold).

const has = (list: readonly string[] | undefined, v: string) => !!list && (list.includes('*') || list.includes(v));

/** `*` matches every resource and subresource; `*\/sub` any resource's subresource sub; otherwise exact `res` or `res/sub` */
export function resourceMatches(rules: readonly string[] | undefined, resource: string, subresource: string): boolean {
  if (!rules) return false;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rules) {
    if (r === '*' || r === combined) return true;
    if (subresource && r === `*/${subresource}`) return true;
  }
  return false;
}

/** exact path, or a rule ending in `*` matching every path with the part before it as prefix */
export function nonResourceURLMatches(rules: readonly string[] | undefined, path: string): boolean {
  if (!rules) return false;
  for (const r of rules) {
    if (r === '*' || r === path) return true;
    if (r.endsWith('*') && path.startsWith(r.slice(0, -1))) return true;
  }
  return false;
}

export function ruleAllows(rule: PolicyRule, a: AuthzAttributes): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceURLMatches(rule.nonResourceURLs, a.path);
  if (!has(rule.apiGroups, a.apiGroup) || !resourceMatches(rule.resources, a.resource, a.subresource)) return false;
  return !rule.resourceNames?.length || (!!a.name && rule.resourceNames.includes(a.name));
}

/** one verb on one group/resource (and name), or one verb on one URL: the unit the coverage check works in */
interface Atom { verb: string; group?: string; resource?: string; name?: string; url?: string }

function atoms(rule: PolicyRule): Atom[] {
  const out: Atom[] = [];
  for (const verb of rule.verbs ?? []) {
    for (const url of rule.nonResourceURLs ?? []) out.push({ verb, url });
    for (const group of rule.apiGroups ?? []) for (const resource of rule.resources ?? []) {
      if (rule.resourceNames?.length) for (const name of rule.resourceNames) out.push({ verb, group, resource, name });
      else out.push({ verb, group, resource });
    }
  }
  return out;
}

function covers(owner: PolicyRule, x: Atom): boolean {
  if (!has(owner.verbs, x.verb)) return false;
  if (x.url !== undefined) return nonResourceURLMatches(owner.nonResourceURLs, x.url);
  if (!has(owner.apiGroups, x.group!)) return false;
  const res = owner.resources ?? [];
  const resourceOk = res.includes('*') || res.includes(x.resource!)
    || (() => { // owner `*/sub` covers requested `r/sub`
      const slash = x.resource!.indexOf('/');
      return slash > 0 && res.includes(`*${x.resource!.slice(slash)}`);
    })();
  if (!resourceOk) return false;
  if (!owner.resourceNames?.length) return true;
  return x.name !== undefined && owner.resourceNames.includes(x.name);
}

/** the requested rules' parts not covered by the owner's rules (empty: no escalation) */
export function uncovered(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const r of requested) for (const x of atoms(r)) {
    if (owner.some(o => covers(o, x))) continue;
    missing.push(x.url !== undefined ? { verbs: [x.verb], nonResourceURLs: [x.url] }
      : { verbs: [x.verb], apiGroups: [x.group!], resources: [x.resource!], ...(x.name !== undefined ? { resourceNames: [x.name] } : {}) });
  }
  return missing;
}

/** rules on one group, one resource and at most one name merged into one rule with all their verbs (URL rules kept as they are) */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const kept: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = !r.nonResourceURLs?.length && (r.resourceNames?.length ?? 0) <= 1 && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) { kept.push(r); continue; }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const into = simple.get(key);
    if (!into) simple.set(key, { ...r, verbs: [...r.verbs] });
    else for (const v of r.verbs) if (!into.verbs.includes(v)) into.verbs.push(v);
  }
  return [...kept, ...simple.values()];
}

/** the reference's compact rendering of a rule in messages */
export function describeRule(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:[${r.apiGroups.map(g => JSON.stringify(g)).join(' ')}]`);
  if (r.resources?.length) parts.push(`Resources:[${r.resources.map(g => JSON.stringify(g)).join(' ')}]`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:[${r.resourceNames.map(g => JSON.stringify(g)).join(' ')}]`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:[${r.nonResourceURLs.map(g => JSON.stringify(g)).join(' ')}]`);
  parts.push(`Verbs:[${r.verbs.map(g => JSON.stringify(g)).join(' ')}]`);
  return `{${parts.join(', ')}}`;
}
