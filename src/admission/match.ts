// Which requests a webhook or a policy concerns: rules (operation, group, version, resource/subresource, scope,
// and for policies resource names), then namespace and object selectors. With matchPolicy Equivalent a rule
// naming another served version of the same resource matches too, and the object is seen at that version.
import type { LabelSelector } from '../api/types/meta-v1.js';
import { notFound } from '../api/status.js';
import type { AdmissionAttributes, Listers, WebhookSource } from '../api/admission.js';
import { selectorIsEmpty, selectorMatches } from '../api/selectors.js';

/** a rule of a webhook (RuleWithOperations) or a policy (NamedRuleWithOperations) */
export interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

export interface Selectors { namespaceSelector?: LabelSelector; objectSelector?: LabelSelector }

const isNamespaceObject = (a: AdmissionAttributes) => a.group === '' && a.resource === 'namespaces';

export function ruleMatches(rule: Rule, a: AdmissionAttributes, version: string): boolean {
  const has = (list: unknown, v: string) => Array.isArray(list) && (list.includes('*') || list.includes(v));
  if (!has(rule.operations, a.operation) || !has(rule.apiGroups, a.group) || !has(rule.apiVersions, version)) return false;
  const scope = rule.scope ?? '*';
  // a Namespace is cluster-scoped even though the request names it as its namespace
  const namespaced = !isNamespaceObject(a) && a.namespace !== '';
  if (scope === 'Namespaced' && !namespaced) return false;
  if (scope === 'Cluster' && namespaced) return false;
  if (Array.isArray(rule.resourceNames) && rule.resourceNames.length && !rule.resourceNames.includes(a.name)) return false;
  return (Array.isArray(rule.resources) ? rule.resources : []).some(entry => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** the version the rules accept the request at (its own, else with Equivalent another served one), or undefined */
export function matchingVersion(rules: Rule[] | undefined, matchPolicy: string | undefined, a: AdmissionAttributes, source: WebhookSource): string | undefined {
  const list = Array.isArray(rules) ? rules : [];
  if (list.some(r => ruleMatches(r, a, a.version))) return a.version;
  if ((matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
  for (const v of source.servedVersions(a.group, a.resource))
    if (v !== a.version && list.some(r => ruleMatches(r, a, v))) return v;
  return undefined;
}

async function namespaceLabels(a: AdmissionAttributes, listers: Listers): Promise<Record<string, string> | undefined> {
  // a Namespace being written is judged by its own new labels; the cache may not have it yet
  if (isNamespaceObject(a) && !a.subresource && (a.operation === 'CREATE' || a.operation === 'UPDATE')) return a.object?.metadata.labels;
  const name = isNamespaceObject(a) ? a.name : a.namespace;
  const ns = await listers.get('', 'namespaces', '', name);
  if (!ns) throw notFound('', 'namespaces', name);
  return ns.metadata.labels;
}

/** namespaceSelector and objectSelector; cluster-scoped objects other than Namespaces pass the namespace selector */
export async function selectorsMatch(s: Selectors, a: AdmissionAttributes, listers: Listers): Promise<boolean> {
  const objSel = s.objectSelector;
  if (!selectorIsEmpty(objSel)
    && !(a.object && selectorMatches(objSel, a.object.metadata?.labels)) && !(a.oldObject && selectorMatches(objSel, a.oldObject.metadata?.labels)))
    return false;
  const nsSel = s.namespaceSelector;
  if (selectorIsEmpty(nsSel) || (!a.namespace && !isNamespaceObject(a))) return true;
  return selectorMatches(nsSel, await namespaceLabels(a, listers));
}
