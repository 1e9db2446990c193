// Service addresses and ports held in the stored allocation objects: what a refused write took is given back,
// what a Service lets go of (deleted, changed type) is free at once, and a dry run takes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachBackend, serverOn } from './servers.js';
import { createClient, type Client } from './client.js';

// six usable addresses (a /29 keeps no band for chosen ones), the first held by the server's own Service, and two node ports
const flags = ['--service-cluster-ip-range=10.0.0.0/29', '--service-node-port-range=30000-30001'];

eachBackend('service allocations', h => {
  const svc = (ns: string, name: string, spec: any, query = '') =>
    h.client().request('POST', `/api/v1/namespaces/${ns}/services${query}`, { body: { metadata: { name }, spec } });

  test('refused and dry-run creates take nothing: five valid Services still fit the five free addresses, the sixth does not', async () => {
    const ns = await h.namespace('svc');
    // allocated during prepare, then refused by validation: what they took goes back
    for (let i = 0; i < 10; i++) {
      const refused = await svc(ns, `bad-${i}`, { ports: [{ port: 80 }], selector: { 'not a label!': 'x' } });
      assert.equal(refused.status, 422, refused.body);
    }
    for (let i = 0; i < 10; i++) assert.equal((await svc(ns, `dry-${i}`, { ports: [{ port: 80 }] }, '?dryRun=All')).status, 201);
    const made = await Promise.all(Array.from({ length: 5 }, (_, i) => svc(ns, `s${i}`, { ports: [{ port: 80 }] })));
    for (const r of made) assert.equal(r.status, 201, r.body);
    assert.equal(new Set(made.map(r => r.json.spec.clusterIP)).size, 5);
    const full = await svc(ns, 'sixth', { ports: [{ port: 80 }] });
    assert.equal(full.status, 422, full.body);
    assert.match(full.body, /range is full/);
    // a deleted Service's address is free at once
    assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/s0`)).status, 200);
    const again = await svc(ns, 'again', { clusterIP: made[0].json.spec.clusterIP, ports: [{ port: 80 }] });
    assert.equal(again.status, 201, again.body);
    for (const name of ['s1', 's2', 's3', 's4', 'again'])
      assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/${name}`)).status, 200);
  });

  test('a Service that stops being a NodePort gives its node port back; one that starts takes one', async () => {
    const ns = await h.namespace('svc');
    const a = await svc(ns, 'a', { type: 'NodePort', ports: [{ port: 80 }] });
    const b = await svc(ns, 'b', { type: 'NodePort', ports: [{ port: 80 }] });
    assert.equal(a.status, 201, a.body);
    assert.equal(b.status, 201, b.body);
    assert.notEqual(a.json.spec.ports[0].nodePort, b.json.spec.ports[0].nodePort);
    const c = await svc(ns, 'c', { type: 'NodePort', ports: [{ port: 80 }] });
    assert.equal(c.status, 422, c.body);
    const toClusterIp = { ...a.json, spec: { ...a.json.spec, type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } };
    delete toClusterIp.spec.externalTrafficPolicy;
    const changed = await h.client().request('PUT', `/api/v1/namespaces/${ns}/services/a`, { body: toClusterIp });
    assert.equal(changed.status, 200, changed.body);
    assert.equal(changed.json.spec.ports[0].nodePort, undefined);
    const now = await svc(ns, 'c', { type: 'NodePort', ports: [{ port: 80 }] });
    assert.equal(now.status, 201, now.body);
    assert.equal(now.json.spec.ports[0].nodePort, a.json.spec.ports[0].nodePort);
    // back to NodePort: no port is left
    const back = await h.client().request('PUT', `/api/v1/namespaces/${ns}/services/a`, { body: { ...changed.json, spec: { ...changed.json.spec, type: 'NodePort' } } });
    assert.equal(back.status, 422, back.body);
    assert.match(back.body, /range is full/);
    for (const name of ['a', 'b', 'c']) assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/${name}`)).status, 200);
  });

  test('an update keeps what a Service holds as the reference does: a port keeps its node port when its number changes, a changed clusterIP is refused', async () => {
    const ns = await h.namespace('svc');
    const made = await svc(ns, 'web', { type: 'NodePort', ports: [{ name: 'web', port: 80 }] });
    assert.equal(made.status, 201, made.body);
    const { nodePort } = made.json.spec.ports[0];
    const path = `/api/v1/namespaces/${ns}/services/web`;
    // the port of that name moves to 81, its node port left out (kubectl apply sends no node port)
    const moved = await h.client().request('PUT', path, { body: { ...made.json, spec: { ...made.json.spec, ports: [{ name: 'web', port: 81, protocol: 'TCP', targetPort: 81 }] } } });
    assert.equal(moved.status, 200, moved.body);
    assert.deepEqual(moved.json.spec.ports.map((p: any) => [p.port, p.nodePort]), [[81, nodePort]]);
    // the other node port of the range is still free, so nothing leaked
    const other = await svc(ns, 'other', { type: 'NodePort', ports: [{ port: 80 }] });
    assert.equal(other.status, 201, other.body);
    assert.notEqual(other.json.spec.ports[0].nodePort, nodePort);
    // an old client changes clusterIP alone: refused, not silently undone
    const ip = made.json.spec.clusterIP;
    const wanted = ip === '10.0.0.5' ? '10.0.0.6' : '10.0.0.5';
    const changed = await h.client().request('PATCH', path, { body: { spec: { clusterIP: wanted } }, contentType: 'application/merge-patch+json' });
    assert.equal(changed.status, 422, changed.body);
    assert.match(changed.json.message, /spec\.clusterIPs\[0\]: Invalid value: \[".*"\]: may not change once set/);
    assert.equal((await h.client().get(path)).json.spec.clusterIP, ip);
    for (const name of ['web', 'other']) assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/${name}`)).status, 200);
  });

  test('a load balancer that declines node ports still holds the ones it names', async () => {
    const ns = await h.namespace('svc');
    const lb = await svc(ns, 'lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ name: 'a', port: 80, nodePort: 30000 }, { name: 'b', port: 81 }] });
    assert.equal(lb.status, 201, lb.body);
    assert.deepEqual(lb.json.spec.ports.map((p: any) => p.nodePort), [30000, undefined]);
    const taken = await svc(ns, 'np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30000 }] });
    assert.equal(taken.status, 422, taken.body);
    assert.match(taken.json.message, /spec\.ports\[0\]\.nodePort: Invalid value: 30000: provided port is already allocated/);
    // an update that leaves the node port out keeps it, and a deletion gives it back
    const path = `/api/v1/namespaces/${ns}/services/lb`;
    const kept = await h.client().request('PUT', path, { body: { ...lb.json, spec: { ...lb.json.spec, ports: [{ name: 'a', port: 80, protocol: 'TCP', targetPort: 80 }] } } });
    assert.equal(kept.status, 200, kept.body);
    assert.equal(kept.json.spec.ports[0].nodePort, 30000);
    assert.equal((await h.client().request('DELETE', path)).status, 200);
    const now = await svc(ns, 'np', { type: 'NodePort', ports: [{ port: 80, nodePort: 30000 }] });
    assert.equal(now.status, 201, now.body);
    assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/np`)).status, 200);
  });

  test('a health check node port stays as allocated: a change is refused and takes nothing', async () => {
    const ns = await h.namespace('svc');
    const lb = await svc(ns, 'local', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] });
    assert.equal(lb.status, 201, lb.body);
    const held = lb.json.spec.healthCheckNodePort;
    const other = held === 30000 ? 30001 : 30000;
    const path = `/api/v1/namespaces/${ns}/services/local`;
    const changed = await h.client().request('PATCH', path, { body: { spec: { healthCheckNodePort: other } }, contentType: 'application/merge-patch+json' });
    assert.equal(changed.status, 422, changed.body);
    assert.equal(changed.json.message, 'Service "local" is invalid: spec.healthCheckNodePort: Forbidden: field is immutable');
    assert.equal((await h.client().get(path)).json.spec.healthCheckNodePort, held);
    // the port the refused change named is still free
    const np = await svc(ns, 'np', { type: 'NodePort', ports: [{ port: 80, nodePort: other }] });
    assert.equal(np.status, 201, np.body);
    for (const name of ['local', 'np']) assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/${name}`)).status, 200);
  });

  test('a Service that requires both IP families is refused on a single-stack cluster, unless it is headless without selector', async () => {
    const ns = await h.namespace('svc');
    const dual = await svc(ns, 'dual', { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] });
    assert.equal(dual.status, 422, dual.body);
    assert.equal(dual.json.message, 'Service "dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    const headless = await svc(ns, 'headless', { clusterIP: 'None', ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] });
    assert.equal(headless.status, 201, headless.body);
    assert.deepEqual(headless.json.spec.ipFamilies, ['IPv4', 'IPv6']);
    const prefer = await svc(ns, 'prefer', { ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] });
    assert.equal(prefer.status, 201, prefer.body);
    assert.deepEqual(prefer.json.spec.ipFamilies, ['IPv4']);
    for (const name of ['headless', 'prefer']) assert.equal((await h.client().request('DELETE', `/api/v1/namespaces/${ns}/services/${name}`)).status, 200);
  });

  test('families a Service names that it cannot have are refused, never dropped or kept without an address', async () => {
    const ns = await h.namespace('svc');
    const refused = async (name: string, spec: object) => {
      const r = await svc(ns, name, { ports: [{ port: 80 }], ...spec });
      assert.equal(r.status, 422, r.body);
      return r.json.message;
    };
    assert.equal(await refused('single', { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] }),
      `Service "single" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`);
    // without a policy a Service is single-stack, whatever it lists
    assert.equal(await refused('unsaid', { ipFamilies: ['IPv4', 'IPv6'] }),
      `Service "unsaid" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`);
    assert.equal(await refused('prefer', { ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4', 'IPv6'] }),
      'Service "prefer" is invalid: spec.ipFamilies[1]: Invalid value: "IPv6": not configured on this cluster');
    assert.equal(await refused('v6', { clusterIP: 'fd00::5' }),
      'Service "v6" is invalid: spec.clusterIPs[0]: Invalid value: ["fd00::5"]: IPv6 is not configured on this cluster');
    assert.match(await refused('two', { ipFamilyPolicy: 'SingleStack', clusterIP: '10.0.0.6', clusterIPs: ['10.0.0.6', 'fd00::6'] }),
      /spec\.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified/);
    // 'None' stands alone: a second value is not made into a headless Service
    assert.equal(await refused('nones', { clusterIP: 'None', clusterIPs: ['None', 'None'] }),
      `Service "nones" is invalid: [spec.clusterIPs: Invalid value: ["None","None"]: 'None' must be the first and only value, spec.clusterIPs[1]: Invalid value: "None": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)]`);
    // a headless Service without selector allocates nothing: one family is all SingleStack may name there too
    assert.equal(await refused('headless', { clusterIP: 'None', ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] }),
      `Service "headless" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`);
  });
}, { flags });

describe('dual-stack service updates', () => {
  let running: Awaited<ReturnType<typeof serverOn>>;
  let c: Client;
  before(async () => {
    running = await serverOn('memory', { flags: ['--service-cluster-ip-range=10.0.0.0/24,fd00::/120'] });
    c = createClient(running.server);
  });
  after(async () => { c.close(); await running.close(); });

  test('releasing the secondary cluster IP asks for SingleStack; it is never replaced by a new one', async () => {
    const made = await c.request('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'd' }, spec: { ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] } } });
    assert.equal(made.status, 201, made.body);
    const ips = made.json.spec.clusterIPs;
    assert.equal(ips.length, 2);
    const path = '/api/v1/namespaces/default/services/d';
    const released = await c.request('PATCH', path, { body: [{ op: 'remove', path: '/spec/clusterIPs/1' }], contentType: 'application/json-patch+json' });
    assert.equal(released.status, 422, released.body);
    assert.equal(released.json.message, `Service "d" is invalid: spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to 'SingleStack' when releasing the secondary clusterIP`);
    const down = await c.request('PATCH', path, { body: { spec: { ipFamilyPolicy: 'SingleStack' } }, contentType: 'application/merge-patch+json' });
    assert.equal(down.status, 200, down.body);
    assert.deepEqual([down.json.spec.ipFamilies, down.json.spec.clusterIPs], [['IPv4'], [ips[0]]]);
  });

  test('a valid Service write warns, as the reference does, of the deprecated topology annotation and of IPv6 text not in canonical form', async () => {
    const hints = `service.${running.server.names.labelDomain}/topology-aware-hints`;
    const made = await c.request('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'warned', annotations: { [hints]: 'Auto' } },
      spec: { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv6'], clusterIP: 'FD00:0:0::12', clusterIPs: ['FD00:0:0::12'], ports: [{ port: 80 }] } } });
    assert.equal(made.status, 201, made.body);
    assert.deepEqual(String(made.headers.warning).split(/, (?=299)/), [
      `299 - "annotation ${hints} is deprecated, please use service.${running.server.names.labelDomain}/topology-mode instead"`,
      '299 - "spec.clusterIPs[0]: IPv6 address \\"FD00:0:0::12\\" is not in RFC 5952 canonical format (\\"fd00::12\\"), which may cause controller apply-loops"',
    ]);
    // an update warns again; a refused write does not
    const labelled = await c.request('PATCH', '/api/v1/namespaces/default/services/warned', { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
    assert.equal(labelled.status, 200, labelled.body);
    assert.match(String(labelled.headers.warning), /topology-aware-hints is deprecated/);
    const refused = await c.request('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'refused', annotations: { [hints]: 'Auto' } }, spec: { ports: [] } } });
    assert.equal(refused.status, 422, refused.body);
    assert.equal(refused.headers.warning, undefined);
  });

  test('a Service listing both families names its policy: without one it is single-stack and refused', async () => {
    const r = await c.request('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'both' }, spec: { ipFamilies: ['IPv6', 'IPv4'], ports: [{ port: 80 }] } } });
    assert.equal(r.status, 422, r.body);
    assert.equal(r.json.message, `Service "both" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`);
    const asked = await c.request('POST', '/api/v1/namespaces/default/services', { body: { metadata: { name: 'both' }, spec: { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'], ports: [{ port: 80 }] } } });
    assert.equal(asked.status, 201, asked.body);
    assert.deepEqual([asked.json.spec.ipFamilies, asked.json.spec.clusterIPs.map((ip: string) => ip.includes(':'))], [['IPv6', 'IPv4'], [true, false]]);
  });
});
