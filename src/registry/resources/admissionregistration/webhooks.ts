// What MutatingWebhookConfigurations and ValidatingWebhookConfigurations (admissionregistration v1) share: the
// reference's defaults and validation. A few rules relax on update when the stored object already broke them, so
// objects written by older servers stay editable.
import { admissionReviewVersions } from '../../../api/admission.js';
import type { Stored } from '../../../api/meta.js';
import type {
  MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ValidatingWebhookConfiguration,
} from '../../../api/types/admissionregistration-v1.js';
import type { TableColumn } from '../../types.js';
import { defineStrategy } from '../../strategy.js';
import { nameProblems } from '../../validation/object-meta.js';
import {
  type Causes, duplicate, invalid, isInt, labelSelector, notSupported, oneOf, required,
} from '../../validation/fields.js';
import { age, column } from '../columns.js';
import { validateReviewVersions, validateWebhookService, validateWebhookUrl } from '../../validation/webhook-client.js';
import { loadAdmissionCel, loadedAdmissionCel } from '../../../cel/index.js';
import { qualifiedNameErrors } from '../../../api/selectors.js';
import type { StrategyContext } from '../../strategy.js';

/** either kind of configuration; a validating webhook has no reinvocation policy */
type Configuration = MutatingWebhookConfiguration | ValidatingWebhookConfiguration;
type Webhook = MutatingWebhook;

/** the AdmissionReview versions this server can send */
const noSideEffects = ['None', 'NoneOnDryRun'];
const anySideEffects = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];

/** fills in what the reference defaults, on every webhook of a configuration */
function defaultWebhooks(obj: Configuration, mutating: boolean) {
  for (const w of list<Webhook>(obj.webhooks)) {
    if (!w || typeof w !== 'object') continue;
    w.failurePolicy ??= 'Fail';
    w.matchPolicy ??= 'Equivalent';
    w.namespaceSelector ??= {};
    w.objectSelector ??= {};
    w.timeoutSeconds ??= 10;
    if (mutating) w.reinvocationPolicy ??= 'Never';
    for (const r of Array.isArray(w.rules) ? w.rules : []) if (r && typeof r === 'object') r.scope ??= '*';
    const svc = w.clientConfig?.service;
    if (svc && typeof svc === 'object') svc.port ??= 443;
  }
}

interface Options { noSideEffects: boolean; knownReviewVersion: boolean; uniqueNames: boolean }

const hasWildcard = (values: string[]) => values.includes('*');
const list = <T = string>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

function fullyQualifiedName(at: string, name: unknown): Causes {
  if (typeof name !== 'string' || name === '') return [required(at)];
  const problems = nameProblems(name, 'dns-subdomain');
  if (problems.length) return [invalid(at, name, problems.join(','))];
  return name.split('.').length < 3 ? [invalid(at, name, 'should be a domain with at least three segments separated by dots')] : [];
}

function validateResources(at: string, resources: string[]): Causes {
  const out: Causes = [];
  if (resources.length === 0) out.push(required(at));
  const wildSub = new Set<string>();   // x/*
  const wildRes = new Set<string>();   // */x
  let doubleWildcard = false, singleWildcard = false, plain = false;
  resources.forEach((rs, i) => {
    if (rs === '') { out.push(required(`${at}[${i}]`)); return; }
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) { plain = rs !== '*'; return; }
    const res = rs.slice(0, slash), sub = rs.slice(slash + 1);
    if (wildSub.has(res)) out.push(invalid(`${at}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (wildRes.has(sub)) out.push(invalid(`${at}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') wildSub.add(res);
    if (res === '*') wildRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) out.push(invalid(at, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plain) out.push(invalid(at, resources, "if '*' is present, must not specify other resources without subresources"));
  return out;
}

/** a rule of a webhook, or (with resource names) of a policy's match constraints */
export function validateRule(at: string, r: RuleWithOperations): Causes {
  const out: Causes = [];
  const ops: string[] = list(r?.operations), groups = list(r?.apiGroups), versions = list(r?.apiVersions);
  if (ops.length === 0) out.push(required(`${at}.operations`));
  if (ops.length > 1 && hasWildcard(ops)) out.push(invalid(`${at}.operations`, ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => { if (!operations.includes(op)) out.push(notSupported(`${at}.operations[${i}]`, op, operations)); });
  if (groups.length === 0) out.push(required(`${at}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups)) out.push(invalid(`${at}.apiGroups`, groups, "if '*' is present, must not specify other API groups"));
  if (versions.length === 0) out.push(required(`${at}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions)) out.push(invalid(`${at}.apiVersions`, versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => { if (v === '') out.push(required(`${at}.apiVersions[${i}]`)); });
  out.push(...validateResources(`${at}.resources`, list(r?.resources)));
  if (r?.scope !== undefined && r?.scope !== null && !scopes.includes(r.scope)) out.push(notSupported(`${at}.scope`, r.scope, scopes));
  return out;
}

function validateWebhook(at: string, w: Webhook, mutating: boolean, opts: Options): Causes {
  const out = fullyQualifiedName(`${at}.name`, w?.name);
  list(w?.rules).forEach((r, i) => out.push(...validateRule(`${at}.rules[${i}]`, r)));
  if (w.failurePolicy != null) out.push(...oneOf(`${at}.failurePolicy`, w.failurePolicy, ['Fail', 'Ignore']));
  if (w.matchPolicy != null) out.push(...oneOf(`${at}.matchPolicy`, w.matchPolicy, ['Equivalent', 'Exact']));
  const sideEffects = opts.noSideEffects ? noSideEffects : anySideEffects;
  if (w.sideEffects == null) out.push(required(`${at}.sideEffects`, `must specify one of ${sideEffects.join(', ')}`));
  else if (!sideEffects.includes(w.sideEffects)) out.push(notSupported(`${at}.sideEffects`, w.sideEffects, sideEffects));
  const t = w.timeoutSeconds;
  if (t != null && (!isInt(t) || t < 1 || t > 30)) out.push(invalid(`${at}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
  if (w.namespaceSelector) out.push(...labelSelector(`${at}.namespaceSelector`, w.namespaceSelector));
  if (w.objectSelector) out.push(...labelSelector(`${at}.objectSelector`, w.objectSelector));
  if (mutating && w.reinvocationPolicy != null) out.push(...oneOf(`${at}.reinvocationPolicy`, w.reinvocationPolicy, ['IfNeeded', 'Never']));
  // prepare loaded the CEL engine for any object with match conditions
  if (w.matchConditions !== undefined) out.push(...loadedAdmissionCel()!.matchConditionProblems(`${at}.matchConditions`, w.matchConditions, false, qualifiedNameErrors));
  const cc = w.clientConfig ?? {};
  const hasUrl = cc.url != null;
  if (hasUrl === (cc.service != null)) out.push(required(`${at}.clientConfig`, 'exactly one of url or service is required'));
  else if (cc.service) out.push(...validateWebhookService(`${at}.clientConfig.service`, cc.service));
  else out.push(...validateWebhookUrl(`${at}.clientConfig.url`, String(cc.url)));
  return out;
}

function validateConfiguration(obj: Configuration, mutating: boolean, opts: Options): Causes {
  const out: Causes = [];
  const seen = new Set<string>();
  list<Webhook>(obj.webhooks).forEach((w, i) => {
    const at = `webhooks[${i}]`;
    if (!w || typeof w !== 'object') { out.push(required(at)); return; }
    out.push(...validateWebhook(at, w, mutating, opts));
    out.push(...validateReviewVersions(`${at}.admissionReviewVersions`, w.admissionReviewVersions, admissionReviewVersions, opts.knownReviewVersion,
      `must specify one of ${admissionReviewVersions.join(', ')}`));
    if (opts.uniqueNames && typeof w.name === 'string' && w.name) {
      if (seen.has(w.name)) out.push(duplicate(`${at}.name`, w.name)); else seen.add(w.name);
    }
  });
  return out;
}

/** update relaxes each rule the stored object already broke */
function updateOptions(old: Configuration): Options {
  const hooks = list<Webhook>(old.webhooks);
  const names = hooks.map(w => w?.name).filter(Boolean);
  return {
    noSideEffects: hooks.every(w => noSideEffects.includes(w?.sideEffects)),
    knownReviewVersion: hooks.every(w => list(w?.admissionReviewVersions).length === 0
      || list(w?.admissionReviewVersions).some(v => (admissionReviewVersions as readonly string[]).includes(v))),
    uniqueNames: new Set(names).size === names.length,
  };
}

const strict: Options = { noSideEffects: true, knownReviewVersion: true, uniqueNames: true };

const matchConditionsGate = 'AdmissionWebhookMatchConditions';
const usesMatchConditions = (c: Configuration) => list<Webhook>(c.webhooks).some(w => w?.matchConditions !== undefined);
/** while the gate is off, match conditions are not stored, unless the stored object already had them; those kept are checked */
async function prepareMatchConditions(obj: Configuration, ctx: StrategyContext, old?: Configuration) {
  if (!ctx.featureGates?.[matchConditionsGate] && !(old && usesMatchConditions(old)))
    for (const w of list<Webhook>(obj.webhooks)) if (w && typeof w === 'object') delete w.matchConditions;
  if (!usesMatchConditions(obj)) return;
  // compiled before validation, in slices that let other requests run (64 per webhook, and many webhooks)
  const fields = list<Webhook>(obj.webhooks).flatMap(w => (Array.isArray(w?.matchConditions) ? w.matchConditions : [])
    .map(c => ({ source: (c as { expression?: unknown } | null)?.expression, result: 'bool' as const, params: false })));
  await (await loadAdmissionCel()).compileInSlices(fields);
}

/** the strategy of either kind of configuration */
export function webhookConfigurationStrategy(mutating: boolean) {
  return defineStrategy<Stored<Configuration>>({
    generation: true,
    defaults: obj => defaultWebhooks(obj, mutating),
    prepareForCreate: (obj, ctx) => prepareMatchConditions(obj, ctx),
    prepareForUpdate: (obj, old, ctx) => prepareMatchConditions(obj, ctx, old),
    validate: obj => validateConfiguration(obj, mutating, strict),
    validateUpdate: (obj, old) => validateConfiguration(obj, mutating, updateOptions(old)),
  });
}

export const webhookConfigurationColumns: TableColumn<Configuration>[] = [
  column('Webhooks', 'integer', o => (o.webhooks ?? []).length, 'Webhooks indicates the number of webhooks.'),
  age,
];
