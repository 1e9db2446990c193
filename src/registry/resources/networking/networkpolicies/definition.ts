// networking/v1 network policies: which pods may talk to which.
import type { Stored } from '../../../../api/meta.js';
import type { IPBlock, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, NetworkPolicySpec } from '../../../../api/types/networking-v1.js';
import { parseCidrText } from '../../../../api/ip.js';
import * as s from '../../../../api/schemas/networking-v1.js';
import type { TableColumn } from '../../../types.js';
import { defineStrategy } from '../../../strategy.js';
import { fill, specOf } from '../../../defaults/fill.js';
import { type Causes, forbidden, invalid, isSet, labelSelector, notSupported, oneOf, portNumberOrName, required } from '../../../validation/fields.js';
import { define, only } from '../../define.js';
import { age, column, formatLabelSelector } from '../../columns.js';

const protocols = ['SCTP', 'TCP', 'UDP'];

function defaultNetworkPolicy(np: NetworkPolicy) {
  const s = specOf(np);
  for (const rules of [s.ingress, s.egress])
    for (const r of Array.isArray(rules) ? rules : []) for (const p of r?.ports ?? []) if (p) fill(p, { protocol: 'TCP' });
  if (!(s.policyTypes ?? []).length) s.policyTypes = (s.egress ?? []).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** a CIDR, and exceptions strictly inside it */
function ipBlockCauses(at: string, b: IPBlock): Causes {
  if (!b.cidr) return [required(`${at}.cidr`)];
  const cidr = parseCidrText(b.cidr);
  if (!cidr) return [invalid(`${at}.cidr`, b.cidr, 'not a valid CIDR')];
  const out: Causes = [];
  const host = BigInt(cidr.width - cidr.prefix);
  for (const [i, text] of (b.except ?? []).entries()) {
    const except = parseCidrText(String(text));
    if (!except) return [...out, invalid(`${at}.except[${i}]`, text, 'not a valid CIDR')];
    const inside = except.family === cidr.family && except.base >> host === cidr.base >> host;
    if (!inside || cidr.prefix >= except.prefix) out.push(invalid(`${at}.except[${i}]`, text, 'must be a strict subset of `cidr`'));
  }
  return out;
}

/** a peer names pods, namespaces (the two together select pods in those namespaces) or an IP block alone */
function peerCauses(at: string, peer: NetworkPolicyPeer): Causes {
  const out: Causes = [
    ...labelSelector(`${at}.podSelector`, peer?.podSelector), ...labelSelector(`${at}.namespaceSelector`, peer?.namespaceSelector),
    ...(peer?.ipBlock ? ipBlockCauses(`${at}.ipBlock`, peer.ipBlock) : []),
  ];
  const set = (['podSelector', 'namespaceSelector', 'ipBlock'] as const).filter(k => isSet(peer?.[k]));
  if (!set.length) out.push(required(at, 'must specify a peer'));
  else if (set.length > 1 && peer.ipBlock) out.push(forbidden(at, 'may not specify both ipBlock and another peer'));
  return out;
}

function portCauses(at: string, p: NetworkPolicyPort): Causes {
  const out: Causes = [];
  out.push(...oneOf(`${at}.protocol`, p?.protocol, protocols, false));
  if (isSet(p?.port)) out.push(...portNumberOrName(`${at}.port`, p.port));
  if (isSet(p?.endPort)) {
    if (typeof p.port !== 'number') out.push(required(`${at}.port`, 'must be specified when endPort is specified'));
    else if (p.endPort < p.port) out.push(invalid(`${at}.endPort`, p.endPort, 'must be greater than or equal to `port`'));
  }
  return out;
}

function validateNetworkPolicy(np: NetworkPolicy): Causes {
  const s: Partial<NetworkPolicySpec> = np.spec ?? {};
  const out = labelSelector('spec.podSelector', s.podSelector);
  for (const [i, r] of (s.ingress ?? []).entries()) {
    for (const [j, p] of (r?.ports ?? []).entries()) out.push(...portCauses(`spec.ingress[${i}].ports[${j}]`, p));
    for (const [j, p] of (r?.from ?? []).entries()) out.push(...peerCauses(`spec.ingress[${i}].from[${j}]`, p));
  }
  for (const [i, r] of (s.egress ?? []).entries()) {
    for (const [j, p] of (r?.ports ?? []).entries()) out.push(...portCauses(`spec.egress[${i}].ports[${j}]`, p));
    for (const [j, p] of (r?.to ?? []).entries()) out.push(...peerCauses(`spec.egress[${i}].to[${j}]`, p));
  }
  const types: string[] = s.policyTypes ?? [];
  for (const [i, t] of types.entries()) if (t !== 'Ingress' && t !== 'Egress') out.push(notSupported(`spec.policyTypes[${i}]`, t, ['Ingress', 'Egress']));
  if (types.length > 2) out.push(invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  return out;
}

export const strategy = defineStrategy<Stored<NetworkPolicy>>({
  defaults: defaultNetworkPolicy,
  // status is alpha behind the NetworkPolicyStatus feature gate, off: a write drops it (an update keeps conditions
  // stored before), and the object reads `status: {}`, as the reference's
  prepareForCreate(np) { np.status = {}; },
  prepareForUpdate(np, old) { np.status = (old.status?.conditions ?? []).length ? old.status : {}; },
  validate: validateNetworkPolicy, validateUpdate: validateNetworkPolicy,
});

const columns: TableColumn<NetworkPolicy>[] = [
  column('Pod-Selector', 'string', o => formatLabelSelector(o.spec?.podSelector), 'The pods the policy applies to.'),
  age,
];

export const definition = define<NetworkPolicy>({
  group: 'networking', domainGroup: true, resource: 'networkpolicies', kind: 'NetworkPolicy', shortNames: ['netpol'], namespaced: true,
  versions: only('v1', s.networkPolicy), strategy, columns,
});
