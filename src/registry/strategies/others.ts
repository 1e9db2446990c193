// Networking (Ingress, NetworkPolicy, EndpointSlice), autoscaling, disruption budgets, priority classes, leases and RBAC.
import type { ApiObject } from '../../api/meta.js';
import { defineStrategy } from '../strategy.js';
import { fill } from '../defaults/pod.js';
import {
  type Causes, dnsLabel, dnsSubdomain, forbidden, immutable, intOrPercent, invalid, isInt, isSet, labelSelector, nonNegative, notSupported, oneOf,
  portNumber, portNumberOrName, required, tooMany,
} from '../validation/fields.js';

const protocols = ['SCTP', 'TCP', 'UDP'];

// ---------------------------------------------------------------------------------------------
// Ingress

const pathTypes = ['Exact', 'ImplementationSpecific', 'Prefix'];
const wildcardHostProblem = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
  + "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for "
  + "validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function backend(at: string, b: any): Causes {
  if (!b || typeof b !== 'object') return [required(at)];
  const out: Causes = [];
  if (b.service && b.resource) out.push(invalid(at, '', 'cannot set both resource and service backends'));
  else if (!b.service && !b.resource) out.push(invalid(at, '', 'resource or service backend is required'));
  if (b.service) {
    if (!b.service.name) out.push(required(`${at}.service.name`));
    else out.push(...dnsLabel(`${at}.service.name`, b.service.name));
    const port = b.service.port ?? {};
    if (port.name && isSet(port.number)) out.push(invalid(`${at}.service.port`, port, 'cannot set both port name & port number'));
    else if (port.name) out.push(...dnsLabel(`${at}.service.port.name`, port.name));
    else if (isSet(port.number)) out.push(...portNumber(`${at}.service.port.number`, port.number));
    else out.push(required(`${at}.service.port`, 'port name or number is required'));
  }
  if (b.resource) {
    if (!b.resource.kind) out.push(required(`${at}.resource.kind`));
    if (!b.resource.name) out.push(required(`${at}.resource.name`));
  }
  return out;
}

function validateIngress(ing: any): Causes {
  const s = ing.spec ?? {};
  const out: Causes = [];
  if (s.defaultBackend) out.push(...backend('spec.defaultBackend', s.defaultBackend));
  else if (!(s.rules ?? []).length) out.push(invalid('spec.rules', s.rules ?? [], 'either `defaultBackend` or `rules` must be specified'));
  if (s.ingressClassName) out.push(...dnsSubdomain('spec.ingressClassName', s.ingressClassName));
  for (const [i, r] of (s.rules ?? []).entries()) {
    const at = `spec.rules[${i}]`;
    if (r?.host) {
      const host = String(r.host);
      if (!host.startsWith('*.')) out.push(...dnsSubdomain(`${at}.host`, host));
      else if (dnsSubdomain(`${at}.host`, host.slice(2)).length) out.push(invalid(`${at}.host`, host, wildcardHostProblem));
    }
    if (!r?.http) continue;
    const paths: any[] = r.http.paths ?? [];
    if (!paths.length) out.push(required(`${at}.http.paths`));
    for (const [j, p] of paths.entries()) {
      const pat = `${at}.http.paths[${j}]`;
      if (!p?.pathType) out.push(required(`${pat}.pathType`, 'pathType must be specified'));
      else if (!pathTypes.includes(p.pathType)) out.push(notSupported(`${pat}.pathType`, p.pathType, pathTypes));
      else if ((p.pathType === 'Exact' || p.pathType === 'Prefix') && !String(p.path ?? '').startsWith('/'))
        out.push(invalid(`${pat}.path`, p.path ?? '', 'must be an absolute path'));
      else if (p.pathType === 'ImplementationSpecific' && p.path && !String(p.path).startsWith('/'))
        out.push(invalid(`${pat}.path`, p.path, 'must be an absolute path'));
      out.push(...backend(`${pat}.backend`, p?.backend));
    }
  }
  for (const [i, t] of (s.tls ?? []).entries())
    for (const [j, h] of (t?.hosts ?? []).entries())
      if (h && !String(h).startsWith('*.')) out.push(...dnsSubdomain(`spec.tls[${i}].hosts[${j}]`, h));
  return out;
}

export const ingresses = defineStrategy({
  prepareForCreate(obj: any) { obj.status = { loadBalancer: {} }; },
  validate: validateIngress,
  validateUpdate: validateIngress,
});

export const ingressClasses = defineStrategy({
  validate: (obj: any) => {
    const c = obj.spec?.controller;
    if (!c) return [required('spec.controller')];
    return String(c).length > 250 ? [{ reason: 'FieldValueTooLong', field: 'spec.controller', message: 'Too long: must have at most 250 bytes' }] : [];
  },
  validateUpdate: (obj: any, old: any) => immutable('spec.controller', obj.spec?.controller, old.spec?.controller),
});

// ---------------------------------------------------------------------------------------------
// NetworkPolicy

function defaultNetworkPolicy(obj: ApiObject) {
  const s = (obj as any).spec ??= {};
  for (const rules of [s.ingress, s.egress])
    for (const r of Array.isArray(rules) ? rules : []) for (const p of r?.ports ?? []) if (p) fill(p, { protocol: 'TCP' });
  if (!(s.policyTypes ?? []).length) s.policyTypes = (s.egress ?? []).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

function peerCauses(at: string, peer: any): Causes {
  const out: Causes = [];
  const set = ['podSelector', 'namespaceSelector', 'ipBlock'].filter(k => isSet(peer?.[k]));
  if (!set.length) out.push(required(at, 'must specify a peer'));
  if (peer?.ipBlock && (peer.podSelector || peer.namespaceSelector)) out.push(forbidden(at, 'may not specify more than 1 peer type'));
  out.push(...labelSelector(`${at}.podSelector`, peer?.podSelector), ...labelSelector(`${at}.namespaceSelector`, peer?.namespaceSelector));
  if (peer?.ipBlock && !peer.ipBlock.cidr) out.push(required(`${at}.ipBlock.cidr`));
  return out;
}

function portCauses(at: string, p: any): Causes {
  const out: Causes = [];
  out.push(...oneOf(`${at}.protocol`, p?.protocol, protocols, false));
  if (isSet(p?.port)) out.push(...portNumberOrName(`${at}.port`, p.port));
  if (isSet(p?.endPort)) {
    if (typeof p.port !== 'number') out.push(required(`${at}.port`, 'must be specified when endPort is specified'));
    else if (p.endPort < p.port) out.push(invalid(`${at}.endPort`, p.endPort, 'must be greater than or equal to `port`'));
  }
  return out;
}

function validateNetworkPolicy(np: any): Causes {
  const s = np.spec ?? {};
  const out = labelSelector('spec.podSelector', s.podSelector);
  for (const [dir, peers] of [['ingress', 'from'], ['egress', 'to']] as const)
    for (const [i, r] of (s[dir] ?? []).entries()) {
      for (const [j, p] of (r?.ports ?? []).entries()) out.push(...portCauses(`spec.${dir}[${i}].ports[${j}]`, p));
      for (const [j, p] of (r?.[peers] ?? []).entries()) out.push(...peerCauses(`spec.${dir}[${i}].${peers}[${j}]`, p));
    }
  const types: string[] = s.policyTypes ?? [];
  for (const [i, t] of types.entries()) if (t !== 'Ingress' && t !== 'Egress') out.push(notSupported(`spec.policyTypes[${i}]`, t, ['Ingress', 'Egress']));
  if (types.length > 2) out.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  return out;
}

export const networkPolicies = defineStrategy({
  prepareForCreate: defaultNetworkPolicy, prepareForUpdate: defaultNetworkPolicy,
  validate: validateNetworkPolicy, validateUpdate: validateNetworkPolicy,
});

// ---------------------------------------------------------------------------------------------
// EndpointSlice

const addressTypes = ['IPv4', 'IPv6', 'FQDN'];

function defaultEndpointSlice(obj: ApiObject) {
  for (const p of ((obj as any).ports ?? [])) if (p) fill(p, { protocol: 'TCP', name: '' });
}

function validateEndpointSlice(es: any): Causes {
  const out = oneOf('addressType', es.addressType, addressTypes);
  const endpoints: any[] = es.endpoints ?? [];
  if (endpoints.length > 1000) out.push(tooMany('endpoints', endpoints.length, 1000));
  for (const [i, e] of endpoints.entries()) {
    const addrs: any[] = e?.addresses ?? [];
    if (!addrs.length) out.push(required(`endpoints[${i}].addresses`, 'must contain at least 1 address'));
    else if (addrs.length > 100) out.push(tooMany(`endpoints[${i}].addresses`, addrs.length, 100));
    if (e?.hostname) out.push(...dnsLabel(`endpoints[${i}].hostname`, e.hostname));
  }
  for (const [i, p] of (es.ports ?? []).entries()) {
    if (p?.name) out.push(...dnsLabel(`ports[${i}].name`, p.name));
    out.push(...oneOf(`ports[${i}].protocol`, p?.protocol, protocols));
    if (isSet(p?.port)) out.push(...portNumber(`ports[${i}].port`, p.port));
  }
  return out;
}

export const endpointSlices = defineStrategy({
  prepareForCreate: defaultEndpointSlice, prepareForUpdate: defaultEndpointSlice,
  validate: validateEndpointSlice,
  validateUpdate: (obj: any, old: any) => [...validateEndpointSlice(obj), ...immutable('addressType', obj.addressType, old.addressType)],
});

// ---------------------------------------------------------------------------------------------
// HorizontalPodAutoscaler (stored at autoscaling/v2)

const scaleUpDefaults = () => ({
  stabilizationWindowSeconds: 0, selectPolicy: 'Max',
  policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
});
const scaleDownDefaults = () => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

function defaultHpa(obj: ApiObject) {
  const s = (obj as any).spec ??= {};
  fill(s, { minReplicas: 1 });
  // a body in the v1 form says its CPU target in targetCPUUtilizationPercentage; the v2 form gets the 80% CPU default
  if (!('targetCPUUtilizationPercentage' in s) && !(s.metrics ?? []).length)
    s.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  if (s.behavior && typeof s.behavior === 'object') {
    s.behavior.scaleUp = fill(s.behavior.scaleUp ?? {}, scaleUpDefaults());
    s.behavior.scaleDown = fill(s.behavior.scaleDown ?? {}, scaleDownDefaults());
  }
}

function validateHpa(hpa: any): Causes {
  const s = hpa.spec ?? {};
  const out: Causes = [];
  const ref = s.scaleTargetRef ?? {};
  if (!ref.kind) out.push(required('spec.scaleTargetRef.kind'));
  if (!ref.name) out.push(required('spec.scaleTargetRef.name'));
  if (isSet(s.minReplicas) && s.minReplicas < 1) out.push(invalid('spec.minReplicas', s.minReplicas, 'must be greater than or equal to 1'));
  if (!isInt(s.maxReplicas) || s.maxReplicas < 1) out.push(invalid('spec.maxReplicas', s.maxReplicas ?? 0, 'must be greater than 0'));
  else if (isSet(s.minReplicas) && s.maxReplicas < s.minReplicas)
    out.push(invalid('spec.maxReplicas', s.maxReplicas, 'must be greater than or equal to `minReplicas`'));
  if (isSet(s.targetCPUUtilizationPercentage) && s.targetCPUUtilizationPercentage < 1)
    out.push(invalid('spec.targetCPUUtilizationPercentage', s.targetCPUUtilizationPercentage, 'must be greater than 0'));
  for (const [i, m] of (s.metrics ?? []).entries())
    out.push(...oneOf(`spec.metrics[${i}].type`, m?.type, ['ContainerResource', 'External', 'Object', 'Pods', 'Resource']));
  for (const dir of ['scaleUp', 'scaleDown']) {
    const rules = s.behavior?.[dir];
    if (!rules) continue;
    const at = `spec.behavior.${dir}`;
    if (isSet(rules.selectPolicy)) out.push(...oneOf(`${at}.selectPolicy`, rules.selectPolicy, ['Disabled', 'Max', 'Min']));
    if (isSet(rules.stabilizationWindowSeconds) && !(rules.stabilizationWindowSeconds >= 0 && rules.stabilizationWindowSeconds <= 3600))
      out.push(invalid(`${at}.stabilizationWindowSeconds`, rules.stabilizationWindowSeconds, 'must be less than or equal to 3600'));
    for (const [i, p] of (rules.policies ?? []).entries()) {
      out.push(...oneOf(`${at}.policies[${i}].type`, p?.type, ['Percent', 'Pods']));
      if (!(p?.value > 0)) out.push(invalid(`${at}.policies[${i}].value`, p?.value ?? 0, 'must be greater than zero'));
      if (!(p?.periodSeconds > 0 && p.periodSeconds <= 1800)) out.push(invalid(`${at}.policies[${i}].periodSeconds`, p?.periodSeconds ?? 0, 'must be greater than zero and less than or equal to 1800'));
    }
  }
  return out;
}

export const horizontalPodAutoscalers = defineStrategy({
  prepareForCreate(obj: any) { obj.status = { desiredReplicas: 0 }; defaultHpa(obj); },
  prepareForUpdate: defaultHpa,
  validate: validateHpa,
  validateUpdate: validateHpa,
});

// ---------------------------------------------------------------------------------------------
// PodDisruptionBudget


function validatePdb(pdb: any): Causes {
  const s = pdb.spec ?? {};
  const out: Causes = [];
  if (isSet(s.minAvailable) && isSet(s.maxUnavailable)) out.push(invalid('spec', s, 'minAvailable and maxUnavailable cannot be both set'));
  out.push(...intOrPercent('spec.minAvailable', s.minAvailable), ...intOrPercent('spec.maxUnavailable', s.maxUnavailable));
  out.push(...labelSelector('spec.selector', s.selector));
  if (isSet(s.unhealthyPodEvictionPolicy))
    out.push(...oneOf('spec.unhealthyPodEvictionPolicy', s.unhealthyPodEvictionPolicy, ['AlwaysAllow', 'IfHealthyBudget']));
  return out;
}

export const podDisruptionBudgets = defineStrategy({
  prepareForCreate(obj: any) { obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }; },
  validate: validatePdb,
  validateUpdate: validatePdb,
});

// ---------------------------------------------------------------------------------------------
// PriorityClass

const maxUserPriority = 1_000_000_000;

export const priorityClasses = defineStrategy({
  generation: false,
  prepareForCreate: (obj: any) => { fill(obj, { preemptionPolicy: 'PreemptLowerPriority', value: 0 }); },
  prepareForUpdate: (obj: any) => { fill(obj, { preemptionPolicy: 'PreemptLowerPriority', value: 0 }); },
  validate(obj: any) {
    const out: Causes = [];
    const system = String(obj.metadata.name ?? '').startsWith('system-');
    if (!system && obj.value > maxUserPriority)
      out.push(forbidden('value', `maximum allowed value of a user defined priority is ${maxUserPriority}`));
    out.push(...oneOf('preemptionPolicy', obj.preemptionPolicy, ['Never', 'PreemptLowerPriority']));
    return out;
  },
  validateUpdate(obj: any, old: any) {
    const out: Causes = [];
    if (obj.value !== old.value) out.push(forbidden('value', 'may not be changed in an update.'));
    out.push(...immutable('preemptionPolicy', obj.preemptionPolicy, old.preemptionPolicy));
    return out;
  },
});

// ---------------------------------------------------------------------------------------------
// Lease

function validateLease(l: any): Causes {
  const s = l.spec ?? {};
  const out: Causes = [];
  if (isSet(s.leaseDurationSeconds) && s.leaseDurationSeconds <= 0) out.push(invalid('spec.leaseDurationSeconds', s.leaseDurationSeconds, 'must be greater than 0'));
  out.push(...nonNegative('spec.leaseTransitions', s.leaseTransitions));
  return out;
}

export const leases = defineStrategy({ generation: false, allowCreateOnUpdate: true, validate: validateLease, validateUpdate: validateLease });

// ---------------------------------------------------------------------------------------------
// RBAC

function rules(rs: unknown, namespaced: boolean): Causes {
  const out: Causes = [];
  for (const [i, r] of (Array.isArray(rs) ? rs : []).entries()) {
    const at = `rules[${i}]`;
    if (!(r?.verbs ?? []).length) out.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
    const urls: string[] = r?.nonResourceURLs ?? [];
    if (urls.length) {
      if (namespaced) out.push(invalid(`${at}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
      if ((r.apiGroups ?? []).length || (r.resources ?? []).length || (r.resourceNames ?? []).length)
        out.push(invalid(`${at}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
      continue;
    }
    if (!(r?.apiGroups ?? []).length) out.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
    if (!(r?.resources ?? []).length) out.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
  }
  return out;
}

const subjectKinds = ['Group', 'ServiceAccount', 'User'];

function binding(obj: any, namespaced: boolean): Causes {
  const out: Causes = [];
  const ref = obj.roleRef ?? {};
  const kinds = namespaced ? ['ClusterRole', 'Role'] : ['ClusterRole'];
  if (!ref.kind) out.push(required('roleRef.kind'));
  else if (!kinds.includes(ref.kind)) out.push(notSupported('roleRef.kind', ref.kind, kinds));
  if (!ref.name) out.push(required('roleRef.name'));
  for (const [i, s] of (obj.subjects ?? []).entries()) {
    const at = `subjects[${i}]`;
    if (!s?.name) out.push(required(`${at}.name`));
    if (!subjectKinds.includes(s?.kind)) { out.push(notSupported(`${at}.kind`, s?.kind ?? '', subjectKinds)); continue; }
    if (s.kind === 'ServiceAccount') {
      if (s.name) out.push(...dnsSubdomain(`${at}.name`, s.name));
      if (!namespaced && !s.namespace) out.push(required(`${at}.namespace`));
    }
  }
  return out;
}

const rbacPath = { nameRule: 'path-segment' as const, allowCreateOnUpdate: true, generation: false };
const roleRefFixed = (obj: any, old: any): Causes =>
  JSON.stringify(obj.roleRef ?? null) === JSON.stringify(old.roleRef ?? null) ? [] : [invalid('roleRef', obj.roleRef, 'cannot change roleRef')];

export const roles = defineStrategy({ ...rbacPath, validate: (o: any) => rules(o.rules, true), validateUpdate: (o: any) => rules(o.rules, true) });
export const clusterRoles = defineStrategy({ ...rbacPath, validate: (o: any) => rules(o.rules, false), validateUpdate: (o: any) => rules(o.rules, false) });
export const roleBindings = defineStrategy({
  ...rbacPath, validate: (o: any) => binding(o, true), validateUpdate: (o: any, old: any) => [...binding(o, true), ...roleRefFixed(o, old)],
});
export const clusterRoleBindings = defineStrategy({
  ...rbacPath, validate: (o: any) => binding(o, false), validateUpdate: (o: any, old: any) => [...binding(o, false), ...roleRefFixed(o, old)],
});
