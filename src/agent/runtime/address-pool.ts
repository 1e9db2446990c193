// Pod addresses of simulated nodes: a CIDR split among the nodes of one process, and per node a pool
// handing out addresses in order (the network's first address and the gateway after it stay unused).

import { isIPv4 } from 'node:net';

function parse(cidr: string): { base: bigint; bits: number; prefix: number; v4: boolean } {
  const [addr, len] = cidr.split('/') as [string, string];
  const v4 = isIPv4(addr);
  const bits = v4 ? 32 : 128;
  const prefix = Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) throw new Error(`${cidr} is not a CIDR`);
  const value = v4 ? addr.split('.').reduce((n, p) => (n << 8n) | BigInt(Number(p)), 0n) : v6ToBigInt(addr);
  const mask = ((1n << BigInt(bits)) - 1n) ^ ((1n << BigInt(bits - prefix)) - 1n);
  return { base: value & mask, bits, prefix, v4 };
}

function v6ToBigInt(addr: string): bigint {
  const [head, tail] = addr.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

function format(value: bigint, v4: boolean): string {
  if (v4) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16));
  // the longest run of two or more zero groups becomes '::'
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.len) best = { at: i, len: j - i };
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.len).join(':')}`;
}

/** the index-th of `count` equal parts of a CIDR (the smallest power of two that holds them) */
export function subnet(cidr: string, index: number, count: number): string {
  const p = parse(cidr);
  const extra = Math.ceil(Math.log2(Math.max(1, count)));
  const prefix = Math.min(p.bits - 2, p.prefix + extra);
  const size = 1n << BigInt(p.bits - prefix);
  return `${format(p.base + size * BigInt(index % 2 ** (prefix - p.prefix)), p.v4)}/${prefix}`;
}

/**
 * The range of the index-th simulated node of a process that was given none: a /24 each, counted from 10.244.0.0 (the
 * layout of a common pod network), so a simulated pod has an address and its Service endpoints, as on a real node.
 * Processes count alike: those that share a cluster give each its own --pod-cidr to keep their pods apart.
 */
export function fallbackNodeRange(index: number): string {
  const n = ((244 << 8) + index) & 0xffff;
  return `10.${n >> 8}.${n & 255}.0/24`;
}

export interface AddressPool {
  /** an address for the owner, or undefined when none is left */
  allocate(owner: string): string | undefined;
  release(owner: string): void;
}

export function addressPool(cidr: string): AddressPool {
  const p = parse(cidr);
  const size = 1n << BigInt(p.bits - p.prefix);
  // the network address and the gateway stay free; IPv4 keeps its broadcast address free too
  const first = 2n;
  const last = p.v4 ? size - 2n : size - 1n;
  const used = new Map<string, bigint>();
  const taken = new Set<bigint>();
  let next = first;
  return {
    allocate(owner) {
      const existing = used.get(owner);
      if (existing !== undefined) return format(p.base + existing, p.v4);
      for (let tries = 0n; tries <= last - first; tries++) {
        const candidate = next;
        next = next >= last ? first : next + 1n;
        if (taken.has(candidate)) continue;
        taken.add(candidate);
        used.set(owner, candidate);
        return format(p.base + candidate, p.v4);
      }
      return undefined;
    },
    release(owner) {
      const v = used.get(owner);
      if (v === undefined) return;
      used.delete(owner);
      taken.delete(v);
    },
  };
}
