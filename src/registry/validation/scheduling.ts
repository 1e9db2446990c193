// Where a pod may run, as the reference validates it: node and pod affinity, and topology spread constraints.
import type { Affinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodAffinityTerm, TopologySpreadConstraint, WeightedPodAffinityTerm } from '../../api/types/core-v1.js';
import { type Causes, dnsSubdomain, duplicate, forbidden, invalid, isSet, labelSelector, notSupported, qualifiedName, required } from './fields.js';
import { nameProblems } from './object-meta.js';

const weightProblem = 'must be in the range 1-100';

function nodeRequirement(at: string, r: NodeSelectorRequirement): Causes {
  const out: Causes = [];
  const n = (r.values ?? []).length;
  switch (r.operator) {
    case 'In': case 'NotIn':
      if (!n) out.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists': case 'DoesNotExist':
      if (n) out.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt': case 'Lt':
      if (n !== 1) out.push(required(`${at}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      out.push(invalid(`${at}.operator`, r.operator ?? '', 'not a valid selector operator'));
  }
  out.push(...qualifiedName(`${at}.key`, r.key ?? ''));
  return out;
}

/** node fields a term may match: only the node's name */
function nodeFieldRequirement(at: string, r: NodeSelectorRequirement): Causes {
  const out: Causes = [];
  if (r.operator === 'In' || r.operator === 'NotIn') {
    if ((r.values ?? []).length !== 1) out.push(required(`${at}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else out.push(invalid(`${at}.operator`, r.operator ?? '', 'not a valid selector operator'));
  if (r.key !== 'metadata.name') out.push(invalid(`${at}.key`, r.key ?? '', 'not a valid field selector key'));
  else for (const [i, v] of (r.values ?? []).entries()) out.push(...dnsSubdomain(`${at}.values[${i}]`, v));
  return out;
}

function nodeTerm(at: string, t: NodeSelectorTerm | undefined): Causes {
  return [
    ...(t?.matchExpressions ?? []).flatMap((r, j) => nodeRequirement(`${at}.matchExpressions[${j}]`, r ?? {} as NodeSelectorRequirement)),
    ...(t?.matchFields ?? []).flatMap((r, j) => nodeFieldRequirement(`${at}.matchFields[${j}]`, r ?? {} as NodeSelectorRequirement)),
  ];
}

export function nodeSelector(at: string, s: NodeSelector): Causes {
  const terms = s.nodeSelectorTerms ?? [];
  if (!terms.length) return [required(`${at}.nodeSelectorTerms`, 'must have at least one node selector term')];
  return terms.flatMap((t, i) => nodeTerm(`${at}.nodeSelectorTerms[${i}]`, t));
}

const badWeight = (w: unknown) => typeof w !== 'number' || w <= 0 || w > 100;

function podTerm(at: string, t: PodAffinityTerm): Causes {
  const out = [...labelSelector(`${at}.labelSelector`, t.labelSelector), ...labelSelector(`${at}.namespaceSelector`, t.namespaceSelector)];
  for (const ns of t.namespaces ?? []) out.push(...nameProblems(ns, 'dns-label').map(p => invalid(`${at}.namespace`, ns, p)));
  if (!t.topologyKey) out.push(required(`${at}.topologyKey`, 'can not be empty'));
  out.push(...qualifiedName(`${at}.topologyKey`, t.topologyKey ?? ''));
  return out;
}

function podTerms(at: string, required: PodAffinityTerm[] | undefined, preferred: WeightedPodAffinityTerm[] | undefined): Causes {
  const out = (required ?? []).flatMap((t, i) => podTerm(`${at}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`, t ?? {} as PodAffinityTerm));
  for (const [j, w] of (preferred ?? []).entries()) {
    const wat = `${at}.preferredDuringSchedulingIgnoredDuringExecution[${j}]`;
    if (badWeight(w?.weight)) out.push(invalid(`${wat}.weight`, w?.weight ?? 0, weightProblem));
    out.push(...podTerm(`${wat}.podAffinityTerm`, w?.podAffinityTerm ?? {} as PodAffinityTerm));
  }
  return out;
}

export function affinity(at: string, a: Affinity | undefined): Causes {
  if (!a) return [];
  const out: Causes = [];
  const na = a.nodeAffinity;
  if (na?.requiredDuringSchedulingIgnoredDuringExecution)
    out.push(...nodeSelector(`${at}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`, na.requiredDuringSchedulingIgnoredDuringExecution));
  for (const [i, t] of (na?.preferredDuringSchedulingIgnoredDuringExecution ?? []).entries()) {
    const tat = `${at}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    if (badWeight(t?.weight)) out.push(invalid(`${tat}.weight`, t?.weight ?? 0, weightProblem));
    out.push(...nodeTerm(`${tat}.preference`, t?.preference));
  }
  if (a.podAffinity) out.push(...podTerms(`${at}.podAffinity`, a.podAffinity.requiredDuringSchedulingIgnoredDuringExecution, a.podAffinity.preferredDuringSchedulingIgnoredDuringExecution));
  if (a.podAntiAffinity) out.push(...podTerms(`${at}.podAntiAffinity`, a.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution, a.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution));
  return out;
}

const unsatisfiableActions = ['DoNotSchedule', 'ScheduleAnyway'];
const inclusionPolicies = ['Honor', 'Ignore'];

export function topologySpread(at: string, constraints: TopologySpreadConstraint[] | undefined): Causes {
  const list = constraints ?? [];
  const out: Causes = [];
  for (const [i, c] of list.entries()) {
    const cat = `${at}[${i}]`;
    if (!(typeof c?.maxSkew === 'number' && c.maxSkew > 0)) out.push(invalid(`${cat}.maxSkew`, c?.maxSkew ?? 0, 'must be greater than zero'));
    if (!c?.topologyKey) out.push(required(`${cat}.topologyKey`, 'can not be empty'));
    if (!unsatisfiableActions.includes(c?.whenUnsatisfiable)) out.push(notSupported(`${cat}.whenUnsatisfiable`, c?.whenUnsatisfiable ?? '', unsatisfiableActions));
    if (list.slice(i + 1).some(r => r?.topologyKey === c?.topologyKey && r?.whenUnsatisfiable === c?.whenUnsatisfiable))
      out.push(duplicate(`${cat}.{topologyKey, whenUnsatisfiable}`, `{${c?.topologyKey ?? ''}, ${c?.whenUnsatisfiable ?? ''}}`));
    if (isSet(c?.minDomains)) {
      if (!(c.minDomains > 0)) out.push(invalid(`${cat}.minDomains`, c.minDomains, 'must be greater than zero'));
      if (c.whenUnsatisfiable !== 'DoNotSchedule')
        out.push(invalid(`${cat}.minDomains`, c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable ?? ''}`));
    }
    for (const f of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const)
      if (isSet(c?.[f]) && !inclusionPolicies.includes(c[f] as string)) out.push(notSupported(`${cat}.${f}`, c[f], inclusionPolicies));
    const keys = c?.matchLabelKeys ?? [];
    if (keys.length) {
      if (!c.labelSelector) out.push(forbidden(`${cat}.matchLabelKeys`, 'must not be specified when labelSelector is not set'));
      const selectorKeys = new Set([...Object.keys(c.labelSelector?.matchLabels ?? {}), ...(c.labelSelector?.matchExpressions ?? []).map(e => e?.key)]);
      for (const [k, key] of keys.entries()) {
        out.push(...qualifiedName(`${cat}.matchLabelKeys[${k}]`, key));
        if (selectorKeys.has(key)) out.push(invalid(`${cat}.matchLabelKeys[${k}]`, key, 'exists in both matchLabelKeys and labelSelector'));
      }
    }
    out.push(...labelSelector(`${cat}.labelSelector`, c?.labelSelector));
  }
  return out;
}
