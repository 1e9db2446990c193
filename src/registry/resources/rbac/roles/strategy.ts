// Roles and cluster roles: each rule names verbs, and either resources of API groups or non-resource URLs.
import type { Stored } from '../../../../api/meta.js';
import type { ClusterRole, PolicyRule, Role } from '../../../../api/types/rbac-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, invalidList, labelSelector, required } from '../../../validation/fields.js';

function rules(rs: PolicyRule[] | undefined, namespaced: boolean): Causes {
  const out: Causes = [];
  for (const [i, r] of (Array.isArray(rs) ? rs : []).entries()) {
    const at = `rules[${i}]`;
    if (!(r?.verbs ?? []).length) out.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
    const urls = r?.nonResourceURLs ?? [];
    if (urls.length) {
      if (namespaced) out.push(invalidList(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if ((r.apiGroups ?? []).length || (r.resources ?? []).length || (r.resourceNames ?? []).length)
        out.push(invalidList(`${at}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      continue;
    }
    if (!(r?.apiGroups ?? []).length) out.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    if (!(r?.resources ?? []).length) out.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
  }
  return out;
}

/** an aggregationRule gathers the roles its selectors match: it needs at least one, each a valid label selector */
function aggregation(role: Role | ClusterRole): Causes {
  const rule = (role as ClusterRole).aggregationRule;
  if (!rule || typeof rule !== 'object') return [];
  const selectors = Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
  const at = 'aggregationRule.clusterRoleSelectors';
  if (!selectors.length) return [required(at, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((sel, i) => labelSelector(`${at}[${i}]`, sel));
}

/** what every RBAC kind shares: names are path segments, a PUT may create, no generation */
export const rbacStrategy = { nameRule: 'path-segment', allowCreateOnUpdate: true, generation: false } as const;

/** the strategy of roles (namespaced) and cluster roles */
export function roleStrategy(namespaced: boolean) {
  const validate = (role: Role | ClusterRole) => [...rules(role.rules, namespaced), ...(namespaced ? [] : aggregation(role))];
  return defineStrategy<Stored<Role | ClusterRole>>({ ...rbacStrategy, validate, validateUpdate: validate });
}
