// The node CIDR allocator: node CIDRs handed out in turn, used up, freed, per IP family, the service range kept out;
// and the start-up checks of its flags.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cidrSetsFor, createCidrSet } from './nodeipam.js';
import { FlagError, parseFlags } from '../config/flags.js';
import { controllerManagerFlags, nodeIpamOptionsFrom } from '../config/controller-manager-options.js';

const drain = (set: ReturnType<typeof createCidrSet>) => {
  const out: string[] = [];
  for (let c = set.allocateNext(); c !== undefined; c = set.allocateNext()) out.push(c);
  return out;
};

test('node CIDRs come in order until the cluster CIDR is used up', () => {
  const set = createCidrSet('10.244.0.0/22', 24);
  assert.deepEqual(drain(set), ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24', '10.244.3.0/24']);
  assert.equal(set.allocateNext(), undefined);
  assert.equal(set.free(), 0);
});

test('a freed CIDR is handed out again once the others ahead of it are taken', () => {
  const set = createCidrSet('10.244.0.0/22', 24);
  drain(set);
  set.release('10.244.1.0/24');
  assert.equal(set.free(), 1);
  assert.equal(set.allocateNext(), '10.244.1.0/24');
  const fresh = createCidrSet('10.244.0.0/22', 24);
  assert.equal(fresh.allocateNext(), '10.244.0.0/24');
  fresh.release('10.244.0.0/24');
  // round robin: the next one first, the freed one when the turn comes back to it
  assert.deepEqual(drain(fresh), ['10.244.1.0/24', '10.244.2.0/24', '10.244.3.0/24', '10.244.0.0/24']);
});

test('CIDRs already held are skipped; one outside the cluster CIDR is refused', () => {
  const set = createCidrSet('10.244.0.0/22', 24);
  set.occupy('10.244.0.0/24');
  set.occupy('10.244.2.0/24');
  assert.deepEqual(drain(set), ['10.244.1.0/24', '10.244.3.0/24']);
  assert.throws(() => set.occupy('10.250.0.0/24'), /out of the range/);
  assert.throws(() => set.occupy('fd00::/64'), /out of the range/);
  assert.throws(() => set.occupy('nonsense'), /not a CIDR/);
});

test('IPv6 and dual-stack: one CIDR per family, in the order of the cluster CIDRs', () => {
  const [v4, v6] = cidrSetsFor({ clusterCidrs: ['10.244.0.0/16', 'fd00:10:244::/56'], nodeMaskSizes: [24, 64], serviceCidrs: [] });
  assert.equal(v4!.allocateNext(), '10.244.0.0/24');
  assert.equal(v6!.allocateNext(), 'fd00:10:244::/64');
  assert.equal(v6!.allocateNext(), 'fd00:10:244:1::/64');
  assert.equal(v6!.free(), 254);
});

test('the service range is kept out where it overlaps the cluster CIDR, and ignored where it does not', () => {
  const [set] = cidrSetsFor({ clusterCidrs: ['10.0.0.0/22'], nodeMaskSizes: [24], serviceCidrs: ['10.0.1.0/24', '10.96.0.0/12', 'fd00::/108'] });
  assert.deepEqual(drain(set!), ['10.0.0.0/24', '10.0.2.0/24', '10.0.3.0/24']);
  // a service range smaller than a node CIDR takes the whole node CIDR it falls in; one larger takes all it covers
  const [small] = cidrSetsFor({ clusterCidrs: ['10.0.0.0/22'], nodeMaskSizes: [24], serviceCidrs: ['10.0.3.16/28'] });
  assert.deepEqual(drain(small!), ['10.0.0.0/24', '10.0.1.0/24', '10.0.2.0/24']);
  const [covered] = cidrSetsFor({ clusterCidrs: ['10.0.0.0/22'], nodeMaskSizes: [24], serviceCidrs: ['10.0.0.0/16'] });
  assert.equal(covered!.allocateNext(), undefined);
});

const ipam = (...argv: string[]) => nodeIpamOptionsFrom(parseFlags(controllerManagerFlags, ['--allocate-node-cidrs', ...argv]).values);

test('flags: defaults of 24 and 64, per-family sizes, and the reference\'s start-up refusals', () => {
  assert.equal(nodeIpamOptionsFrom(parseFlags(controllerManagerFlags, ['--cluster-cidr=10.244.0.0/16']).values), undefined, 'off without --allocate-node-cidrs');
  assert.deepEqual(ipam('--cluster-cidr=10.244.0.0/16'), { clusterCidrs: ['10.244.0.0/16'], nodeMaskSizes: [24], serviceCidrs: [] });
  assert.deepEqual(ipam('--cluster-cidr=fd00::/48')?.nodeMaskSizes, [64]);
  assert.deepEqual(ipam('--cluster-cidr=10.244.0.0/16,fd00::/64', '--node-cidr-mask-size-ipv4=26', '--node-cidr-mask-size-ipv6=80')?.nodeMaskSizes, [26, 80]);
  assert.deepEqual(ipam('--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=25')?.nodeMaskSizes, [25]);
  assert.deepEqual(ipam('--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size-ipv4=20')?.nodeMaskSizes, [20]);
  const refused: Array<[string[], RegExp]> = [
    [[], /--cluster-cidr is required/],
    [['--cluster-cidr=10.244.0.0'], /not a CIDR/],
    [['--cluster-cidr=10.244.0.0/16,10.245.0.0/16'], /different IP families/],
    [['--cluster-cidr=10.244.0.0/16,fd00::/48,fd01::/48'], /at most 2/],
    [['--cluster-cidr=10.244.0.0/16,fd00::/48', '--node-cidr-mask-size=24'], /not allowed with a dual-stack/],
    [['--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size=24', '--node-cidr-mask-size-ipv4=24'], /not allowed with --node-cidr-mask-size/],
    [['--cluster-cidr=10.244.0.0/16', '--node-cidr-mask-size-ipv6=64'], /single-stack IPv4/],
    [['--cluster-cidr=fd00::/48', '--node-cidr-mask-size-ipv4=24'], /single-stack IPv6/],
    [['--cluster-cidr=10.244.0.0/24', '--node-cidr-mask-size=16'], /smaller than the prefix length/],
    [['--cluster-cidr=10.0.0.0/8', '--node-cidr-mask-size=28'], /more than 2\^16/],
    [['--cluster-cidr=10.0.0.0/8', '--node-cidr-mask-size=33'], /not a prefix length/],
    [['--cluster-cidr=10.244.0.0/16', '--cidr-allocator-type=CloudAllocator'], /only RangeAllocator/],
  ];
  for (const [argv, message] of refused) assert.throws(() => ipam(...argv), (e: Error) => e instanceof FlagError && message.test(e.message), argv.join(' '));
});
