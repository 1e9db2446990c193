// Which pods a ResourceQuota counts: every listed scope (`spec.scopes`) and every requirement of
// `spec.scopeSelector` must hold for the pod. Admission and the quota controller decide it the same way.
import type { PodAffinityTerm, PodSpec, ResourceQuotaSpec, ScopedResourceSelectorRequirement } from './types/core-v1.js';

type QuotaPodSpec = Partial<PodSpec>;

const containersOf = (spec: QuotaPodSpec) =>
  [...(Array.isArray(spec.initContainers) ? spec.initContainers : []), ...(Array.isArray(spec.containers) ? spec.containers : [])];

const bestEffort = (spec: QuotaPodSpec) => containersOf(spec)
  .every(c => !Object.keys(c?.resources?.requests ?? {}).length && !Object.keys(c?.resources?.limits ?? {}).length);

/** a term that looks at other namespaces than the pod's own */
const crossNamespace = (t: PodAffinityTerm | undefined) => !!t && ((t.namespaces?.length ?? 0) > 0 || t.namespaceSelector != null);

function crossNamespaceAffinity(spec: QuotaPodSpec): boolean {
  const terms = [spec.affinity?.podAffinity, spec.affinity?.podAntiAffinity].flatMap(a => [
    ...(a?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(a?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(w => w?.podAffinityTerm),
  ]);
  return terms.some(crossNamespace);
}

/** one scope requirement; only PriorityClass looks at the operator and values (the others allow Exists alone) */
export function podMatchesScope(spec: QuotaPodSpec, r: ScopedResourceSelectorRequirement): boolean {
  switch (r.scopeName) {
    case 'Terminating': return spec.activeDeadlineSeconds != null;
    case 'NotTerminating': return spec.activeDeadlineSeconds == null;
    case 'BestEffort': return bestEffort(spec);
    case 'NotBestEffort': return !bestEffort(spec);
    case 'CrossNamespacePodAffinity': return crossNamespaceAffinity(spec);
    case 'PriorityClass': {
      // a pod that names no class has no value: In fails, NotIn and DoesNotExist hold
      const name = spec.priorityClassName || undefined;
      if (r.operator === 'Exists') return name !== undefined;
      if (r.operator === 'DoesNotExist') return name === undefined;
      if (r.operator === 'In') return name !== undefined && (r.values ?? []).includes(name);
      if (r.operator === 'NotIn') return name === undefined || !(r.values ?? []).includes(name);
      return false;
    }
    default: return false;
  }
}

/** the requirements a quota's scopes and scope selector make together */
export const quotaScopeRequirements = (quota: Partial<ResourceQuotaSpec> | undefined): ScopedResourceSelectorRequirement[] => [
  ...(quota?.scopes ?? []).map(s => ({ scopeName: s as ScopedResourceSelectorRequirement['scopeName'], operator: 'Exists' as const })),
  ...(quota?.scopeSelector?.matchExpressions ?? []),
];

/** whether a quota counts only some pods (and so nothing but pods) */
export const quotaScoped = (quota: Partial<ResourceQuotaSpec> | undefined) => quotaScopeRequirements(quota).length > 0;

/** whether a quota counts this pod */
export const podInQuotaScope = (spec: QuotaPodSpec, quota: Partial<ResourceQuotaSpec> | undefined) =>
  quotaScopeRequirements(quota).every(r => podMatchesScope(spec, r));
