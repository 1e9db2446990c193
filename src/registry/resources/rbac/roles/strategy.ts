// Roles and cluster roles: each rule names verbs, and either resources of API groups or non-resource URLs.
import type { Stored } from '../../../../api/meta.js';
import type { ClusterRole, PolicyRule, Role } from '../../../../api/types/rbac-v1.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, invalidList, required } from '../../../validation/fields.js';

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

/** what every RBAC kind shares: names are path segments, a PUT may create, no generation */
export const rbacStrategy = { nameRule: 'path-segment', allowCreateOnUpdate: true, generation: false } as const;

/** the strategy of roles (namespaced) and cluster roles */
export function roleStrategy(namespaced: boolean) {
  const validate = (role: Role | ClusterRole) => rules(role.rules, namespaced);
  return defineStrategy<Stored<Role | ClusterRole>>({ ...rbacStrategy, validate, validateUpdate: validate });
}
