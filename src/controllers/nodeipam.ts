// The node IPAM controller (the reference's range allocator): with --allocate-node-cidrs, every node without
// pod CIDRs gets the next free CIDR of the node mask size from each cluster CIDR (one per IP family), written by a
// patch of spec.podCIDR/podCIDRs. The CIDRs nodes already hold are marked used once the node list is in, so is the
// service range where it overlaps a cluster CIDR; a deleted node's CIDRs are freed. When a range is used up the
// node gets a CIDRNotAvailable event and waits until a CIDR is freed. The range allocator of the reference sets no
// NetworkUnavailable condition (only its cloud allocator and route controller do), so neither does this one.
import { formatCidr, parseCidrText, subnetProblem, type Cidr } from '../api/ip.js';
import { isNotFound } from '../client/rest-client.js';
import { startQueue } from './common.js';
import type { Controller, NodeIpamSettings } from './context.js';

/** a node without a CIDR tries again this often while its range is used up (and at once when one is freed) */
const exhaustedRetryMs = 60_000;

/** One cluster CIDR cut into node CIDRs of one size, each used or free. */
export interface CidrSet {
  readonly cluster: string;
  readonly family: Cidr['family'];
  /** the next free node CIDR after the last one handed out (round robin, so a freed CIDR is not reused at once) */
  allocateNext(): string | undefined;
  /** marks every node CIDR overlapping `cidr` used; throws when it lies outside the cluster CIDR */
  occupy(cidr: string): void;
  /** marks every node CIDR overlapping `cidr` free; throws when it lies outside the cluster CIDR */
  release(cidr: string): void;
  /** how many node CIDRs are free */
  free(): number;
}

export function createCidrSet(clusterCidr: string, nodeMask: number): CidrSet {
  const cluster = parseCidrText(clusterCidr);
  if (!cluster) throw new Error(`${JSON.stringify(clusterCidr)} is not a CIDR`);
  const problem = subnetProblem(cluster, nodeMask);
  if (problem) throw new Error(problem);
  const hostBits = BigInt(cluster.width - nodeMask);
  const count = 1 << (nodeMask - cluster.prefix);
  const used = new Uint8Array(count);
  let usedCount = 0;
  let next = 0;
  const clusterEnd = cluster.base + (1n << BigInt(cluster.width - cluster.prefix)) - 1n;

  /** the indices of the node CIDRs a CIDR overlaps */
  function span(text: string): [number, number] {
    const c = parseCidrText(text);
    if (!c) throw new Error(`${JSON.stringify(text)} is not a CIDR`);
    const end = c.base + (1n << BigInt(c.width - c.prefix)) - 1n;
    if (c.family !== cluster!.family || end < cluster!.base || c.base > clusterEnd) throw new Error(`CIDR ${text} is out of the range of the cluster CIDR ${formatCidr(cluster!)}`);
    const from = c.base > cluster!.base ? c.base : cluster!.base;
    const to = end < clusterEnd ? end : clusterEnd;
    return [Number((from - cluster!.base) >> hostBits), Number((to - cluster!.base) >> hostBits)];
  }
  const mark = (text: string, value: 0 | 1) => {
    const [from, to] = span(text);
    for (let i = from; i <= to; i++) {
      if (used[i] !== value) usedCount += value ? 1 : -1;
      used[i] = value;
    }
  };

  return {
    cluster: formatCidr(cluster),
    family: cluster.family,
    allocateNext() {
      if (usedCount >= count) return undefined;
      for (let k = 0; k < count; k++) {
        const i = (next + k) % count;
        if (used[i]) continue;
        used[i] = 1;
        usedCount++;
        next = (i + 1) % count;
        return formatCidr({ ...cluster, base: cluster.base + (BigInt(i) << hostBits), prefix: nodeMask });
      }
      return undefined;
    },
    occupy: (cidr) => mark(cidr, 1),
    release: (cidr) => mark(cidr, 0),
    free: () => count - usedCount,
  };
}

/** the allocator's CIDR sets, the service ranges already marked used */
export function cidrSetsFor(s: NodeIpamSettings): CidrSet[] {
  const sets = s.clusterCidrs.map((c, i) => createCidrSet(c, s.nodeMaskSizes[i]!));
  for (const service of s.serviceCidrs) {
    for (const set of sets) {
      try { set.occupy(service); } catch { /* a service range outside this cluster CIDR takes nothing from it */ }
    }
  }
  return sets;
}

export const nodeIpamController: Controller = {
  name: 'nodeipam',
  component: 'cidrAllocator',
  serviceAccount: 'node-controller',
  start(ctx) {
    const config = ctx.settings.nodeIpam;
    if (!config) throw new Error('--allocate-node-cidrs is off');
    const sets = cidrSetsFor(config);
    const nodes = ctx.informers.informer(ctx.refs.nodes);
    /** CIDRs written to nodes whose update the informer has not shown yet: not to be given twice */
    const written = new Map<string, string[]>();
    /** nodes that found a range used up: tried again when a CIDR is freed */
    const waiting = new Set<string>();
    /** the CIDRs each node was last seen holding and marked used (a status update every few seconds changes none) */
    const marked = new Map<string, string>();
    let existingMarked = false;

    /** marks a node's CIDRs used or free, each in the cluster CIDR of its family */
    const each = (cidrs: Iterable<string>, what: 'occupy' | 'release', node: string) => {
      for (const cidr of cidrs) {
        const family = parseCidrText(cidr)?.family;
        const set = sets.find((s) => s.family === family);
        if (!set) { ctx.log.warn(`nodeipam: node ${node} has CIDR ${cidr}, of no cluster CIDR's family`); continue; }
        try { set[what](cidr); } catch (e) { ctx.log.warn(`nodeipam: node ${node}: ${(e as Error).message}`); }
      }
    };

    const markHeld = (name: string, held: readonly string[]) => {
      const key = held.join(',');
      if (!held.length || marked.get(name) === key) return;
      marked.set(name, key);
      each(held, 'occupy', name);
    };

    const queue = startQueue(ctx, async (name) => {
      // the CIDRs the listed nodes hold are used before any is handed out
      if (!existingMarked) {
        existingMarked = true;
        for (const n of nodes.list()) markHeld(n.metadata.name!, n.spec?.podCIDRs ?? []);
      }
      const node = nodes.get(name);
      if (!node) return;
      const held = node.spec?.podCIDRs ?? [];
      if (held.length) {
        markHeld(name, held);
        written.delete(name);
        waiting.delete(name);
        return;
      }
      if (written.has(name) || node.metadata.deletionTimestamp) return;
      const cidrs: string[] = [];
      for (const set of sets) {
        const cidr = set.allocateNext();
        if (cidr === undefined) {
          each(cidrs, 'release', name);
          waiting.add(name);
          ctx.recorder.event(nodeRef(name), 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
          ctx.log.warn(`nodeipam: no CIDR left in ${set.cluster} for node ${name}`);
          return { requeueAfterMs: exhaustedRetryMs };
        }
        cidrs.push(cidr);
      }
      try {
        await ctx.client.resource(ctx.refs.nodes).patch(name, { spec: { podCIDR: cidrs[0], podCIDRs: cidrs } }, 'strategic');
      } catch (e) {
        each(cidrs, 'release', name);
        if (isNotFound(e)) return;
        ctx.recorder.event(nodeRef(name), 'Normal', 'CIDRAssignmentFailed', `Node ${name} status is now: CIDRAssignmentFailed`);
        throw e;
      }
      written.set(name, cidrs);
      waiting.delete(name);
      ctx.log.info(`nodeipam: node ${name} gets pod CIDRs ${cidrs.join(',')}`);
    });

    nodes.addHandler({
      added: (n) => queue.add(n.metadata.name!),
      updated: (_, n) => queue.add(n.metadata.name!),
      deleted: (n) => {
        const name = n.metadata.name!;
        // what the node held, and what was written to it that the informer may not have shown
        const freed = new Set([...(n.spec?.podCIDRs ?? []), ...(written.get(name) ?? [])]);
        written.delete(name);
        waiting.delete(name);
        marked.delete(name);
        // before the first sync nothing is marked yet, and the node is not in the list to mark
        if (existingMarked) each(freed, 'release', name);
        for (const w of waiting) queue.add(w);
      },
    });

  },
};

/** the reference records node status events with the node's name as its uid (what `kubectl describe node` looks for) */
const nodeRef = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: name } });
