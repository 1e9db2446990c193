import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemoryKV } from '../../../../storage/memory/kv.js';
import { naming } from '../../../../api/naming.js';
import type { Stored } from '../../../../api/meta.js';
import type { Service, ServiceSpec } from '../../../../api/types/core-v1.js';
import { ApiError } from '../../../../api/status.js';
import type { StrategyContext } from '../../../strategy.js';
import { formatIp, freeIp, inRange, parseCidr, parseIp } from './allocator.js';
import { strategy as services } from './strategy.js';

describe('service IP ranges', () => {
  test('IPv4 and IPv6 addresses parse and print back', () => {
    assert.equal(parseIp('10.0.0.1'), 0x0a000001n);
    assert.equal(parseIp('256.0.0.1'), undefined);
    assert.equal(parseIp('01.0.0.1'), undefined);
    assert.equal(formatIp(parseIp('fd00::10')!, 'IPv6'), 'fd00::10');
    assert.equal(formatIp(parseIp('2001:db8:0:0:1:0:0:1')!, 'IPv6'), '2001:db8::1:0:0:1');
    assert.equal(parseIp('1::2::3'), undefined);
  });

  test('the network and broadcast addresses are never handed out', () => {
    const r = parseCidr('10.0.0.0/30');
    assert.equal(inRange(r, '10.0.0.0'), false);
    assert.equal(inRange(r, '10.0.0.1'), true);
    assert.equal(inRange(r, '10.0.0.2'), true);
    assert.equal(inRange(r, '10.0.0.3'), false);
    const seen = new Set<string>();
    for (let i = 0; i < 2; i++) { const ip = freeIp(r, x => seen.has(x))!; seen.add(ip); }
    assert.deepEqual([...seen].sort(), ['10.0.0.1', '10.0.0.2']);
    assert.equal(freeIp(r, x => seen.has(x)), undefined);
    assert.equal(inRange(parseCidr('fd00::/120'), 'fd00::ff'), true);
    // new addresses come from above the band kept for addresses users choose (16 of a /24)
    const wide = parseCidr('10.0.0.0/24');
    for (let i = 0; i < 20; i++) assert.ok(Number(freeIp(wide, () => false)!.split('.')[3]) >= 16);
    // and from the band once the rest is taken
    const low = Number(freeIp(wide, ip => Number(ip.split('.')[3]) >= 16)!.split('.')[3]);
    assert.ok(low >= 1 && low < 16, String(low));
  });
});

describe('service allocation against storage', () => {
  const setup = async (ranges: string[]) => {
    const kv = openMemoryKV();
    const ctx: StrategyContext = { names: naming(), now: '', kv, keyPrefix: '/registry/core/services/', serviceClusterIpRanges: ranges, serviceNodePortRange: { base: 30000, size: 3 } };
    const create = async (name: string, spec: ServiceSpec) => {
      const obj: Stored<Service> = { metadata: { name, namespace: 'ns' }, spec };
      services.defaults!(obj, ctx);
      await services.prepareForCreate!(obj, ctx);
      await kv.create(`/registry/core/services/ns/${name}`, Buffer.from(JSON.stringify(obj)));
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
});
