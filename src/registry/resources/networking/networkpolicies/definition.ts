// networking/v1 network policies: which pods may talk to which.
import type { Stored } from '../../../../api/meta.js';
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort, NetworkPolicySpec } from '../../../../api/types/networking-v1.js';
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

function peerCauses(at: string, peer: NetworkPolicyPeer): Causes {
  const out: Causes = [];
  const set = (['podSelector', 'namespaceSelector', 'ipBlock'] as const).filter(k => isSet(peer?.[k]));
  if (!set.length) out.push(required(at, 'must specify a peer'));
  if (peer?.ipBlock && (peer.podSelector || peer.namespaceSelector)) out.push(forbidden(at, 'may not specify more than 1 peer type'));
  out.push(...labelSelector(`${at}.podSelector`, peer?.podSelector), ...labelSelector(`${at}.namespaceSelector`, peer?.namespaceSelector));
  if (peer?.ipBlock && !peer.ipBlock.cidr) out.push(required(`${at}.ipBlock.cidr`));
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
