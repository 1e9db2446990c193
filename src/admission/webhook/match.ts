// Which webhooks a request goes to: rules (operation, group, version, resource/subresource, scope), then the
// namespace and object selectors. With matchPolicy Equivalent a rule naming another served version of the
// same resource matches too, and the object is sent at that version.
import type { Stored } from '../../api/meta.js';
import type {
  MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ValidatingWebhook, ValidatingWebhookConfiguration,
} from '../../api/types/admissionregistration-v1.js';
import { notFound } from '../../api/status.js';
import type { AdmissionAttributes, Listers, WebhookSource } from '../../api/admission.js';
import { selectorIsEmpty, selectorMatches } from '../../api/selectors.js';

export type Webhook = MutatingWebhook | ValidatingWebhook;
export type WebhookConfiguration = Stored<MutatingWebhookConfiguration | ValidatingWebhookConfiguration>;

export interface Invocation {
  hook: Webhook;
  configuration: string;
  /** the version the webhook is sent the object at: the request's, or an equivalent one */
  version: string;
}

const isNamespaceObject = (a: AdmissionAttributes) => a.group === '' && a.resource === 'namespaces';

function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes, version: string): boolean {
  const has = (list: unknown, v: string) => Array.isArray(list) && (list.includes('*') || list.includes(v));
  if (!has(rule.operations, a.operation) || !has(rule.apiGroups, a.group) || !has(rule.apiVersions, version)) return false;
  const scope = rule.scope ?? '*';
  // a Namespace is cluster-scoped even though the request names it as its namespace
  const namespaced = !isNamespaceObject(a) && a.namespace !== '';
  if (scope === 'Namespaced' && !namespaced) return false;
  if (scope === 'Cluster' && namespaced) return false;
  return (Array.isArray(rule.resources) ? rule.resources : []).some(entry => {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    return (res === '*' || res === a.resource) && (sub === '*' || sub === a.subresource);
  });
}

/** the version a hook's rules accept the request at, or undefined when they do not */
export function matchingVersion(hook: Webhook, a: AdmissionAttributes, source: WebhookSource): string | undefined {
  const rules: RuleWithOperations[] = Array.isArray(hook.rules) ? hook.rules : [];
  if (rules.some(r => ruleMatches(r, a, a.version))) return a.version;
  if ((hook.matchPolicy ?? 'Equivalent') !== 'Equivalent') return undefined;
  for (const v of source.servedVersions(a.group, a.resource))
    if (v !== a.version && rules.some(r => ruleMatches(r, a, v))) return v;
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
export async function selectorsMatch(hook: Webhook, a: AdmissionAttributes, listers: Listers): Promise<boolean> {
  const objSel = hook.objectSelector;
  if (!selectorIsEmpty(objSel)
    && !(a.object && selectorMatches(objSel, a.object.metadata?.labels)) && !(a.oldObject && selectorMatches(objSel, a.oldObject.metadata?.labels)))
    return false;
  const nsSel = hook.namespaceSelector;
  if (selectorIsEmpty(nsSel) || (!a.namespace && !isNamespaceObject(a))) return true;
  return selectorMatches(nsSel, await namespaceLabels(a, listers));
}

/** every webhook of the configurations with its position in the whole list, which names it in audit annotations */
export function allHooks(configurations: WebhookConfiguration[]): { hook: Webhook; configuration: string; index: number }[] {
  const out: { hook: Webhook; configuration: string; index: number }[] = [];
  for (const c of configurations)
    for (const hook of Array.isArray(c.webhooks) ? c.webhooks : []) out.push({ hook, configuration: c.metadata.name ?? '', index: out.length });
  return out;
}

/** the invocation for a hook, or undefined when the request does not concern it */
export async function invocationFor(entry: { hook: Webhook; configuration: string }, a: AdmissionAttributes,
  source: WebhookSource, listers: Listers): Promise<Invocation | undefined> {
  const version = matchingVersion(entry.hook, a, source);
  if (!version || !(await selectorsMatch(entry.hook, a, listers))) return undefined;
  return { hook: entry.hook, configuration: entry.configuration, version };
}
