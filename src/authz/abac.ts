// ABAC (--authorization-mode=ABAC with --authorization-policy-file): a file of policies, one JSON object a line, each
// allowing a subject (user, group, or every authenticated one with `*`) requests on resources (by namespace, API group
// and resource, `*` for any) or non-resource paths (exact, `*`, or a prefix ending in `*`), all verbs or reads only.
// The reference's two spellings: v1beta1 (`apiVersion: abac.authorization.<domain>/v1beta1`, `kind: Policy`, the rule
// under `spec`) and the older unversioned one (the rule at the top, blanks meaning everything).
// A request no policy allows gets no opinion, so the next authorizer decides.
import type { Authorizer, AuthzAttributes, RulesAnswer, UserInfo } from '../api/auth.js';
import type { Naming } from '../api/naming.js';

export interface AbacRule {
  user?: string; group?: string; readonly?: boolean;
  apiGroup?: string; resource?: string; namespace?: string; nonResourcePath?: string;
}

const allAuthenticated = 'system:authenticated';
const readVerbs = ['get', 'list', 'watch'];

/** one line's rule in its v1beta1 form; an unversioned line's blanks become the everything they meant */
function ruleOf(line: unknown, versioned: string): AbacRule {
  if (!line || typeof line !== 'object' || Array.isArray(line)) throw new Error('a policy must be a JSON object');
  const o = line as Record<string, unknown>;
  const strings = (r: Record<string, unknown>): AbacRule => {
    const out: AbacRule = {};
    for (const k of ['user', 'group', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'] as const) {
      if (r[k] === undefined) continue;
      if (typeof r[k] !== 'string') throw new Error(`${k} must be a string`);
      out[k] = r[k] as string;
    }
    if (r.readonly !== undefined && typeof r.readonly !== 'boolean') throw new Error('readonly must be true or false');
    out.readonly = r.readonly === true;
    return out;
  };
  let rule: AbacRule;
  if (o.apiVersion !== undefined || o.kind !== undefined) {
    if (o.apiVersion !== versioned || o.kind !== 'Policy') throw new Error(`apiVersion ${JSON.stringify(o.apiVersion)} and kind ${JSON.stringify(o.kind)}: expected ${versioned} Policy`);
    if (!o.spec || typeof o.spec !== 'object') throw new Error('spec is required');
    rule = strings(o.spec as Record<string, unknown>);
  } else {
    rule = strings(o);
    if (!rule.user && !rule.group) rule.group = allAuthenticated;
    if (!rule.namespace && !rule.resource) rule.nonResourcePath = '*';
    rule.namespace ||= '*';
    rule.resource ||= '*';
    rule.apiGroup = '*';
  }
  // `*` for a subject is every authenticated user
  if (rule.user === '*' || rule.group === '*') { rule.group = allAuthenticated; delete rule.user; }
  return rule;
}

/** the rules of a policy file's text; a line that is not a policy is refused with its number */
export function parseAbacPolicies(text: string, names: Naming, file = 'the policy file'): AbacRule[] {
  const versioned = `abac.authorization.${names.labelDomain}/v1beta1`;
  const rules: AbacRule[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    try {
      rules.push(ruleOf(JSON.parse(line), versioned));
    } catch (e) {
      throw new Error(`${file}, line ${i + 1}: ${(e as Error).message}`);
    }
  }
  return rules;
}

function subjectMatches(r: AbacRule, user: UserInfo): boolean {
  let matched = false;
  if (r.user) {
    if (r.user !== user.username) return false;
    matched = true;
  }
  if (r.group) {
    if (!user.groups.includes(r.group)) return false;
    matched = true;
  }
  return matched;
}

const anyOr = (wanted: string | undefined, actual: string) => wanted === '*' || wanted === actual;

function pathMatches(wanted: string | undefined, path: string): boolean {
  if (!wanted) return false;
  return wanted === '*' || wanted === path || (wanted.endsWith('*') && path.startsWith(wanted.replace(/\*+$/, '')));
}

function allows(r: AbacRule, a: AuthzAttributes): boolean {
  if (!subjectMatches(r, a.user)) return false;
  if (r.readonly && !readVerbs.includes(a.verb)) return false;
  return a.isResourceRequest
    ? anyOr(r.namespace, a.namespace) && anyOr(r.resource, a.resource) && anyOr(r.apiGroup, a.apiGroup)
    : pathMatches(r.nonResourcePath, a.path);
}

export function abacAuthorizer(rules: readonly AbacRule[]): Authorizer {
  return {
    authorize: (a) => (rules.some(r => allows(r, a)) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: 'No policy matched.' }),
    rulesFor(user, namespace): RulesAnswer {
      const answer: RulesAnswer = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const r of rules) {
        if (!subjectMatches(r, user) || !anyOr(r.namespace, namespace)) continue;
        const verbs = r.readonly ? [...readVerbs] : ['*'];
        if (r.resource) answer.resourceRules.push({ verbs, apiGroups: [r.apiGroup ?? ''], resources: [r.resource] });
        if (r.nonResourcePath) answer.nonResourceRules.push({ verbs, nonResourceURLs: [r.nonResourcePath] });
      }
      return answer;
    },
  };
}
