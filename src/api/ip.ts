// IP addresses and CIDRs as numbers: parsing (strict dotted-quad and RFC 4291 text) and the canonical text form.

export function parseIp(s: string): bigint | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(s)) {
    const parts = s.split('.').map(Number);
    if (parts.some(p => p > 255)) return undefined;
    if (s.split('.').some(p => p.length > 1 && p.startsWith('0'))) return undefined;
    return parts.reduce((a, p) => (a << 8n) + BigInt(p), 0n);
  }
  if (!s.includes(':') || !/^[0-9a-fA-F:]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (groups.some(g => g.length === 0 || g.length > 4)) return undefined;
  return groups.reduce((a, g) => (a << 16n) + BigInt(parseInt(g, 16)), 0n);
}

export function formatIp(v: bigint, family: 'IPv4' | 'IPv6'): string {
  if (family === 'IPv4') return [24n, 16n, 8n, 0n].map(s => String((v >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16));
  // the longest run of zero groups becomes '::'
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i; while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

export type IpFamily = 'IPv4' | 'IPv6';

/** a CIDR as numbers: its network address (host bits cleared), prefix length and address width */
export interface Cidr { family: IpFamily; base: bigint; prefix: number; width: 32 | 128 }

/** a CIDR such as 10.244.0.0/16 or fd00::/48; undefined when the text is not one */
export function parseCidrText(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addr = text.slice(0, slash), len = text.slice(slash + 1);
  const ip = parseIp(addr);
  if (ip === undefined || !/^\d{1,3}$/.test(len)) return undefined;
  const family: IpFamily = addr.includes(':') ? 'IPv6' : 'IPv4';
  const width = family === 'IPv4' ? 32 : 128;
  const prefix = Number(len);
  if (prefix > width) return undefined;
  const host = BigInt(width - prefix);
  return { family, base: (ip >> host) << host, prefix, width };
}

export const formatCidr = (c: Cidr) => `${formatIp(c.base, c.family)}/${c.prefix}`;

/** the most node CIDRs one cluster CIDR is cut into, as the reference: 2^16 */
export const maxSubnetBits = 16;

/** why a cluster CIDR cannot be cut into subnets of prefix length `mask`, if it cannot */
export function subnetProblem(c: Cidr, mask: number): string | undefined {
  if (!Number.isInteger(mask) || mask < 0 || mask > c.width) return `node CIDR mask size ${mask} is not a prefix length of an ${c.family} address (0 to ${c.width})`;
  if (mask < c.prefix) return `node CIDR mask size ${mask} is smaller than the prefix length of the cluster CIDR ${formatCidr(c)}`;
  if (mask - c.prefix > maxSubnetBits) return `node CIDR mask size ${mask} cuts the cluster CIDR ${formatCidr(c)} into more than 2^${maxSubnetBits} node CIDRs`;
  return undefined;
}
