// core/v1 nodes: the pod CIDRs (one per IP family, fixed once set), the taints, the provider ID (fixed once set), and
// in what the agents report, no address twice and no negative capacity.
import { isIPv4, isIPv6 } from 'node:net';
import type { Stored } from '../../../../api/meta.js';
import type { Node, Taint } from '../../../../api/types/core-v1.js';
import { quantityValue } from '../../../../api/quantity.js';
import { labelValueErrors } from '../../../../api/selectors.js';
import { defineStrategy } from '../../../strategy.js';
import { type Causes, duplicate, forbidden, invalid, notSupported, qualifiedName, required } from '../../../validation/fields.js';

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** a Duplicate cause naming a repeated entry by its JSON (the reference prints the Go struct) */
const repeated = (field: string, entry: object, detail = '') =>
  ({ ...duplicate(field, entry), message: `Duplicate value: ${JSON.stringify(entry)}${detail ? `: ${detail}` : ''}` });

/** the IP family of a CIDR (`10.0.0.0/24`, `fd00::/64`), or undefined when it is not one */
export function cidrFamily(cidr: string): 4 | 6 | undefined {
  const slash = cidr.indexOf('/');
  if (slash < 0) return undefined;
  const ip = cidr.slice(0, slash), bits = cidr.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return undefined;
  if (isIPv4(ip)) return Number(bits) <= 32 ? 4 : undefined;
  if (isIPv6(ip)) return Number(bits) <= 128 ? 6 : undefined;
  return undefined;
}

function taints(list: Taint[] | undefined): Causes {
  const out: Causes = [];
  const seen = new Set<string>();
  (list ?? []).forEach((t, i) => {
    const at = `spec.taints[${i}]`;
    out.push(...qualifiedName(`${at}.key`, t?.key ?? ''));
    if (t?.value) out.push(...labelValueErrors(t.value).map(p => invalid(`${at}.value`, t.value, p)));
    if (!t?.effect) out.push(required(`${at}.effect`));
    else if (!taintEffects.includes(t.effect)) out.push(notSupported(`${at}.effect`, t.effect, taintEffects));
    const id = `${t?.effect}\n${t?.key}`;
    if (seen.has(id)) out.push(repeated(at, { key: t.key, effect: t.effect }, 'taints must be unique by key and effect pair'));
    seen.add(id);
  });
  return out;
}

function podCidrs(cidrs: string[] | undefined): Causes {
  if (!cidrs?.length) return [];
  const out: Causes = [];
  const families = cidrs.map((c, i) => {
    const family = cidrFamily(String(c));
    if (!family) out.push(invalid(`spec.podCIDRs[${i}]`, c, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
    return family;
  });
  if (!out.length && cidrs.length > 1 && (cidrs.length > 2 || families[0] === families[1]))
    out.push(invalid('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  return out;
}


/** a node as created: the spec, and the capacity its agent reports with it */
function validateNode(node: Node): Causes {
  const out = [...taints(node.spec?.taints), ...podCidrs(node.spec?.podCIDRs)];
  for (const field of ['capacity', 'allocatable'] as const) {
    for (const [name, q] of Object.entries(node.status?.[field] ?? {})) {
      const value = quantityValue(q);
      if (value !== undefined && value < 0) out.push(invalid(`status.${field}.${name}`, q, 'must be greater than or equal to 0'));
    }
  }
  return out;
}

/** what an update may not do, through the node or its status: the agent and the controllers write both */
function validateNodeUpdate(node: Node, old: Node): Causes {
  const out = validateNode(node);
  const addresses = new Set<string>();
  (node.status?.addresses ?? []).forEach((a, i) => {
    const id = `${a?.type}\n${a?.address}`;
    if (addresses.has(id)) out.push(repeated(`status.addresses[${i}]`, { type: a.type, address: a.address }));
    addresses.add(id);
  });
  // the node IPAM controller may give a node its CIDRs, once
  const before = old.spec?.podCIDRs ?? [], after = node.spec?.podCIDRs ?? [];
  if (before.length && (before.length !== after.length || before.some((c, i) => c !== after[i])))
    out.push(forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  if (old.spec?.providerID && old.spec.providerID !== node.spec?.providerID)
    out.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  return out;
}

export const strategy = defineStrategy<Stored<Node>>({
  generation: false,
  // an agent registers its node with the status it reports (capacity, addresses, conditions), as the reference keeps it
  keepsStatusOnCreate: true,
  selectableFields: { 'spec.unschedulable': node => String(!!node.spec?.unschedulable) },
  // v1 has both podCIDR and podCIDRs: the list is what counts, its first CIDR is podCIDR (one alone makes the list)
  defaults(node) {
    const spec = node.spec;
    if (!spec) return;
    if (spec.podCIDRs?.length) spec.podCIDR = spec.podCIDRs[0];
    else if (spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  },
  validate: validateNode,
  validateUpdate: validateNodeUpdate,
  validateStatusUpdate: validateNodeUpdate,
});
