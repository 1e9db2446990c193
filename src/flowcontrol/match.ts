// Which FlowSchema a request belongs to: the schemas in order of matching precedence (ties by name), the first whose
// rules match the request's subject and its resource or non-resource target wins; its distinguisher names the flow.
import type { FlowRequest, FlowSchema } from '../api/flowcontrol.js';
import type { NonResourcePolicyRule, ResourcePolicyRule, Subject } from '../api/types/flowcontrol-v1beta3.js';

export interface CompiledSchema {
  name: string;
  uid: string;
  priorityLevel: string;
  precedence: number;
  distinguisher: 'ByUser' | 'ByNamespace' | '';
  matches(req: FlowRequest): boolean;
}

/** matchingPrecedence when a schema leaves it out, as the reference defaults it */
export const defaultPrecedence = 1000;

const anyOr = (values: readonly string[] | undefined, all: string) => {
  const set = new Set(values ?? []);
  return set.has(all) ? () => true : (v: string) => set.has(v);
};

function subjectMatcher(subjects: readonly Subject[]): (req: FlowRequest) => boolean {
  const checks = subjects.map((s): ((req: FlowRequest) => boolean) => {
    if (s.kind === 'User' && s.user) { const n = s.user.name; return r => n === '*' || r.user.username === n; }
    if (s.kind === 'Group' && s.group) { const n = s.group.name; return r => n === '*' || r.user.groups.includes(n); }
    if (s.kind === 'ServiceAccount' && s.serviceAccount) {
      const { namespace, name } = s.serviceAccount;
      const exact = `system:serviceaccount:${namespace}:${name}`, prefix = `system:serviceaccount:${namespace}:`;
      return r => (name === '*' ? r.user.username.startsWith(prefix) && !r.user.username.slice(prefix.length).includes(':') : r.user.username === exact);
    }
    return () => false;
  });
  return req => checks.some(c => c(req));
}

/**
 * the namespace of a resource request as the reference's request info has it: '' for cluster-scoped objects and
 * across namespaces, but a namespace's own path (/api/v1/namespaces/team, its status and finalize) is in that namespace
 */
export const requestNamespace = (req: FlowRequest) => req.info.namespace;

function resourceRuleMatcher(rule: ResourcePolicyRule): (req: FlowRequest) => boolean {
  const verb = anyOr(rule.verbs, '*'), group = anyOr(rule.apiGroups, '*'), resource = anyOr(rule.resources, '*');
  const namespace = anyOr(rule.namespaces, '*');
  const clusterScope = rule.clusterScope === true;
  return req => {
    const i = req.info;
    if (!verb(i.verb) || !group(i.apiGroup)) return false;
    if (!resource(i.subresource ? `${i.resource}/${i.subresource}` : i.resource)) return false;
    const ns = requestNamespace(req);
    return ns === '' ? clusterScope : namespace(ns);
  };
}

function nonResourceRuleMatcher(rule: NonResourcePolicyRule): (req: FlowRequest) => boolean {
  const verb = anyOr(rule.verbs, '*');
  const exact = new Set<string>(), prefixes: string[] = [];
  let all = false;
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*') all = true;
    else if (u.endsWith('*')) prefixes.push(u.slice(0, -1));
    else exact.add(u);
  }
  return req => verb(req.info.verb) && (all || exact.has(req.info.path) || prefixes.some(p => req.info.path.startsWith(p)));
}

export function compileSchema(fs: FlowSchema): CompiledSchema {
  const rules = (fs.spec?.rules ?? []).map(r => {
    const subject = subjectMatcher(r.subjects ?? []);
    const resource = (r.resourceRules ?? []).map(resourceRuleMatcher);
    const nonResource = (r.nonResourceRules ?? []).map(nonResourceRuleMatcher);
    return (req: FlowRequest) => subject(req) && (req.info.isResourceRequest ? resource : nonResource).some(m => m(req));
  });
  return {
    name: fs.metadata?.name ?? '', uid: fs.metadata?.uid ?? '',
    priorityLevel: fs.spec?.priorityLevelConfiguration?.name ?? '',
    precedence: fs.spec?.matchingPrecedence ?? defaultPrecedence,
    distinguisher: fs.spec?.distinguisherMethod?.type ?? '',
    matches: req => rules.some(r => r(req)),
  };
}

/** the schemas in the order they are tried */
export function orderSchemas(schemas: readonly CompiledSchema[]): CompiledSchema[] {
  return [...schemas].sort((a, b) => a.precedence - b.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** the distinguisher value that, with the schema's name, names the request's flow */
export function flowDistinguisher(schema: CompiledSchema, req: FlowRequest): string {
  if (schema.distinguisher === 'ByUser') return req.user.username;
  if (schema.distinguisher === 'ByNamespace') return requestNamespace(req);
  return '';
}
