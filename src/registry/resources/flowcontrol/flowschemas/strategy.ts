// FlowSchema defaults and validation: a precedence of 1000 when left out, within 1..10000; each rule names subjects and
// at least one resource or non-resource rule, each of those complete ('*' alone where it stands for all).
import type { Stored } from '../../../../api/meta.js';
import type { FlowSchema, NonResourcePolicyRule, ResourcePolicyRule, Subject } from '../../../../api/types/flowcontrol-v1beta3.js';
import { defineStrategy } from '../../../strategy.js';
import { specOf } from '../../../defaults/fill.js';
import { type Causes, invalid, oneOf, required } from '../../../validation/fields.js';

/** a list that must not be empty, and that holds '*' only alone */
function allOrSome(field: string, values: string[] | undefined, all = '*'): Causes {
  if (!values?.length) return [required(field, 'at least one value must be specified')];
  return values.includes(all) && values.length > 1 ? [invalid(field, values, `if '${all}' is present, must not specify other values`)] : [];
}

function subjectErrors(at: string, s: Subject): Causes {
  const out = oneOf(`${at}.kind`, s.kind, ['Group', 'ServiceAccount', 'User']);
  if (s.kind === 'User' && !s.user?.name) out.push(required(`${at}.user.name`, 'username is required'));
  if (s.kind === 'Group' && !s.group?.name) out.push(required(`${at}.group.name`, 'group name is required'));
  if (s.kind === 'ServiceAccount') {
    if (!s.serviceAccount?.namespace) out.push(required(`${at}.serviceAccount.namespace`, 'serviceaccount namespace is required'));
    if (!s.serviceAccount?.name) out.push(required(`${at}.serviceAccount.name`, 'serviceaccount name is required'));
  }
  return out;
}

function resourceRuleErrors(at: string, r: ResourcePolicyRule): Causes {
  const out = [...allOrSome(`${at}.verbs`, r.verbs), ...allOrSome(`${at}.apiGroups`, r.apiGroups), ...allOrSome(`${at}.resources`, r.resources)];
  if (!r.clusterScope && !r.namespaces?.length) out.push(required(`${at}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  else if (r.namespaces?.length) out.push(...allOrSome(`${at}.namespaces`, r.namespaces));
  return out;
}

function nonResourceRuleErrors(at: string, r: NonResourcePolicyRule): Causes {
  const out = [...allOrSome(`${at}.verbs`, r.verbs), ...allOrSome(`${at}.nonResourceURLs`, r.nonResourceURLs)];
  (r.nonResourceURLs ?? []).forEach((u, i) => {
    if (u !== '*' && !u.startsWith('/')) out.push(invalid(`${at}.nonResourceURLs[${i}]`, u, 'must start with slash'));
    else if (u.includes('*') && u !== '*' && !u.endsWith('/*')) out.push(invalid(`${at}.nonResourceURLs[${i}]`, u, "if '*' is present, must be a whole path segment at the end"));
  });
  return out;
}

export const strategy = defineStrategy<Stored<FlowSchema>>({
  // a new object's status is empty, and shown so (`status: {}`), as the reference's status struct is never left out
  prepareForCreate(obj) { obj.status = {}; },
  defaults(fs) {
    const spec = specOf(fs);
    spec.matchingPrecedence ??= 1000;
  },
  validate(fs) {
    const out: Causes = [];
    const spec = fs.spec;
    if (!spec) return [required('spec')];
    if (!spec.priorityLevelConfiguration?.name) out.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
    const p = spec.matchingPrecedence;
    if (p !== undefined && (!Number.isInteger(p) || p < 1 || p > 10000)) out.push(invalid('spec.matchingPrecedence', p, 'must be between 1 and 10000, inclusive'));
    if (spec.distinguisherMethod) out.push(...oneOf('spec.distinguisherMethod.type', spec.distinguisherMethod.type, ['ByNamespace', 'ByUser']));
    (spec.rules ?? []).forEach((rule, i) => {
      const at = `spec.rules[${i}]`;
      if (!rule.subjects?.length) out.push(required(`${at}.subjects`, 'at least one subject must be specified'));
      (rule.subjects ?? []).forEach((s, j) => out.push(...subjectErrors(`${at}.subjects[${j}]`, s)));
      if (!rule.resourceRules?.length && !rule.nonResourceRules?.length)
        out.push(required(at, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
      (rule.resourceRules ?? []).forEach((r, j) => out.push(...resourceRuleErrors(`${at}.resourceRules[${j}]`, r)));
      (rule.nonResourceRules ?? []).forEach((r, j) => out.push(...nonResourceRuleErrors(`${at}.nonResourceRules[${j}]`, r)));
    });
    return out;
  },
});
