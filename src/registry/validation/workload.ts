// What the workload kinds share: a selector that selects the template's pods, and rolling update bounds.
import type { IntOrString, LabelSelector } from '../../api/types/meta-v1.js';
import type { PodTemplateSpec } from '../../api/types/core-v1.js';
import { selectorIsEmpty, selectorMatches } from '../../api/selectors.js';
import { type Causes, immutable, intOrPercent, invalid, labelSelector, nonNegative, required } from './fields.js';
import { validateTemplate, type PodSpecRules } from './pod-spec.js';

/** the restart policy of every workload but jobs */
export const always = ['Always'] as const;

const notMatching = '`selector` does not match template `labels`';

/** selector present, not empty, valid, and matching the template's labels */
export function selectorAndTemplate(s: { selector?: LabelSelector; template?: PodTemplateSpec }, kind: string, rules: PodSpecRules): Causes {
  const out: Causes = [];
  if (!s.selector) out.push(required('spec.selector'));
  else {
    out.push(...labelSelector('spec.selector', s.selector));
    if (selectorIsEmpty(s.selector)) out.push(invalid('spec.selector', s.selector, `empty selector is invalid for ${kind}`));
  }
  if (!s.template) out.push(required('spec.template'));
  else {
    // a missing selector selects nothing (so no template matches it); an empty one selects everything
    const labels = s.template.metadata?.labels;
    if (!s.selector || (!selectorIsEmpty(s.selector) && !selectorMatches(s.selector, labels)))
      out.push(labels ? invalid('spec.template.metadata.labels', labels, notMatching)
        : { reason: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: `Invalid value: map[string]string(nil): ${notMatching}` });
    out.push(...validateTemplate('spec.template', s.template, rules));
  }
  return out;
}

const isZero = (v: unknown) => v === 0 || v === '0%';

/**
 * a rolling update's bounds, as the reference validates them per kind: a Deployment may surge beyond 100% and needs
 * one of the two above zero; a DaemonSet's are both at most 100%, and exactly one of them is above zero
 */
export function rollingUpdate(at: string, ru: { maxUnavailable?: IntOrString; maxSurge?: IntOrString }, kind: 'Deployment' | 'DaemonSet'): Causes {
  const daemon = kind === 'DaemonSet';
  const out = [...intOrPercent(`${at}.maxUnavailable`, ru.maxUnavailable), ...intOrPercent(`${at}.maxSurge`, ru.maxSurge, daemon)];
  const unavailable = !isZero(ru.maxUnavailable ?? 0);
  const surge = !isZero(ru.maxSurge ?? 0);
  if (!daemon && !unavailable && !surge) out.push(invalid(`${at}.maxUnavailable`, ru.maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  if (daemon && unavailable && surge) out.push(invalid(`${at}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
  if (daemon && !unavailable && !surge) out.push(required(`${at}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return out;
}

interface WithSelector { spec?: { selector?: LabelSelector } }
export const selectorImmutable = (obj: WithSelector, old: WithSelector) => immutableSelector('spec.selector', obj.spec?.selector, old.spec?.selector);

/** a label selector that may not change, the new one shown as the reference shows it */
export function immutableSelector(field: string, next: LabelSelector | undefined, old: LabelSelector | undefined): Causes {
  if (!immutable(field, next, old).length) return [];
  return [{ reason: 'FieldValueInvalid', field, message: `Invalid value: ${next ? goLabelSelector(next) : 'null'}: field is immutable` }];
}

/** a label selector as the reference prints it in this cause (Go's %#v of the struct), since kubectl shows it */
export function goLabelSelector(sel: LabelSelector): string {
  const strings = (l: unknown) => (Array.isArray(l) ? `[]string{${l.map(v => JSON.stringify(String(v))).join(', ')}}` : '[]string(nil)');
  const labels = sel.matchLabels && typeof sel.matchLabels === 'object'
    ? `map[string]string{${Object.keys(sel.matchLabels).sort().map(k => `${JSON.stringify(k)}:${JSON.stringify(String(sel.matchLabels![k]))}`).join(', ')}}`
    : 'map[string]string(nil)';
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions.map(e =>
      `v1.LabelSelectorRequirement{Key:${JSON.stringify(String(e?.key ?? ''))}, Operator:${JSON.stringify(String(e?.operator ?? ''))}, Values:${strings(e?.values)}}`).join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${exprs}}`;
}


/** a status written through /status: none of its `counts` below 0 */
export const statusCounts = (status: object | undefined, counts: readonly string[]): Causes =>
  counts.flatMap(f => nonNegative(`status.${f}`, (status as Record<string, unknown> | undefined)?.[f]));

/**
 * a replicated workload's status, written through /status: no count below 0, the counts of `withinReplicas` at most
 * status.replicas, and available pods at most the ready ones (they are ready for long enough). The reference's
 * StatefulSet names that bound status.readyReplicas, the others readyReplicas: `readyName` says which.
 */
export function replicaStatus(status: object | undefined, counts: readonly string[], withinReplicas: readonly string[], readyName = 'readyReplicas'): Causes {
  const st = (status ?? {}) as Record<string, unknown>;
  const out = statusCounts(st, counts);
  const num = (f: string) => (typeof st[f] === 'number' ? st[f] as number : 0);
  for (const f of withinReplicas) if (num(f) > num('replicas')) out.push(invalid(`status.${f}`, num(f), 'cannot be greater than status.replicas'));
  if (num('availableReplicas') > num('readyReplicas')) out.push(invalid('status.availableReplicas', num('availableReplicas'), `cannot be greater than ${readyName}`));
  return out;
}
