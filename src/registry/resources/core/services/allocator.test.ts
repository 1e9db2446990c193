import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemoryKV } from '../../../../storage/memory/kv.js';
import { createObjectStore, type ObjectStore } from '../../../../storage/objects.js';
import { naming } from '../../../../api/naming.js';
import { ApiError } from '../../../../api/status.js';
import type { ApiObject, Stored } from '../../../../api/meta.js';
import type { Service, ServiceSpec } from '../../../../api/types/core-v1.js';
import type { StrategyContext } from '../../../strategy.js';
import {
  AllocationError, decodeOffsets, encodeOffsets, formatIp, freeOffset, inRange, ipAt, ipRange, parseCidr, parseIp, portRange, rangeAllocator,
  serviceAllocators, startServiceRepair,
} from './allocator.js';
import { strategy as services } from './strategy.js';

const quiet = { warn() {} };

describe('service IP ranges', () => {
  test('IPv4 and IPv6 addresses parse and print back', () => {
    assert.equal(parseIp('10.0.0.1'), 0x0a000001n);
    assert.equal(parseIp('256.0.0.1'), undefined);
    assert.equal(parseIp('01.0.0.1'), undefined);
    assert.equal(formatIp(parseIp('fd00::10')!, 'IPv6'), 'fd00::10');
    assert.equal(formatIp(parseIp('2001:db8:0:0:1:0:0:1')!, 'IPv6'), '2001:db8::1:0:0:1');
    assert.equal(parseIp('1::2::3'), undefined);
  });

  test('the network and broadcast addresses are never handed out; new ones come from above the band users choose from', () => {
    const small = parseCidr('10.0.0.0/30');
    assert.equal(inRange(small, '10.0.0.0'), false);
    assert.equal(inRange(small, '10.0.0.3'), false);
    const r = ipRange(small, '/k');
    const bits = new Uint8Array(1);
    const got = [freeOffset(r, bits)!];
    bits[0] |= 1 << got[0];
    got.push(freeOffset(r, bits)!);
    bits[0] |= 1 << got[1];
    assert.deepEqual(got.map(o => ipAt(small, o)).sort(), ['10.0.0.1', '10.0.0.2']);
    assert.equal(freeOffset(r, bits), undefined);
    assert.equal(inRange(parseCidr('fd00::/120'), 'fd00::ff'), true);
    // new addresses come from above the band kept for addresses users choose (16 of a /24), then from the band
    const wide = ipRange(parseCidr('10.0.0.0/24'), '/k');
    const none = new Uint8Array(32);
    for (let i = 0; i < 20; i++) assert.ok(freeOffset(wide, none)! >= 16);
    const upper = new Uint8Array(32).fill(0xff, 2);
    const low = freeOffset(wide, upper)!;
    assert.ok(low >= 1 && low < 16, String(low));
  });

  test('stored offsets survive their encoding', () => {
    for (const size of [8, 100, 2768, 1 << 16]) {
      const bits = new Uint8Array(Math.ceil(size / 8));
      for (let i = 0; i < size / 3; i++) { const o = Math.floor(Math.random() * size); bits[o >> 3] |= 1 << (o & 7); }
      assert.deepEqual(decodeOffsets(encodeOffsets(bits), size), bits);
    }
    assert.equal(encodeOffsets(new Uint8Array(4)), '');
  });
});

describe('range allocation in storage', () => {
  const store = (): ObjectStore => createObjectStore(openMemoryKV());

  test('allocators of two servers on one store never hand out a value twice, and a full range refuses', async () => {
    const objects = store();
    const range = portRange({ base: 30000, size: 200 }, '/registry/ranges/servicenodeports');
    const [a, b] = [rangeAllocator(objects, range), rangeAllocator(objects, range)];
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).allocate([undefined])));
    assert.equal(new Set(got.flat()).size, 200);
    await assert.rejects(a.allocate([undefined]), (e: unknown) => e instanceof AllocationError && e.reason === 'full');
  });

  test('an allocation is all or nothing; a dry run takes nothing; a release frees', async () => {
    const objects = store();
    const a = rangeAllocator(objects, portRange({ base: 30000, size: 10 }, '/registry/ranges/servicenodeports'));
    await a.allocate([3]);
    await assert.rejects(a.allocate([4, 3]), (e: unknown) => e instanceof AllocationError && e.index === 1 && e.reason === 'taken');
    assert.deepEqual(await a.allocate([4], true), [4]);
    assert.deepEqual(await a.allocate([4]), [4], 'neither the refused nor the dry run kept 4');
    await a.release([3]);
    assert.deepEqual(await a.allocate([3]), [3]);
    await assert.rejects(a.allocate([10]), (e: unknown) => e instanceof AllocationError && e.reason === 'outside');
  });

  test('the repair marks what Services hold and frees what none held over two passes', async () => {
    const objects = store();
    const ranges = { clusterIps: ['10.0.0.0/24'], nodePorts: { base: 30000, size: 100 } };
    const prefix = '/registry/core/services/';
    // a Service stored before allocation objects existed
    await objects.create(`${prefix}ns/old`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'old', namespace: 'ns' },
      spec: { type: 'NodePort', clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'], ports: [{ port: 80, nodePort: 30005 }] } } as ApiObject);
    const { ports, ips } = serviceAllocators(objects, ranges);
    await ports.allocate([7]);   // taken by a create that never stored its Service
    const taken = (e: unknown) => e instanceof AllocationError && e.reason === 'taken';
    const free = (offset: number) => ports.allocate([offset], true).then(() => true, () => false);
    const repair = startServiceRepair(objects, ranges, prefix, quiet, 60_000);
    try {
      await repair.ready;
      await assert.rejects(ports.allocate([5]), taken, 'the stored Service\'s node port is marked');
      await assert.rejects(ips[0].allocator.allocate([7]), taken, 'and its cluster IP');
      assert.equal(await free(7), false, 'a value nothing holds is kept through the pass that first finds it');
      await repair.pass();
      assert.equal(await free(7), true, 'and freed by the next');
      assert.equal(await free(5), false, 'what a Service holds stays taken');
    } finally {
      repair.stop();
    }
  });
});

describe('service allocation against storage', () => {
  const setup = async (ranges: string[]) => {
    const kv = openMemoryKV();
    const objects = createObjectStore(kv);
    const ctx: StrategyContext = { names: naming(), now: '', objects, keyPrefix: '/registry/core/services/', serviceClusterIpRanges: ranges, serviceNodePortRange: { base: 30000, size: 3 } };
    const create = async (name: string, spec: ServiceSpec) => {
      const obj: Stored<Service> = { metadata: { name, namespace: 'ns' }, spec };
      services.defaults!(obj, ctx);
      await services.prepareForCreate!(obj, ctx);
      await objects.create(`/registry/core/services/ns/${name}`, obj as unknown as ApiObject);
      return { ...obj.spec, ports: obj.spec?.ports ?? [], clusterIPs: obj.spec?.clusterIPs ?? [] };
    };
    return { kv, create };
  };

  test('concurrent creates never share an IP or a node port, and a full range is a 422', async () => {
    const { kv, create } = await setup(['10.0.0.0/29']);
    const made = await Promise.all(['a', 'b', 'c'].map(n => create(n, { type: 'NodePort', ports: [{ port: 80 }] })));
    assert.equal(new Set(made.map(s => s.clusterIP)).size, 3);
    assert.deepEqual(made.map(s => s.ports[0]?.nodePort).sort(), [30000, 30001, 30002]);
    await assert.rejects(create('d', { type: 'NodePort', ports: [{ port: 80 }] }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 422);
      return true;
    });
    await kv.close();
  });

  test('a dual-stack cluster gives PreferDualStack services both families', async () => {
    const { kv, create } = await setup(['10.0.0.0/24', 'fd00::/112']);
    const both = await create('both', { ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] });
    assert.deepEqual(both.ipFamilies, ['IPv4', 'IPv6']);
    assert.equal(both.clusterIPs.length, 2);
    assert.match(both.clusterIPs[1], /^fd00::/);
    const single = await create('single', { ports: [{ port: 80 }] });
    assert.deepEqual(single.ipFamilies, ['IPv4']);
    assert.equal(single.ipFamilyPolicy, 'SingleStack');
    const v6 = await create('v6', { ipFamilies: ['IPv6'], ports: [{ port: 80 }] });
    assert.match(v6.clusterIP ?? '', /^fd00::/);
    await kv.close();
  });

  test('a LoadBalancer Service with externalTrafficPolicy Local gets a health check node port from the node port range', async () => {
    const { kv, create } = await setup(['10.0.0.0/24']);
    const local = await create('local', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] });
    const nodePort = local.ports[0]?.nodePort;
    assert.ok(local.healthCheckNodePort && local.healthCheckNodePort >= 30000 && local.healthCheckNodePort <= 30002, String(local.healthCheckNodePort));
    assert.notEqual(local.healthCheckNodePort, nodePort);
    // without node ports for its ports it still has its health check port; the range (three ports) is then full
    const bare = await create('bare', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] });
    assert.equal(bare.ports[0]?.nodePort, undefined);
    assert.ok(bare.healthCheckNodePort);
    assert.equal(new Set([nodePort, local.healthCheckNodePort, bare.healthCheckNodePort]).size, 3);
    await assert.rejects(create('more', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', allocateLoadBalancerNodePorts: false }), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 422);
      return true;
    });
    // a cluster-wide load balancer has none
    const { kv: kv2, create: create2 } = await setup(['10.0.0.0/24']);
    assert.equal((await create2('cluster', { type: 'LoadBalancer', ports: [{ port: 80 }] })).healthCheckNodePort, undefined);
    await kv.close();
    await kv2.close();
  });

  test('a headless Service without selector requires both families even on a single-stack cluster, unless it asks for one', async () => {
    const { kv, create } = await setup(['10.0.0.0/24']);
    const bare = await create('bare', { clusterIP: 'None', ports: [{ port: 80 }] });
    assert.deepEqual([bare.ipFamilyPolicy, bare.ipFamilies, bare.clusterIPs], ['RequireDualStack', ['IPv4', 'IPv6'], ['None']]);
    const empty = await create('empty', { clusterIP: 'None', selector: {} });
    assert.deepEqual([empty.ipFamilyPolicy, empty.ipFamilies], ['RequireDualStack', ['IPv4', 'IPv6']]);
    const v6 = await create('v6', { clusterIP: 'None', ipFamilies: ['IPv6'] });
    assert.deepEqual([v6.ipFamilyPolicy, v6.ipFamilies], ['RequireDualStack', ['IPv6', 'IPv4']]);
    const single = await create('single', { clusterIP: 'None', ipFamilyPolicy: 'SingleStack' });
    assert.deepEqual([single.ipFamilyPolicy, single.ipFamilies], ['SingleStack', ['IPv4']]);
    // with a selector it is an ordinary single-stack service
    const selected = await create('selected', { clusterIP: 'None', selector: { app: 'a' }, ports: [{ port: 80 }] });
    assert.deepEqual([selected.ipFamilyPolicy, selected.ipFamilies], ['SingleStack', ['IPv4']]);
    await kv.close();
  });
});
