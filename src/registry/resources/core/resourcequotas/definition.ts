// core/v1 resource quotas (enforced by the ResourceQuota admission plugin, which keeps their status). Validation
// as the reference's: caps of known resources (a name without a slash must be a standard quota resource), not
// negative, whole numbers for object counts and extended resources; scopes that exist, fit every capped resource
// and do not contradict each other.
import type { Stored } from '../../../../api/meta.js';
import { quantityValue } from '../../../../api/quantity.js';
import type { ResourceQuota, ResourceQuotaSpec } from '../../../../api/types/core-v1.js';
import * as s from '../../../../api/schemas/core-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, invalid, required } from '../../../validation/fields.js';
import { define, only, status } from '../../define.js';
import { age, column } from '../../columns.js';

const objectCounts = ['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers'];
const compute = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];
const standardQuota = new Set([...objectCounts, ...compute, 'ephemeral-storage', 'requests.ephemeral-storage', 'limits.ephemeral-storage', 'requests.storage']);
const isStandardQuota = (k: string) => standardQuota.has(k) || /^(requests\.)?hugepages-/.test(k);
/** an extended resource (a qualified name with a domain that is not the vendor's own), counted in whole units */
const isExtended = (k: string) => k.includes('/') && !k.startsWith('requests.') && !k.startsWith('count/') && /^[a-z0-9.-]+\/[A-Za-z0-9._-]+$/.test(k);
const scopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
/** whether a scope may narrow a quota of this (standard) resource: BestEffort pods only count, the others count and compute */
const scopeFits = (scope: string, resource: string) =>
  scope === 'BestEffort' ? resource === 'pods' : !scopes.includes(scope) || resource === 'pods' || compute.includes(resource);
const conflicting = (names: string[]) => [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']].some(pair => pair.every(p => names.includes(p)));

function validateHard(at: string, hard: Record<string, string | number> | undefined): Causes {
  return Object.entries(hard ?? {}).flatMap(([k, v]): Causes => {
    const field = `${at}[${k}]`;
    if (!k.includes('/') && !isStandardQuota(k)) return [invalid(field, k, 'must be a standard resource for quota')];
    const n = quantityValue(v);
    if (n === undefined) return [];
    if (n < 0) return [invalid(field, String(v), 'must be greater than or equal to 0')];
    if ((objectCounts.includes(k) || isExtended(k)) && !Number.isInteger(n)) return [invalid(field, String(v), 'must be an integer')];
    return [];
  });
}

function validateScopes(spec: ResourceQuotaSpec): Causes {
  const out: Causes = [];
  const standard = Object.keys(spec.hard ?? {}).filter(isStandardQuota).sort();
  const listed: string[] = spec.scopes ?? [];
  for (const scope of listed) {
    if (!scopes.includes(scope)) out.push(invalid('spec.scopes', listed, 'unsupported scope'));
    for (const r of standard) if (!scopeFits(scope, r)) out.push(invalid('spec.scopes', listed, 'unsupported scope applied to resource'));
  }
  if (conflicting(listed)) out.push(invalid('spec.scopes', listed, 'conflicting scopes'));
  const at = 'spec.scopeSelector.matchExpressions';
  const exprs = spec.scopeSelector?.matchExpressions ?? [];
  for (const [i, e] of exprs.entries()) {
    if (!scopes.includes(e?.scopeName)) out.push(invalid(`${at}[${i}].scopeName`, e?.scopeName, 'unsupported scope'));
    for (const r of standard) if (!scopeFits(e?.scopeName, r)) out.push(invalid(at, spec.scopeSelector, 'unsupported scope applied to resource'));
    if (e?.scopeName !== 'PriorityClass' && scopes.includes(e?.scopeName) && e?.operator !== 'Exists')
      out.push(invalid(`${at}[${i}].operator`, e?.operator, "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    const values = e?.values ?? [];
    if (e?.operator === 'In' || e?.operator === 'NotIn') { if (!values.length) out.push(required(`${at}[${i}].values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector")); }
    else if (e?.operator === 'Exists' || e?.operator === 'DoesNotExist') { if (values.length) out.push(invalid(`${at}[${i}].values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector")); }
    else out.push(invalid(`${at}[${i}].operator`, e?.operator, 'not a valid selector operator'));
  }
  if (conflicting(exprs.map(e => e?.scopeName))) out.push(invalid(at, spec.scopeSelector, 'conflicting scopes'));
  return out;
}

const validateQuota = (q: ResourceQuota): Causes => [...validateHard('spec.hard', q.spec?.hard), ...validateScopes(q.spec ?? {})];
const validateQuotaStatus = (q: ResourceQuota): Causes => [...validateHard('status.hard', q.status?.hard), ...validateHard('status.used', q.status?.used)];

export const strategy = defineStrategy<Stored<ResourceQuota>>({
  // a new object's status is empty, and shown so (`status: {}`), as the reference's status struct is never left out
  prepareForCreate(obj) { obj.status = {}; },
  generation: false,
  validate: validateQuota, validateUpdate: validateQuota, validateStatusUpdate: validateQuotaStatus,
});

function quotaUsage(q: ResourceQuota, limits: boolean): string {
  const hard = q.status?.hard ?? {};
  const used = q.status?.used ?? {};
  return Object.keys(hard).sort()
    .filter(k => k.startsWith('limits.') === limits)
    .map(k => `${k}: ${used[k] ?? '0'}/${hard[k]}`).join(', ');
}

const columns: TableColumn<ResourceQuota>[] = [
  age,
  column('Request', 'string', o => quotaUsage(o, false), 'Request represents a minimum amount of cpu/memory that a container may consume.'),
  column('Limit', 'string', o => quotaUsage(o, true), 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
];

export const definition = define<ResourceQuota>({
  group: '', resource: 'resourcequotas', kind: 'ResourceQuota', shortNames: ['quota'], namespaced: true,
  versions: only('v1', s.resourceQuota), subresources: status, columns, strategy,
});
