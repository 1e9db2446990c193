// Cluster IPs and node ports for Services, kept in storage as the reference keeps them: one allocation object per
// range (kind RangeAllocation; its data the allocated offsets), changed only by compare-and-swap, so every API server
// on one store allocates from the same state and no two hand out the same address or port. The requests of one
// process are gathered: one write settles every allocation and release waiting for a range. A repair pass marks
// what stored Services use and frees what stayed allocated to no Service over two passes (a create that failed
// after allocating, in a process that stopped before it could give the values back).
import type { ObjectStore } from '../../../../storage/objects.js';
import type { ApiObject } from '../../../../api/meta.js';
import type { Service, ServiceSpec } from '../../../../api/types/core-v1.js';
import { formatIp, parseIp } from '../../../../api/ip.js';

export { formatIp, parseIp };

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

export const familyOf = (ip: string): 'IPv4' | 'IPv6' | undefined =>
  parseIp(ip) === undefined ? undefined : ip.includes(':') ? 'IPv6' : 'IPv4';

/** the addresses a range hands out: not the network address, nor (IPv4) the broadcast address */
function usable(r: IpRange, v: bigint): boolean {
  const offset = v - r.base;
  if (offset <= 0n || offset >= r.size) return false;
  return !(r.family === 'IPv4' && offset === r.size - 1n && r.bits > 1);
}

export const inRange = (r: IpRange, ip: string) => { const v = parseIp(ip); return v !== undefined && usable(r, v); };

/** a range of values kept in one allocation object, as offsets from its first value */
export interface Range {
  /** the storage key of its allocation object */
  key: string;
  /** the range as configured: a CIDR, or first-last ports */
  text: string;
  /** offsets 0 .. size-1 are tracked */
  size: number;
  usable(offset: number): boolean;
  /** new values come from [band, size) first, then from [0, band) */
  band: number;
}

/** the part of an IP range that is tracked (the reference allows IPv6 service ranges of at most 2^20 addresses) */
const maxTracked = 1 << 20;

export function ipRange(r: IpRange, key: string): Range {
  const size = r.size > BigInt(maxTracked) ? maxTracked : Number(r.size);
  // as the reference does, the lower band (1/16 of the range, 16 to 256 addresses) is left to addresses users choose
  const band = size <= 16 ? 0 : Math.min(256, Math.max(16, Math.floor(size / 16)));
  return { key, text: r.cidr, size, band, usable: offset => usable(r, r.base + BigInt(offset)) };
}

export const ipOffset = (r: IpRange, ip: string): number | undefined => {
  const v = parseIp(ip);
  return v === undefined || v < r.base || v - r.base >= BigInt(maxTracked) ? undefined : Number(v - r.base);
};

export const ipAt = (r: IpRange, offset: number) => formatIp(r.base + BigInt(offset), r.family);

export function portRange(r: { base: number; size: number }, key: string): Range {
  return { key, text: `${r.base}-${r.base + r.size - 1}`, size: r.size, band: 0, usable: () => true };
}

/** the stored offsets: ascending, each as its distance from the one before in LEB128, then base64 */
export function encodeOffsets(bits: Uint8Array): string {
  const out: number[] = [];
  let last = -1;
  for (let byte = 0; byte < bits.length; byte++) {
    if (!bits[byte]) continue;
    for (let bit = 0; bit < 8; bit++) {
      if (!(bits[byte] & (1 << bit))) continue;
      const offset = byte * 8 + bit;
      for (let gap = offset - last; ; gap >>>= 7) {
        if (gap < 0x80) { out.push(gap); break; }
        out.push((gap & 0x7f) | 0x80);
      }
      last = offset;
    }
  }
  return Buffer.from(out).toString('base64');
}

export function decodeOffsets(data: string, size: number): Uint8Array {
  const bits = new Uint8Array(Math.ceil(size / 8));
  const bytes = Buffer.from(data, 'base64');
  let offset = -1;
  for (let i = 0; i < bytes.length;) {
    let gap = 0;
    for (let shift = 0; i < bytes.length; shift += 7) {
      const b = bytes[i++];
      gap += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) break;
    }
    offset += gap;
    if (offset >= size) break;
    bits[offset >> 3] |= 1 << (offset & 7);
  }
  return bits;
}

const isSet = (bits: Uint8Array, o: number) => (bits[o >> 3] & (1 << (o & 7))) !== 0;
const setBit = (bits: Uint8Array, o: number) => { bits[o >> 3] |= 1 << (o & 7); };
const clearBit = (bits: Uint8Array, o: number) => { bits[o >> 3] &= ~(1 << (o & 7)); };

/** a free offset of [from, to), scanned from a random point, or undefined */
function freeIn(r: Range, bits: Uint8Array, from: number, to: number): number | undefined {
  const n = to - from;
  const start = Math.floor(Math.random() * n);
  for (let i = 0; i < n; i++) {
    const o = from + ((start + i) % n);
    if (bits[o >> 3] === 0xff) { i += 7 - (o & 7); continue; }   // a full byte: skip to the next
    if (!isSet(bits, o) && r.usable(o)) return o;
  }
  return undefined;
}

export const freeOffset = (r: Range, bits: Uint8Array): number | undefined =>
  freeIn(r, bits, r.band, r.size) ?? freeIn(r, bits, 0, r.band);

/** why an allocation was refused: the ask at index was taken, outside the range, or the range is full */
export class AllocationError extends Error {
  constructor(readonly index: number, readonly reason: 'taken' | 'outside' | 'full') {
    super(reason === 'taken' ? 'provided value is already allocated' : reason === 'outside' ? 'provided value is not in the valid range' : 'range is full');
  }
}

export interface RangeAllocator {
  readonly range: Range;
  /** takes the asked offsets (undefined: any free one), all of them or none; dryRun checks without taking */
  allocate(asks: Array<number | undefined>, dryRun?: boolean): Promise<number[]>;
  release(offsets: number[]): Promise<void>;
  /**
   * The repair: offsets in use are marked allocated, and suspects (allocated and unused at the last pass) that are
   * still unused are freed. Resolves to the allocated offsets nothing uses now: the suspects of the next pass.
   */
  repair(used: Set<number>, suspects: Set<number>): Promise<Set<number>>;
}

type Request =
  | { kind: 'allocate'; asks: Array<number | undefined>; dryRun: boolean }
  | { kind: 'release'; offsets: number[] }
  | { kind: 'repair'; used: Set<number>; suspects: Set<number> };

/** a request waiting for the next write; done gets its result, or the error that failed it */
type Op = Request & { done(result: unknown): void };

/** one op on the bits; false when it changed nothing */
function apply(r: Range, bits: Uint8Array, op: Request): { changed: boolean; result: unknown } {
  if (op.kind === 'release') {
    let changed = false;
    for (const o of op.offsets) if (o >= 0 && o < r.size && isSet(bits, o)) { clearBit(bits, o); changed = true; }
    return { changed, result: undefined };
  }
  if (op.kind === 'repair') {
    let changed = false;
    const unused = new Set<number>();
    for (const o of op.used) if (o >= 0 && o < r.size && !isSet(bits, o)) { setBit(bits, o); changed = true; }
    for (let o = 0; o < r.size; o++) {
      if (!isSet(bits, o) || op.used.has(o)) continue;
      if (op.suspects.has(o)) { clearBit(bits, o); changed = true; } else unused.add(o);
    }
    return { changed, result: unused };
  }
  // all or nothing: a refusal gives back what the op took before it, and a check gives back everything
  const got: number[] = [];
  const undo = (result: unknown) => { for (const o of got) clearBit(bits, o); return { changed: false, result }; };
  for (const [i, ask] of op.asks.entries()) {
    const o = ask ?? freeOffset(r, bits);
    if (o === undefined) return undo(new AllocationError(i, 'full'));
    if (o < 0 || o >= r.size || !r.usable(o)) return undo(new AllocationError(i, 'outside'));
    if (isSet(bits, o)) return undo(new AllocationError(i, 'taken'));
    setBit(bits, o);
    got.push(o);
  }
  return op.dryRun ? undo(got) : { changed: got.length > 0, result: got };
}

export function rangeAllocator(objects: ObjectStore, range: Range): RangeAllocator {
  let queue: Op[] = [];
  let draining = false;

  /** every op waiting is settled by one compare-and-swap write of the allocation object */
  async function drain() {
    if (draining) return;
    draining = true;
    try {
      while (queue.length) {
        const batch = queue;
        queue = [];
        let results: unknown[] = [];
        try {
          await objects.update(range.key, current => {
            const stored = current?.obj as ApiObject & { range?: string; data?: string } | undefined;
            // an object of another range (the flag changed) starts empty, as does an absent one; the repair marks what Services hold
            const bits = stored?.range === range.text ? decodeOffsets(stored.data ?? '', range.size) : new Uint8Array(Math.ceil(range.size / 8));
            let changed = !!stored && stored.range !== range.text;
            results = batch.map(op => {
              const out = apply(range, bits, op);
              changed ||= out.changed;
              return out.result;
            });
            if (!changed) return { skip: true };
            return { put: { apiVersion: 'v1', kind: 'RangeAllocation', metadata: { name: range.key.split('/').pop()! }, range: range.text, data: encodeOffsets(bits) } as ApiObject };
          });
        } catch (e) {
          for (const op of batch) op.done(e instanceof Error ? e : new Error(String(e)));
          continue;
        }
        batch.forEach((op, i) => op.done(results[i]));
      }
    } finally {
      draining = false;
    }
  }

  const submit = <T>(request: Request) => new Promise<T>((resolve, reject) => {
    queue.push({ ...request, done: r => (r instanceof Error ? reject(r) : resolve(r as T)) });
    void drain();
  });

  return {
    range,
    allocate: (asks, dryRun = false) => submit<number[]>({ kind: 'allocate', asks, dryRun }),
    release: offsets => (offsets.length ? submit<void>({ kind: 'release', offsets }) : Promise.resolve()),
    repair: (used, suspects) => submit<Set<number>>({ kind: 'repair', used, suspects }),
  };
}

export interface ServiceRanges {
  /** --service-cluster-ip-range: at most one CIDR per family */
  clusterIps: string[];
  /** --service-node-port-range */
  nodePorts: { base: number; size: number };
}

export interface ServiceAllocators {
  ips: Array<{ cidr: IpRange; allocator: RangeAllocator }>;
  ports: RangeAllocator;
  nodePorts: { base: number; size: number };
}

const allocators = new WeakMap<ObjectStore, Map<string, ServiceAllocators>>();

/** the allocators of one store and configuration: one set per server, so its requests share their writes */
export function serviceAllocators(objects: ObjectStore, ranges: ServiceRanges): ServiceAllocators {
  let byConfig = allocators.get(objects);
  if (!byConfig) allocators.set(objects, byConfig = new Map());
  const config = JSON.stringify(ranges);
  let a = byConfig.get(config);
  if (!a) {
    const keys = ['/registry/ranges/serviceips', '/registry/ranges/secondaryserviceips'];
    a = {
      ips: ranges.clusterIps.slice(0, 2).map((c, i) => { const cidr = parseCidr(c); return { cidr, allocator: rangeAllocator(objects, ipRange(cidr, keys[i])) }; }),
      ports: rangeAllocator(objects, portRange(ranges.nodePorts, '/registry/ranges/servicenodeports')),
      nodePorts: ranges.nodePorts,
    };
    byConfig.set(config, a);
  }
  return a;
}

export const needsClusterIp = (s: ServiceSpec) => s.type !== 'ExternalName';
/** a service type that has node ports: the ones it names, and new ones when it needsNodePorts */
export const hasNodePorts = (s: ServiceSpec) => s.type === 'NodePort' || s.type === 'LoadBalancer';
/** node ports are drawn for the ports that name none (a load balancer may decline them) */
export const needsNodePorts = (s: ServiceSpec) => s.type === 'NodePort' || (s.type === 'LoadBalancer' && s.allocateLoadBalancerNodePorts !== false);
export const isHeadless = (s: ServiceSpec) => s.clusterIP === 'None' || s.clusterIPs?.[0] === 'None';
/** a load balancer that keeps traffic on the node asks the node port range for a health check port */
export const needsHealthCheckPort = (s: ServiceSpec) => s.type === 'LoadBalancer' && s.externalTrafficPolicy === 'Local';

const addTo = <K, V>(m: Map<K, Set<V>>, key: K, value: V) => {
  let set = m.get(key);
  if (!set) m.set(key, set = new Set());
  set.add(value);
};

/** the offsets a stored Service holds, per allocator */
function held(a: ServiceAllocators, svc: Service | undefined): Map<RangeAllocator, Set<number>> {
  const out = new Map<RangeAllocator, Set<number>>();
  const add = (allocator: RangeAllocator, offset: number | undefined) => { if (offset !== undefined) addTo(out, allocator, offset); };
  const s = svc?.spec;
  if (!s || typeof s !== 'object') return out;
  if (needsClusterIp(s) && !isHeadless(s)) {
    for (const ip of Array.isArray(s.clusterIPs) ? s.clusterIPs : s.clusterIP ? [s.clusterIP] : []) {
      const range = typeof ip === 'string' ? a.ips.find(r => inRange(r.cidr, ip)) : undefined;
      if (range) add(range.allocator, ipOffset(range.cidr, ip));
    }
  }
  if (hasNodePorts(s)) {
    const { base, size } = a.nodePorts;
    for (const p of Array.isArray(s.ports) ? s.ports : []) if (p?.nodePort && p.nodePort >= base && p.nodePort < base + size) add(a.ports, p.nodePort - base);
  }
  const hc = s.healthCheckNodePort;
  if (needsHealthCheckPort(s) && typeof hc === 'number' && hc >= a.nodePorts.base && hc < a.nodePorts.base + a.nodePorts.size)
    add(a.ports, hc - a.nodePorts.base);
  return out;
}

/** gives back what `before` holds and `after` does not (after absent: the Service is gone) */
export async function releaseHeld(a: ServiceAllocators, before: Service | undefined, after: Service | undefined) {
  const kept = after ? held(a, after) : new Map<RangeAllocator, Set<number>>();
  await Promise.all([...held(a, before)].map(([allocator, offsets]) =>
    allocator.release([...offsets].filter(o => !kept.get(allocator)?.has(o)))));
}

/** how often the repair runs (the reference's interval) */
const repairIntervalMs = 3 * 60_000;

/**
 * The repair of the allocation objects: a pass at start marks what stored Services hold (so state written before
 * the allocation objects existed is taken over), and a pass every few minutes frees what stayed allocated to no
 * Service since the pass before.
 */
export function startServiceRepair(objects: ObjectStore, ranges: ServiceRanges, servicesPrefix: string,
  log: { warn(message: string): void }, intervalMs = repairIntervalMs): { ready: Promise<void>; pass(): Promise<void>; stop(): void } {
  const a = serviceAllocators(objects, ranges);
  const all = [...a.ips.map(r => r.allocator), a.ports];
  let suspects = new Map<RangeAllocator, Set<number>>();
  const pass = async () => {
    const used = new Map<RangeAllocator, Set<number>>();
    for (const item of (await objects.list(servicesPrefix)).items)
      for (const [allocator, offsets] of held(a, item.obj as Service)) for (const o of offsets) addTo(used, allocator, o);
    const next = new Map<RangeAllocator, Set<number>>();
    for (const allocator of all) next.set(allocator, await allocator.repair(used.get(allocator) ?? new Set(), suspects.get(allocator) ?? new Set()));
    suspects = next;
  };
  const timer = setInterval(() => pass().catch(e => log.warn(`service allocation repair: ${(e as Error).message}`)), intervalMs);
  timer.unref();
  return { ready: pass(), pass, stop: () => clearInterval(timer) };
}
