// Cluster IPs and node ports for Services.
//
// What is taken is derived from the stored Services themselves (listed at each allocation), so deleting a
// Service frees its IP and ports with nothing else to update, and nothing can leak. Concurrent creates are kept
// apart by running allocations of one storage one at a time and by holding each value handed out as pending
// until the Service carrying it is stored (or a create that failed has had ample time to give up). This holds
// for every server process sharing the process's storage object; the reference's bitmap kept in storage would be
// needed for several processes allocating from one range at once.
import type { KV } from '../../../../storage/types.js';

export interface IpRange { family: 'IPv4' | 'IPv6'; base: bigint; bits: number; size: bigint; cidr: string }

export function parseCidr(cidr: string): IpRange {
  const [addr, len] = cidr.split('/');
  const family = addr.includes(':') ? 'IPv6' : 'IPv4';
  const total = family === 'IPv4' ? 32 : 128;
  const prefix = Number(len ?? total);
  const ip = parseIp(addr);
  if (ip === undefined) throw new Error(`invalid CIDR ${cidr}`);
  const bits = total - prefix;
  const base = (ip >> BigInt(bits)) << BigInt(bits);
  return { family, base, bits, size: 1n << BigInt(bits), cidr };
}

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

export const familyOf = (ip: string): 'IPv4' | 'IPv6' | undefined =>
  parseIp(ip) === undefined ? undefined : ip.includes(':') ? 'IPv6' : 'IPv4';

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

/** the addresses a range hands out: not the network address, nor (IPv4) the broadcast address */
function usable(r: IpRange, v: bigint): boolean {
  const offset = v - r.base;
  if (offset <= 0n || offset >= r.size) return false;
  return !(r.family === 'IPv4' && offset === r.size - 1n && r.bits > 1);
}

export const inRange = (r: IpRange, ip: string) => { const v = parseIp(ip); return v !== undefined && usable(r, v); };

interface Pending { owner: string; until: number }
interface AllocatorState { queue: Promise<unknown>; ips: Map<string, Pending>; ports: Map<string, Pending> }

const states = new WeakMap<KV, AllocatorState>();
/** how long a value handed to a create that has not been stored yet stays reserved */
const pendingMs = 30_000;

export interface InUse { ips: Map<string, string>; ports: Map<string, string> }

/**
 * Runs `fn` with what stored Services use (IP and `<port>/<protocol>`-less node ports, each mapped to its owner
 * `<namespace>/<name>`) plus what is pending; `reserve` holds new values for `owner`. One call at a time per storage.
 */
export function withAllocations<T>(kv: KV, prefix: string, owner: string,
  fn: (inUse: InUse, reserve: (kind: 'ips' | 'ports', value: string) => void) => T): Promise<T> {
  let state = states.get(kv);
  if (!state) states.set(kv, state = { queue: Promise.resolve(), ips: new Map(), ports: new Map() });
  const s = state;
  const run = async () => {
    const { kvs } = await kv.list(prefix);
    const inUse: InUse = { ips: new Map(), ports: new Map() };
    for (const item of kvs) {
      const svc = JSON.parse(Buffer.from(item.value).toString('utf8'));
      const who = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
      for (const ip of svc.spec?.clusterIPs ?? (svc.spec?.clusterIP ? [svc.spec.clusterIP] : [])) if (ip && ip !== 'None') inUse.ips.set(ip, who);
      for (const p of svc.spec?.ports ?? []) if (p?.nodePort) inUse.ports.set(String(p.nodePort), who);
      if (svc.spec?.healthCheckNodePort) inUse.ports.set(String(svc.spec.healthCheckNodePort), who);
    }
    const now = Date.now();
    for (const kind of ['ips', 'ports'] as const)
      for (const [v, p] of s[kind]) {
        // stored, or given up: no longer pending
        if (p.until < now || inUse[kind].get(v) === p.owner) s[kind].delete(v);
        else if (!inUse[kind].has(v) && p.owner !== owner) inUse[kind].set(v, p.owner);
      }
    return fn(inUse, (kind, value) => { s[kind].set(value, { owner, until: Date.now() + pendingMs }); });
  };
  const result = s.queue.then(run, run);
  s.queue = result.catch(() => undefined);
  return result;
}

/**
 * A free address of the range, or undefined when it is full. As the reference does, new addresses come from the upper
 * part of the range first, leaving its lower band (1/16 of it, 16 to 256 addresses) to addresses chosen by users.
 */
export function freeIp(r: IpRange, taken: (ip: string) => boolean): string | undefined {
  const span = r.size > 1n << 20n ? 1n << 20n : r.size;
  const band = r.size <= 16n ? 0n : r.size / 16n < 16n ? 16n : r.size / 16n > 256n ? 256n : r.size / 16n;
  const scan = (from: bigint, to: bigint) => {
    const n = to - from;
    if (n <= 0n) return undefined;
    const start = BigInt(Math.floor(Math.random() * Number(n)));
    for (let i = 0n; i < n; i++) {
      const v = r.base + from + ((start + i) % n);
      if (!usable(r, v)) continue;
      const ip = formatIp(v, r.family);
      if (!taken(ip)) return ip;
    }
    return undefined;
  };
  return scan(band < span ? band : 0n, span) ?? scan(0n, band < span ? band : 0n);
}

export function freePort(base: number, size: number, taken: (port: number) => boolean): number | undefined {
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const p = base + ((start + i) % size);
    if (!taken(p)) return p;
  }
  return undefined;
}
